// Turns HogQL answers (rows as arrays, names in `columns`) into records for the output writer.
// Column names are not unique (`SELECT id, id`) and may be empty or odd (`count()`), so each
// gets a distinct key; `properties` selected whole comes back as a JSON string and is parsed, so
// that `--fields properties.email` and the json formats see an object.

export interface RowShape {
  /** One key per returned column, in order, all distinct. */
  keys: string[];
  /** Keys whose values are parsed from JSON text. */
  jsonKeys: Set<string>;
}

export function rowShape(columns: string[], types: unknown = []): RowShape {
  const used = new Set<string>();
  const keys = columns.map((raw, i) => {
    const base = typeof raw === 'string' && raw.trim() !== '' ? raw : `column_${i + 1}`;
    let key = base;
    for (let n = 2; used.has(key); n++) key = `${base}_${n}`;
    used.add(key);
    return key;
  });
  const typeOf = new Map<string, string>();
  if (Array.isArray(types))
    for (const pair of types) if (Array.isArray(pair) && typeof pair[0] === 'string') typeOf.set(pair[0], String(pair[1]));
  const jsonKeys = new Set(keys.filter((_key, i) => columns[i] === 'properties' || /JSON/i.test(typeOf.get(columns[i]) ?? '')));
  return { keys, jsonKeys };
}

function maybeJson(value: unknown): unknown {
  if (typeof value !== 'string' || !/^\s*[[{]/.test(value)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

export function toRecords(shape: RowShape, rows: unknown[][]): Record<string, unknown>[] {
  return rows.map((row) => {
    const record: Record<string, unknown> = {};
    shape.keys.forEach((key, i) => {
      const value = Array.isArray(row) ? row[i] : undefined;
      record[key] = shape.jsonKeys.has(key) ? maybeJson(value) : value;
    });
    return record;
  });
}
