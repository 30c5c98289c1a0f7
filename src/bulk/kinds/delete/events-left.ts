// The events that still carry erased distinct ids, once PostHog's event deletion has run. PostHog
// deletes events by their stored person_id, after the person-overrides squash
// (posthog/dags/deletes.py, docs/server-contract.md §14.5): events of distinct ids that were never
// the person's (personless ids never merged into it, ids split off earlier), or that the squash had
// not reached yet, carry another person id and survive it; only a query deletion
// (data_deletion_requests) reaches them by distinct id. The count is a HogQL
// read of the events table by distinct_id (docs/server-contract.md §14.5), used by
// `persons erasure-status` and by the verification at the end of an erasure.
import type { Context } from '../../../context.js';
import type { ApiClient } from '../../../http/client.js';
import { queryUnderLimit, type WaitCap } from '../../../cli/wait-out-limit.js';
import { counted, formatNumber } from '../../../io/counts.js';
import { batchesThatFit } from '../../../hogql/query-size.js';

/** Erased distinct ids a query counts the events of, at most (and fewer when they are long:
 * src/hogql/query-size.ts); the answer has a row per distinct id at most. */
const EVENT_COUNT_BATCH = 1000;
export const EVENTS_LEFT_QUERY =
  'SELECT distinct_id, count() FROM events WHERE distinct_id IN {ids} AND timestamp >= toDateTime({since}) AND timestamp <= toDateTime({until}) GROUP BY distinct_id LIMIT 50000';
/**
 * How far back before the deletion request the count looks. The scan is bounded in time so that
 * ClickHouse reads only the partitions in the range (docs/server-contract.md §7.2): up to the
 * request, since PostHog's deletion covers only events timestamped before it (later ones are data
 * collected again, which `reopened` reports), and from ten years before it, longer than PostHog
 * keeps events on any plan hogctl knows of.
 */
export const EVENTS_LEFT_YEARS = 10;

/** A distinct id kept by a hash (it looked like an address): it cannot be asked about. */
export function isHashedDistinctId(distinctId: string): boolean {
  return /^hmac:[0-9a-f]{64}$/.test(distinctId);
}

/** How many events each of these distinct ids still carries (those with none are absent). */
export async function eventsLeft(
  ctx: Context,
  client: ApiClient,
  project: string,
  distinctIds: string[],
  cap: WaitCap,
  requestedAt: number,
): Promise<Map<string, number>> {
  const left = new Map<string, number>();
  const until = new Date(requestedAt).toISOString();
  const since = new Date(requestedAt - EVENTS_LEFT_YEARS * 365.25 * 86_400_000).toISOString();
  const others = { since, until };
  // An async query: a scan of events may run past PostHog's time limit for blocking API queries.
  const run = { async: true, narrow: 'run it again later: the count is an async query, which the limit should not stop' };
  for (const ids of batchesThatFit(EVENTS_LEFT_QUERY, 'ids', distinctIds, { maxItems: EVENT_COUNT_BATCH, others })) {
    const res = await queryUnderLimit(
      ctx,
      client,
      project,
      { query: EVENTS_LEFT_QUERY, values: { ids, ...others }, name: 'hogctl erasure: events left' },
      cap,
      run,
    );
    for (const [id, count] of res.results as unknown[][]) {
      const k = Number(count);
      if (typeof id === 'string' && k > 0) left.set(id, (left.get(id) ?? 0) + k);
    }
  }
  return left;
}

/** "3 events still carry 2 of the erased distinct ids (anon-1, device-7)" */
export function describeEventsLeft(left: Map<string, number>): string {
  const events = [...left.values()].reduce((k, x) => k + x, 0);
  const ids = [...left.keys()];
  return `${counted(events, 'event still carries', 'events still carry')} ${formatNumber(ids.length)} of the erased distinct ids (${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', …' : ''})`;
}
