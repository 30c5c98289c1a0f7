// How PostgreSQL's jsonb keeps a value: the keys of an object are not kept in the order they were
// written but sorted, shorter keys first and keys of one length by their bytes (PostgreSQL
// src/backend/utils/adt/jsonb_util.c, lengthCompareJsonbStringValue via uniqueifyJsonbObject).
// A person's properties are a jsonb column (posthog_person.properties), so an object value set
// through capture or the REST API reads back with its keys in that order.

/** The value as jsonb would give it back: object keys reordered, at every depth. */
function asJsonb(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asJsonb);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value).sort((a, b) => {
    const la = Buffer.byteLength(a);
    const lb = Buffer.byteLength(b);
    return la !== lb ? la - lb : Buffer.compare(Buffer.from(a), Buffer.from(b));
  });
  return Object.fromEntries(keys.map((key) => [key, asJsonb((value as Record<string, unknown>)[key])]));
}

/** Each property's value as jsonb keeps it (the properties object itself is left as it is). */
export function valuesAsJsonb(properties: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, asJsonb(value)]));
}
