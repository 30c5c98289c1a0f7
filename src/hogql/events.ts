// Every event of a set of distinct ids, read page by page from HogQL's `events` table with a
// keyset on (timestamp, uuid) (docs/server-contract.md §15.1): personal API keys may not use OFFSET,
// a LIMIT above 50,000 is lowered silently, and timestamp alone is not unique. The filter is on
// `distinct_id`, a plain column (posthog/hogql/database/schema/events.py), so a merged person's
// events are all found without resolving persons, and an upper time bound fixed when the export
// began keeps late arrivals from shifting the pages. The cursor goes through `values`
// placeholders, never into the text, and is typed with toDateTime as in keyset.ts.
//
// The walk keeps where it is (`after`), so whoever writes the pages can journal it once a page is
// safely written and continue from there after a crash or a query limit.
import { CliError } from '../errors.js';
import { formatNumber } from '../io/counts.js';
import { assertFits } from './query-size.js';
import type { HogQLResponse } from '../api/query.js';
import { utcTime } from './keyset.js';
import { MAX_QUERY_ROWS } from './walk.js';

/** Older servers return at most 10,000 rows whatever the LIMIT (walk.ts). */
const OLDER_SERVER_MAX_ROWS = 10_000;

export const EVENT_COLUMNS = ['uuid', 'event', 'distinct_id', 'timestamp', 'properties', '$session_id', 'elements_chain'] as const;

/** The last event written: the next page starts after it. */
export interface EventCursor {
  /** UTC, with microseconds: 2025-01-15T08:00:00.123456Z */
  timestamp: string;
  uuid: string;
}

export interface EventRange {
  distinctIds: string[];
  /** The fixed upper bound (inclusive), UTC ISO. */
  until: string;
  /** An optional lower bound (inclusive). */
  from?: string;
}

export interface EventRecord {
  uuid: string;
  event: string;
  distinct_id: string;
  timestamp: string;
  /** JSON text, as HogQL returns the column. */
  properties: string;
  $session_id: string | null;
  elements_chain: string;
}

/** The query of one page, with its values. */
export function eventsPageQuery(
  range: EventRange,
  pageSize: number,
  after?: EventCursor,
): { query: string; values: Record<string, unknown> } {
  const conditions = ['distinct_id IN {hogctl_ids}', 'timestamp <= toDateTime({hogctl_until})'];
  const values: Record<string, unknown> = { hogctl_ids: range.distinctIds, hogctl_until: range.until };
  if (range.from) {
    conditions.push('timestamp >= toDateTime({hogctl_from})');
    values.hogctl_from = range.from;
  }
  if (after) {
    // The OR form rather than a tuple comparison: that HogQL takes tuples there is unverified
    // (docs/server-contract.md §15.1).
    conditions.push(
      '(timestamp > toDateTime({hogctl_after_ts}) OR (timestamp = toDateTime({hogctl_after_ts}) AND toString(uuid) > {hogctl_after_uuid}))',
    );
    values.hogctl_after_ts = after.timestamp;
    values.hogctl_after_uuid = after.uuid;
  }
  const query = [
    `SELECT ${EVENT_COLUMNS.map((c) => (c.startsWith('$') ? `\`${c}\`` : c)).join(', ')}`,
    'FROM events',
    `WHERE ${conditions.join(' AND ')}`,
    'ORDER BY timestamp ASC, toString(uuid) ASC',
    `LIMIT ${pageSize}`,
  ].join('\n');
  // One walk reads the events of all the person's distinct ids in (timestamp, uuid) order, so the
  // list cannot be cut into batches: a person with more distinct ids than fit is refused.
  assertFits(
    query,
    values,
    `reading the events of ${formatNumber(range.distinctIds.length)} distinct ids in one keyset walk`,
    'export this person by fewer distinct ids (--distinct-id), one set at a time',
  );
  return { query, values };
}

/** Refuses, before anything is read, a range whose pages would be over the size budget. */
export function checkEventsRange(range: EventRange): void {
  eventsPageQuery(range, MAX_QUERY_ROWS, { timestamp: '2000-01-01T00:00:00.000000Z', uuid: '00000000-0000-0000-0000-000000000000' });
}

/** A row in EVENT_COLUMNS order as the record written to the bundle. `properties` stays the JSON
 * text HogQL sends (posthog/hogql/database/schema/events.py: a JSON string column): parsing 50,000
 * of them a page would only cost memory, since they are written out as they are (eventLine). */
export function eventRecord(row: unknown[]): EventRecord {
  return {
    uuid: String(row[0]).toLowerCase(),
    event: String(row[1]),
    distinct_id: String(row[2]),
    timestamp: String(utcTime(row[3])),
    properties: typeof row[4] === 'string' ? row[4] : JSON.stringify(row[4] ?? {}),
    $session_id: row[5] === null || row[5] === undefined || row[5] === '' ? null : String(row[5]),
    elements_chain: row[6] === null || row[6] === undefined ? '' : String(row[6]),
  };
}

/** The rows of an answer as records; the answer itself (its arrays) goes once they are made. */
function rowsOf(res: HogQLResponse): EventRecord[] {
  return (res.results as unknown[][]).map(eventRecord);
}

/** One NDJSON line: the record, with its properties as the object their text is. */
export function eventLine(e: EventRecord): string {
  let properties = e.properties;
  try {
    // Checked, not kept: text that is not a JSON object stays a string rather than break the line.
    const parsed: unknown = JSON.parse(properties);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) properties = JSON.stringify(properties);
  } catch {
    properties = JSON.stringify(properties);
  }
  return `{"uuid":${JSON.stringify(e.uuid)},"event":${JSON.stringify(e.event)},"distinct_id":${JSON.stringify(e.distinct_id)},"timestamp":${JSON.stringify(e.timestamp)},"properties":${properties},"$session_id":${JSON.stringify(e.$session_id)},"elements_chain":${JSON.stringify(e.elements_chain)}}\n`;
}

export interface EventsWalk {
  after?: EventCursor;
  /** Queries answered so far. */
  queries: number;
  /** Events read so far. */
  events: number;
}

/**
 * Pages of events in (timestamp, uuid) order, each at most `pageSize` (50,000, the cap). It ends
 * on a page shorter than the server's cap: a page of exactly 10,000 when more were asked for
 * says the server caps there (an older PostHog), and the walk goes on. A page that says
 * `hasMore: true` is never the end, however short: PostHog leaves `hasMore` null for a query with
 * its own LIMIT (docs/server-contract.md §15.1), so a server that sets it cut the page itself.
 */
export async function* walkEvents(
  range: EventRange,
  walk: EventsWalk,
  run: (query: string, values: Record<string, unknown>) => Promise<HogQLResponse>,
  pageSize = MAX_QUERY_ROWS,
): AsyncGenerator<EventRecord[]> {
  let cap = pageSize;
  // Declared out here and emptied before the next query: a suspended generator keeps what its
  // frame holds, and the page just written would otherwise live on while the next one is read.
  let rows: EventRecord[] = [];
  for (;;) {
    rows = [];
    const page = eventsPageQuery(range, pageSize, walk.after);
    const res = await run(page.query, page.values);
    const more = res.hasMore === true;
    rows = rowsOf(res);
    walk.queries++;
    if (rows.length === 0) return;
    const last = rows[rows.length - 1];
    const next = { timestamp: last.timestamp, uuid: last.uuid };
    if (walk.after && next.timestamp === walk.after.timestamp && next.uuid === walk.after.uuid) {
      throw new CliError(
        'reading the events stopped: the server returned the same last event twice, so the keyset cursor does not advance',
        'report this with the project and the time range; the bundle so far is kept and --resume continues it',
      );
    }
    walk.events += rows.length;
    yield rows;
    // Advanced only once the caller has taken the page (written it), so a stop inside the yield
    // leaves the cursor at the last page written.
    walk.after = next;
    if (rows.length === OLDER_SERVER_MAX_ROWS && pageSize > OLDER_SERVER_MAX_ROWS) cap = OLDER_SERVER_MAX_ROWS;
    if (rows.length < cap && !more) return;
  }
}
