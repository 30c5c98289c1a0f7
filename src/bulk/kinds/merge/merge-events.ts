// The capture side of a merge: one `$merge_dangerously` event per person merged away, sent in
// batches to capture with the project's API key (docs/server-contract.md §14.6), and the read-back
// that tells when PostHog has applied them (the same section: the person store, through
// batch_by_distinct_ids, until every distinct id of the group names the kept person).
//
// Every event of a group is sent for the same distinct id (one of the kept person's), so capture's
// Kafka key `<token>:<distinct_id>` keeps them in order (docs/server-contract.md §14.6) and the properties end as the plan
// says. An event's UUID is derived from the run's nonce and the person merged away, so a batch
// sent again after a lost answer carries the same events; a merge applied twice is a no-op (both
// ids already name one person, docs/server-contract.md §14.3).
import { createHash } from 'node:crypto';
import type { Context } from '../../../context.js';
import type { ApiClient } from '../../../http/client.js';
import { AuthError, CliError, UnavailableError } from '../../../errors.js';
import { batchBody, readCaptureAnswer, sendBatch, type CaptureEvent } from '../../../api/capture.js';
import { getProject } from '../../../api/projects.js';
import { batchPersons, PERSON_BATCH_MAX } from '../../../api/persons.js';

/** Events a capture request carries (capture takes 20 MB a batch; these are small). */
export const EVENTS_A_REQUEST = 500;
/** Attempts at one capture request before the run stops (it continues with --resume). */
const ATTEMPTS = 5;

export interface MergePair {
  /** A distinct id of the kept person: the event's distinct_id. */
  into: string;
  /** A distinct id of the person merged away: the event's alias. */
  alias: string;
  /** The UUID of the person merged away. */
  person: string;
}

/** A UUID (version 4 layout) derived from the run and the person, the same on every retry. */
export function mergeEventUuid(nonce: string, project: string, person: string): string {
  const h = createHash('sha256').update(`merge:${nonce}:${project}:${person}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function mergeEvent(pair: MergePair, stamp: { nonce: string; timestamp: string }, project: string): CaptureEvent {
  return {
    event: '$merge_dangerously',
    distinct_id: pair.into,
    // No $set: the merge alone decides the properties (docs/server-contract.md §14.3).
    properties: { alias: pair.alias, $lib: 'hogctl' },
    timestamp: stamp.timestamp,
    uuid: mergeEventUuid(stamp.nonce, project, pair.person),
  };
}

/** Capture of one project: a client for the ingestion host, and the project's key. */
export interface CaptureTarget {
  client: ApiClient;
  key: string;
  host: string;
}

/** A client for capture at the ingestion host with the project's key, read with the personal key
 * (never printed). */
export async function captureClient(ctx: Context, client: ApiClient, projectId: string, host: string): Promise<CaptureTarget> {
  const settings = await ctx.settings();
  const project = await getProject(client, projectId, { signal: ctx.deps.signal });
  const key = typeof project.api_token === 'string' ? project.api_token : '';
  if (!key)
    throw new AuthError(
      `cannot read the project API key of project ${projectId} (GET /api/projects/${projectId}/ has no api_token); nothing was merged`,
      'use a personal key with project:read',
    );
  const capture = await ctx.client({ ...settings, baseUrl: host }, { headers: () => ({}), secrets: () => [key] });
  return { client: capture, key, host };
}

/** Sends one batch of events, retrying what may be retried; throws when capture refuses. */
export async function sendEvents(
  ctx: Context,
  capture: { client: ApiClient; key: string; host: string },
  events: CaptureEvent[],
  timeoutMs: number,
): Promise<void> {
  let last = '';
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    let status = 0;
    let body: unknown = null;
    try {
      const res = await sendBatch(capture.client, batchBody(capture.key, events), { timeoutMs, signal: ctx.deps.signal });
      status = res.status;
      body = res.body;
    } catch (err) {
      if (ctx.deps.signal?.aborted) throw err;
      last = err instanceof Error ? err.message : String(err);
    }
    if (status >= 200 && status < 300) {
      const answer = readCaptureAnswer(status, body);
      if (answer.accepted) return;
      if ('quotaLimited' in answer)
        throw new UnavailableError(
          `capture at ${capture.host} dropped the events: the project is over its quota (${answer.quotaLimited.join(', ')})`,
          'nothing in this batch was merged; raise the quota, then run the same command with --resume',
        );
      throw new CliError(
        `${capture.host} answered the capture request with ${answer.unknown}, not as PostHog's capture does`,
        "check --base-url, and HOGCTL_CAPTURE_URL or the profile's capture URL when one is set",
      );
    }
    if (status !== 0 && status !== 429 && status < 500) {
      throw new CliError(
        `capture at ${capture.host} refused the events: ${status} ${typeof body === 'string' ? body : JSON.stringify(body)}`,
      );
    }
    if (status !== 0) last = `${status}`;
    await ctx.clock.sleep(Math.min(500 * 2 ** attempt, 8_000), ctx.deps.signal);
  }
  throw new CliError(
    `capture at ${capture.host} did not accept a batch after ${ATTEMPTS} attempts (last: ${last})`,
    'the batch may or may not have been taken: run the same command with --resume, which sends it again (a merge sent twice is applied once)',
  );
}

/**
 * Which groups are one person holding all their distinct ids now, in the person store
 * (batch_by_distinct_ids, 200 ids a call): a group is done when every id names the kept person.
 * Returns the done groups' indexes; null when the server lacks the endpoint.
 */
export async function mergedGroups(
  ctx: Context,
  client: ApiClient,
  projectId: string,
  groups: { index: number; keep: string; distinctIds: string[] }[],
): Promise<Set<number> | null> {
  const owner = new Map<string, string>();
  const ids = [...new Set(groups.flatMap((g) => g.distinctIds))];
  for (let i = 0; i < ids.length; i += PERSON_BATCH_MAX) {
    const found = await batchPersons(client, projectId, 'distinct_ids', ids.slice(i, i + PERSON_BATCH_MAX), { signal: ctx.deps.signal });
    if (found === null) return null;
    for (const [id, person] of found) owner.set(id, person.uuid.toLowerCase());
  }
  return new Set(groups.filter((g) => g.distinctIds.every((id) => owner.get(id) === g.keep)).map((g) => g.index));
}
