// Parsers for flag values shared by several verbs.
import { UsageError } from '../errors.js';

/** A whole number of at least `min`, or a usage error naming the flag. */
export function parseCount(raw: string, flag: string, min = 1): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`invalid ${flag} "${raw}": expected a whole number of at least ${min}`);
  }
  return n;
}

/** A duration such as 90s, 15m, 1h or 1h30m (0 on its own is allowed), in milliseconds. */
export function parseDuration(raw: string, flag: string): number {
  const text = raw.trim().toLowerCase();
  if (text === '0') return 0;
  const units: Record<string, number> = { s: 1000, sec: 1000, m: 60_000, min: 60_000, h: 3_600_000 };
  let ms = 0;
  let rest = text;
  while (rest.length > 0) {
    const m = /^(\d+(?:\.\d+)?)\s*(sec|min|s|m|h)/.exec(rest);
    if (!m) throw new UsageError(`invalid ${flag} "${raw}": expected a duration such as 90s, 15m, 1h or 1h30m`);
    ms += Number(m[1]) * units[m[2]];
    rest = rest.slice(m[0].length).trimStart();
  }
  if (!text || !Number.isFinite(ms)) throw new UsageError(`invalid ${flag} "${raw}": expected a duration such as 90s, 15m, 1h or 1h30m`);
  return Math.round(ms);
}

/** Commander's reducer for a repeatable flag: every value, in order. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
