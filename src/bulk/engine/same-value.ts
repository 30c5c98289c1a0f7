// Person properties are PostgreSQL jsonb, which gives an object's keys back in an order of its
// own: values read back are compared as values, by a bulk update's read-back, --values-from's
// check of rows that disagree, and a merge's undo.

/**
 * Whether two JSON values are the same value: objects with the same keys and values in any order
 * (PostgreSQL's jsonb gives an object's keys back in an order of its own: shorter keys first),
 * arrays with the same items in the same order.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => sameValue(item, b[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  return keys.every((key) => Object.hasOwn(y, key) && sameValue(x[key], y[key]));
}
