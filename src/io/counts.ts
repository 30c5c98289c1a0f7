// How hogctl writes numbers and counts in its messages, in one place: digits grouped by commas
// whatever the locale (messages, journals and tests read the same everywhere), and a noun that
// agrees with its count.

/**
 * 1234567 → "1,234,567", as `n.toLocaleString('en-US')` writes it. Whole numbers, nearly every
 * count, are grouped by hand: the first call of toLocaleString loads ICU's number formatting,
 * about 13 ms of a command's start-up. Fractions keep ICU's rounding.
 */
export function formatNumber(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en-US');
  const grouped = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ',');
  return n < 0 ? `-${grouped}` : grouped;
}

/** The noun for `n` things: `one` for exactly 1, else `many` (by default `one` and an "s"). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** `n` and its noun: "1 person", "2,000 persons", "1 query", "3 queries" (`many` given). */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${formatNumber(n)} ${plural(n, one, many)}`;
}
