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
