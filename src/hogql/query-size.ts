// How large a HogQL query hogctl sends may be: one rule for every query that names a list of
// values (`IN {ids}`). PostHog prints a list placeholder as one parameter per element, and
// clickhouse-driver substitutes each as a quoted literal into the SQL text, so the whole list
// counts toward ClickHouse's max_query_size, 262,144 bytes by default; past it the query fails
// with 500 "Query size exceeded." (ClickHouseQuerySizeExceeded, posthog/exceptions.py;
// docs/server-contract.md §7.2). The budget is half of that: PostHog's printer adds text of its own
// (table prefixes, the person joins, the team filter, settings), and a query under the budget
// here must stay under the limit there.
import { CliError, ExitCode } from '../errors.js';
import { formatNumber } from '../io/counts.js';

/** ClickHouse's default max_query_size. */
export const MAX_QUERY_SIZE = 262_144;
/** What a query's text, values substituted, may be here: half the limit, for the printer's own text. */
export const QUERY_SIZE_BUDGET = 131_072;

/** A value as it lands in the SQL text: strings quoted with backslash escapes, lists as a tuple. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;
  if (Array.isArray(value)) return `(${value.map(literal).join(', ')})`;
  if (typeof value === 'object') return literal(JSON.stringify(value));
  return String(value);
}

/** Bytes of `text` with every `{name}` placeholder replaced by the literal of its value. */
export function querySize(text: string, values: Record<string, unknown>): number {
  const substituted = text.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(values, name) ? literal(values[name]) : whole,
  );
  return Buffer.byteLength(substituted, 'utf8');
}

export interface BatchLimits<T> {
  /** The list placeholder's value for a batch of items (default: the items themselves). */
  values?: (batch: T[]) => unknown[];
  /** The query's other placeholders. */
  others?: Record<string, unknown>;
  /** At most this many items a batch. */
  maxItems?: number;
  /** What each item weighs (e.g. the rows it brings back), and the most a batch may weigh. */
  weight?: (item: T) => number;
  maxWeight?: number;
}

/**
 * Cuts `items` into batches for the list placeholder `{list}` of `text`, each making a query of at
 * most QUERY_SIZE_BUDGET bytes (and within the count and weight limits given). An item too large
 * even alone makes a batch of its own, which the server will refuse: assertFits names it first.
 */
export function batchesThatFit<T>(text: string, list: string, items: readonly T[], limits: BatchLimits<T> = {}): T[][] {
  const valuesOf = limits.values ?? ((batch: T[]) => batch as unknown[]);
  const base = querySize(text, { ...limits.others, [list]: [] });
  const batches: T[][] = [];
  let batch: T[] = [];
  let size = base;
  let weight = 0;
  for (const item of items) {
    // Each element adds its literals and a ", " between them.
    const bytes = valuesOf([item]).reduce<number>((n, v) => n + Buffer.byteLength(literal(v), 'utf8') + 2, 0);
    const w = limits.weight?.(item) ?? 0;
    const full =
      size + bytes > QUERY_SIZE_BUDGET ||
      batch.length === (limits.maxItems ?? Infinity) ||
      (limits.maxWeight !== undefined && weight + w > limits.maxWeight);
    if (batch.length > 0 && full) {
      batches.push(batch);
      batch = [];
      size = base;
      weight = 0;
    }
    batch.push(item);
    size += bytes;
    weight += w;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** A query PostHog would refuse for its size: exit 5, as the server's refusal would be. */
export class QueryTooLargeError extends CliError {
  override readonly exitCode = ExitCode.rejected;
}

/** Refuses, before sending, a query over the budget that cannot be cut (`what` names it). */
export function assertFits(text: string, values: Record<string, unknown>, what: string, narrow: string): void {
  const size = querySize(text, values);
  if (size <= QUERY_SIZE_BUDGET) return;
  throw new QueryTooLargeError(
    `${what} would be a query of ${formatNumber(size)} bytes, over the ${formatNumber(QUERY_SIZE_BUDGET)} hogctl sends (PostHog refuses queries over ${formatNumber(MAX_QUERY_SIZE)} bytes)`,
    narrow,
  );
}
