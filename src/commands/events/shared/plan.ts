// The plan `hogctl events delete` shows before it confirms: what is selected, how many events
// that is now, the requests it takes under PostHog's limits and how long they take, and what
// happens after (approval by PostHog, then its weekly deletion: posthog/dags/data_deletion_requests.py,
// posthog/dags/deletes.py).
import type { EventSelection } from '../../../hogql/event-deletion.js';
import type { SelectionCount } from './count.js';

/** PostHog's limits per project: active requests, creates an hour. */
export const MAX_ACTIVE_REQUESTS = 5;
export const CREATES_PER_HOUR = 10;

function describeSelection(s: EventSelection): string {
  if (s.query !== undefined) return 'the events whose UUIDs your query selects';
  const parts = [
    s.distinctIds.length ? `the events of ${s.distinctIds.length} distinct id${s.distinctIds.length === 1 ? '' : 's'}` : 'all events',
  ];
  if (s.event !== undefined) parts.push(`named ${s.event}`);
  if (s.after !== undefined) parts.push(`from ${s.after}`);
  if (s.before !== undefined) parts.push(`before ${s.before}`);
  return parts.join(' ');
}

/** What the requests take: at most five active at once, ten creates an hour. */
export function requestLines(requests: number): string[] {
  const lines = [`requests: ${requests} (each query within PostHog's 100,000 bytes)`];
  if (requests > MAX_ACTIVE_REQUESTS) {
    lines.push(
      `PostHog keeps at most ${MAX_ACTIVE_REQUESTS} active requests per project: the first ${MAX_ACTIVE_REQUESTS} go now, the rest with --resume as earlier ones complete (about one weekly deletion per ${MAX_ACTIVE_REQUESTS})`,
    );
  }
  if (requests > CREATES_PER_HOUR)
    lines.push(
      `PostHog takes ${CREATES_PER_HOUR} requests an hour per project: sending them takes at least ${Math.ceil(requests / CREATES_PER_HOUR) - 1} h of waiting`,
    );
  lines.push(estimateLine(requests));
  return lines;
}

/**
 * How long the whole selection takes under PostHog's limits: the creates at ten an hour, and the
 * deletion one weekly run per five requests, as a batch of five must complete (approved, queued,
 * deleted on Saturday night UTC) before the next five can be made.
 */
function estimateLine(requests: number): string {
  const sendingHours = Math.max(0, Math.ceil(requests / CREATES_PER_HOUR) - 1);
  const weeklyRuns = Math.max(1, Math.ceil(requests / MAX_ACTIVE_REQUESTS));
  const sending = sendingHours ? `at least ${sendingHours} h to send` : 'no wait to send';
  return `estimate: ${sending}; deleted in about ${weeklyRuns} weekly deletion${weeklyRuns === 1 ? '' : 's'} (about ${weeklyRuns} week${weeklyRuns === 1 ? '' : 's'} once PostHog approves each request)`;
}

export function planLines(s: EventSelection, counted: SelectionCount, requests: number, sample: unknown[][]): string[] {
  const count = counted.count === null ? 'unknown' : counted.count.toLocaleString('en-US');
  const lines = [
    `selection: ${describeSelection(s)}`,
    `events selected now: ${count} (counted by ${counted.how})`,
    ...requestLines(requests),
  ];
  for (const row of sample) lines.push(`  e.g. ${row.map((v) => String(v)).join('  ')}`);
  lines.push(
    'each request waits for PostHog to approve it; its events are then deleted in the weekly deletion, and events captured after it is queued are not part of it',
  );
  return lines;
}
