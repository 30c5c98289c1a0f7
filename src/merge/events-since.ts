// From when `persons duplicates` and `persons merge` count a person's events (--events-since).
// Counting every event scans the whole `events` table for the persons' distinct ids, which on a
// large project runs past PostHog's time limit; a time range lets ClickHouse read only the
// partitions in it (docs/server-contract.md §7.2). 90 days by default: enough to tell an active
// person from a stale one, which is what the counts are for (the keep rules, the review).
import { UsageError } from '../errors.js';

export const DEFAULT_EVENTS_SINCE = '90d';

/** `90d` (days before now), a date or time (`2025-01-01`), or `all`: the UTC time to count from, or null for every event. */
export function parseEventsSince(raw: string, now: number): string | null {
  const text = raw.trim();
  if (text === 'all') return null;
  const days = /^(\d+)d$/.exec(text);
  const at = days ? now - Number(days[1]) * 86_400_000 : /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : NaN;
  if (!Number.isFinite(at)) {
    throw new UsageError(`invalid --events-since "${raw}"`, 'give a number of days (90d), a date (2025-01-01) or all');
  }
  return new Date(at).toISOString();
}
