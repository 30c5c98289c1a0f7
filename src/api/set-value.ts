// How a value typed on the command line becomes a property value (`--set key=value`,
// `persons set-prop <id> <key> <value>`, `hogctl api --field k=v`): JSON when the whole text is
// JSON, otherwise the text itself. So `30` is a number, `true` a boolean, `null` null,
// `["a","b"]` a list, while `Lee`, `01234` (JSON has no leading zeros) and ` 42` (surrounding
// spaces) stay strings; `'"42"'` forces the string "42".
import { UsageError } from '../errors.js';

/**
 * An integer literal a double cannot carry (ids, card numbers) stays text. A double carries it when
 * it holds those exact digits, or when it prints back as the same text (so JSON from any number
 * reads back as that number).
 */
function losesPrecision(text: string, value: number): boolean {
  if (!/^-?\d+$/.test(text) || Number.isSafeInteger(value)) return false;
  return BigInt(text) !== BigInt(value) && String(value) !== text;
}

export function parseSetValue(raw: string): unknown {
  if (raw === '' || raw !== raw.trim()) return raw;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return raw;
  }
  if (typeof value === 'number' && (!Number.isFinite(value) || losesPrecision(raw, value))) return raw;
  return value;
}

/** `key=value` → [key, parsed value]; the key is everything before the first `=`. */
export function parseAssignment(raw: string, flag = '--set'): [string, unknown] {
  const eq = raw.indexOf('=');
  if (eq <= 0) {
    throw new UsageError(
      `invalid ${flag} "${raw}": expected key=value`,
      `e.g. ${flag} plan=team, ${flag} seats=12 or ${flag} '$browser=Firefox'`,
    );
  }
  return [raw.slice(0, eq), parseSetValue(raw.slice(eq + 1))];
}

/** Several `key=value` flags as one object; a repeated key keeps its last value. */
export function parseAssignments(list: string[], flag = '--set'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const raw of list) {
    const [key, value] = parseAssignment(raw, flag);
    // defineProperty, so that a key such as `__proto__` is kept as a key.
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
