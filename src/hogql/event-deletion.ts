// The HogQL of an event deletion request (`data_deletion_requests`, PostHog/posthog PR #104278):
// `SELECT uuid FROM events WHERE …`, one event-UUID column, values inlined as escaped string
// literals with no variables (the portable form: saved insight variables are not needed), and a
// long list of distinct ids cut into queries that each stay within the server's limit of 100,000
// UTF-8 bytes (posthog/data_deletion.py, `MAX_QUERY_BYTES`, `validate_payload_size`).

export const MAX_QUERY_BYTES = 100_000;

/** What `hogctl events delete` selects; `query` excludes the rest. */
export interface EventSelection {
  distinctIds: string[];
  event?: string;
  /** ISO instants with a Z, so they mean UTC whatever the project's time zone. */
  after?: string;
  before?: string;
  /** An inclusive upper bound: an erasure's sweep takes what was collected up to its start. */
  until?: string;
  /** The distinct ids match in any case of their ASCII letters (`lower(distinct_id)`, ClickHouse's
   * ASCII-only lower): an erasure's addresses, found so by its lookup. */
  anyCase?: boolean;
  query?: string;
}

/** A HogQL string literal, escaped as PostHog's `escape_hogql_string` does (\ and '). */
export function hogqlString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

const UNTIL_COLUMN = 'timestamp';

/**
 * The same query with its `until` bound turned around: the events collected after it, which an
 * erasure did not ask to delete (they are new data, said apart from what its deletion left).
 */
export function afterUntil(query: string): string | null {
  const bound = `${UNTIL_COLUMN} <= toDateTime(`;
  return query.includes(bound) ? query.replace(bound, `${UNTIL_COLUMN} > toDateTime(`) : null;
}

/** The conditions besides the distinct ids, joined with AND. */
function otherConditions(s: EventSelection): string[] {
  const out: string[] = [];
  if (s.event !== undefined) out.push(`event = ${hogqlString(s.event)}`);
  if (s.after !== undefined) out.push(`timestamp >= toDateTime(${hogqlString(s.after)})`);
  if (s.before !== undefined) out.push(`timestamp < toDateTime(${hogqlString(s.before)})`);
  if (s.until !== undefined) out.push(`${UNTIL_COLUMN} <= toDateTime(${hogqlString(s.until)})`);
  return out;
}

function selectWhere(conditions: string[]): string {
  return conditions.length ? `SELECT uuid FROM events WHERE ${conditions.join(' AND ')}` : 'SELECT uuid FROM events';
}

/**
 * The queries of a selection: one, or one per slice of the distinct ids, each slice as long as
 * the byte limit lets it be. A distinct id too long for a query of its own is an error (null).
 */
export function deletionQueries(s: EventSelection, maxBytes = MAX_QUERY_BYTES): string[] | null {
  if (s.query !== undefined) return byteLength(s.query) <= maxBytes ? [s.query] : null;
  const rest = otherConditions(s);
  if (s.distinctIds.length === 0) return [selectWhere(rest)];
  const column = s.anyCase ? 'lower(distinct_id)' : 'distinct_id';
  const ids = s.anyCase ? [...new Set(s.distinctIds.map((id) => id.replace(/[A-Z]+/g, (m) => m.toLowerCase())))] : s.distinctIds;
  const frame = byteLength(selectWhere([`${column} IN ()`, ...rest]));
  const queries: string[] = [];
  let slice: string[] = [];
  let size = frame;
  const flush = () => {
    if (slice.length) queries.push(selectWhere([`${column} IN (${slice.join(', ')})`, ...rest]));
    slice = [];
    size = frame;
  };
  for (const id of ids) {
    const literal = hogqlString(id);
    const added = byteLength(literal) + (slice.length ? 2 : 0);
    if (size + added > maxBytes) flush();
    if (frame + byteLength(literal) > maxBytes) return null;
    size += byteLength(literal) + (slice.length ? 2 : 0);
    slice.push(literal);
  }
  flush();
  return queries;
}

/**
 * The queries of a data subject's distinct ids, as an erasure's sweep selects them: an address in
 * any case of its ASCII letters, as the erasure's lookup found the persons and distinct ids it
 * names (src/bulk/input/identifiers.ts: `Lee@Example.com` is `lee@example.com`'s), any other id
 * exactly. null: an id too long for a query of its own.
 */
export function subjectQueries(distinctIds: string[], bounds: { until?: string; after?: string }): string[] | null {
  const addresses = distinctIds.filter((id) => id.includes('@'));
  const others = distinctIds.filter((id) => !id.includes('@'));
  const exact = others.length ? deletionQueries({ distinctIds: others, ...bounds }) : [];
  const anyCase = addresses.length ? deletionQueries({ distinctIds: addresses, ...bounds, anyCase: true }) : [];
  return exact && anyCase ? [...exact, ...anyCase] : null;
}

/** The distinct ids the events a deletion query selects carry, as stored, with their counts. */
export function distinctIdsQuery(query: string): string {
  return `SELECT distinct_id, count() FROM events WHERE uuid IN (${query}) GROUP BY distinct_id LIMIT 50000`;
}

/** A count of what a deletion query selects, over the query API (which takes personal keys). */
export function countQuery(query: string): string {
  return `SELECT count() FROM events WHERE uuid IN (${query})`;
}

/** A few of the events a deletion query selects, newest first, for the plan. */
export function sampleQuery(query: string, size: number): string {
  return `SELECT uuid, event, distinct_id, timestamp FROM events WHERE uuid IN (${query}) ORDER BY timestamp DESC LIMIT ${size}`;
}
