// What bulk-delete tells its user before it sends anything: the time the run will take under
// the server's rate windows, and the exact words of the confirmation.
import { formatDuration } from '../io/progress.js';
import { formatWindow, simulate, type RateWindow } from './rate.js';
import type { DeleteFlags } from './journal.js';
import type { IdKind } from './validate.js';

/**
 * What one bulk_delete of 1000 ids is assumed to take, answer included, before any has been
 * measured [an assumption: PostHog does not document it]. It decides how fast --concurrency
 * requests can go; under the hourly window it barely moves the estimate.
 */
export const ASSUMED_REQUEST_MS = 500;

const n = (x: number) => x.toLocaleString('en-US');

/** "480/min + 4,800/h". */
export function describeWindows(windows: readonly RateWindow[]): string {
  return windows.map(formatWindow).join(' + ');
}

/** How long `requests` requests take under `windows`, request time included. */
export function estimateMs(requests: number, windows: readonly RateWindow[], concurrency: number, requestMs = ASSUMED_REQUEST_MS): number {
  return simulate(requests, windows, concurrency, requestMs);
}

/** The plan's estimate line: "about 2h01m (…)". */
export function describeEstimate(
  requests: number,
  windows: readonly RateWindow[],
  concurrency: number,
  requestMs = ASSUMED_REQUEST_MS,
): string {
  const ms = estimateMs(requests, windows, concurrency, requestMs);
  const capped = windows.filter((w) => requests > w.limit).map(formatWindow);
  const why = capped.length ? `; ${capped.join(' and ')} ${capped.length === 1 ? 'caps' : 'cap'} it` : '';
  return `about ${formatDuration(ms)} (at ~${requestMs / 1000} s a request${why}; longer if the server is slower)`;
}

/**
 * The confirmation's description of what goes: "18,997 persons and their events", "the events
 * and recordings of 12 persons (keeping the persons)".
 */
export function describeDeletion(kind: IdKind, count: number, flags: DeleteFlags): string {
  const persons =
    kind === 'distinct_ids'
      ? `the persons behind ${n(count)} distinct ${count === 1 ? 'id' : 'ids'}`
      : `${n(count)} ${count === 1 ? 'person' : 'persons'}`;
  const data = [flags.delete_events && 'events', flags.delete_recordings && 'recordings'].filter(Boolean).join(' and ');
  if (flags.keep_person) return `the ${data} of ${persons} (keeping the persons themselves)`;
  return data ? `${persons} and their ${data}` : `${persons} (their events and recordings stay)`;
}
