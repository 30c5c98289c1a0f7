// PostHog's limits on a HogQL query, scaled for tests (packages/sandbox/README.md, "Query limits").
//
// Time: PostHog caps the execution time of queries sent with a personal API key
// (`api_query_max_execution_time`, posthog/hogql_queries/hogql_query_runner.py) and answers a
// query that reaches it with 504 and `api_timeout_detail(N)`; asynchronous queries run in the
// QUERY_ASYNC limit context, which that ceiling leaves out. The sandbox has no clock for a query's
// work, so it simulates one: a query "takes" the rows it reads divided by `rowsPerSecond`, where
// an events row outside a `timestamp` range in the WHERE is not read (ClickHouse skips the
// partitions and granules the range excludes). Off by default.
//
// Size: ClickHouse refuses SQL text longer than `max_query_size` (262,144 bytes by default), with
// every placeholder value substituted as a literal; PostHog answers ClickHouseQuerySizeExceeded,
// 500 "Query size exceeded." (posthog/exceptions.py). On by default, as on PostHog.
import { ErrorResponse } from './errors.js';

export interface QueryLimits {
  /** Seconds a blocking query sent with a personal key may run; null: no ceiling (the default). */
  timeLimitSeconds: number | null;
  /** Rows a query reads a second (the simulated speed); default 1,000,000. */
  rowsPerSecond: number;
  /** Bytes of SQL text after substitution (ClickHouse max_query_size); default 262,144. */
  maxQuerySize: number;
}

export const DEFAULT_QUERY_LIMITS: QueryLimits = { timeLimitSeconds: null, rowsPerSecond: 1_000_000, maxQuerySize: 262_144 };

/**
 * `'time=10,rows-per-second=5000,size=262144'`; `time=off` or `'off'` lifts the time ceiling
 * (the size limit stays). Unnamed settings keep their defaults; undefined is the defaults.
 */
export function parseQueryLimitSpec(spec?: string): QueryLimits {
  const limits = { ...DEFAULT_QUERY_LIMITS };
  if (spec === undefined || spec.trim() === '' || spec.trim() === 'off') return limits;
  for (const part of spec.split(',')) {
    const [name, raw] = part.split('=').map((s) => s.trim());
    const value = Number(raw);
    const positive = Number.isFinite(value) && value > 0;
    if (name === 'time' && raw === 'off') limits.timeLimitSeconds = null;
    else if (name === 'time' && positive) limits.timeLimitSeconds = value;
    else if (name === 'rows-per-second' && positive) limits.rowsPerSecond = value;
    else if (name === 'size' && positive && Number.isInteger(value)) limits.maxQuerySize = value;
    else throw new Error(`invalid query limit "${part}" (expected time=<seconds>|off, rows-per-second=<n> or size=<bytes>)`);
  }
  return limits;
}

/** The simulated time, in milliseconds, of a query that read `rows` rows. */
export function simulatedMs(rows: number, limits: QueryLimits): number {
  return Math.ceil((rows / limits.rowsPerSecond) * 1000);
}

/** `api_timeout_detail` (posthog/hogql_queries/hogql_query_runner.py), word for word. */
export function apiTimeoutDetail(seconds: number): string {
  return (
    `This query hit the ${seconds}-second time limit for queries run through the API. ` +
    'Submit it as an async query to give it more time: ' +
    'https://posthog.com/docs/api/queries#asynchronous-queries. ' +
    'You can also narrow the date range or the filters so it scans less data: ' +
    'https://posthog.com/docs/api/queries#writing-performant-queries'
  );
}

/** ClickHouseQueryTimeOut with the API detail: 504, rendered by drf-exceptions-hog. */
export function queryTimedOut(seconds: number): ErrorResponse {
  return new ErrorResponse(504, { type: 'server_error', code: 'error', detail: apiTimeoutDetail(seconds), attr: null });
}

/** ClickHouseQuerySizeExceeded: an APIException without a status, so 500. */
export function querySizeExceeded(): ErrorResponse {
  return new ErrorResponse(500, { type: 'server_error', code: 'error', detail: 'Query size exceeded.', attr: null });
}

/** A value as clickhouse-driver substitutes it into the SQL text: strings quoted with `'` and
 * backslash escapes, lists as their elements joined by ", " (HogQL prints a list placeholder as
 * one parameter per element). */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;
  if (Array.isArray(value)) return `(${value.map(literal).join(', ')})`;
  if (typeof value === 'object') return literal(JSON.stringify(value));
  return String(value);
}

/** Bytes of the query text with each `{name}` placeholder replaced by its value's literal. */
export function querySize(text: string, values: Record<string, unknown>): number {
  const substituted = text.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(values, name) ? literal(values[name]) : whole,
  );
  return Buffer.byteLength(substituted, 'utf8');
}
