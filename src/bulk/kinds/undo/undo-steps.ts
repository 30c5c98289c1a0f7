// One chunk of a merge's undo (undo.ts), in three steps, each read back from the person store
// (batch_by_distinct_ids: Postgres, where the writes are confirmed) before the next:
//
// - split (`split`) the kept person: POST persons/{uuid}/split/ with `distinct_ids_to_split`, the ids of
//    the persons merged into it still on it. Each id moves to the person whose UUID is the UUIDv5
//    of that id (docs/server-contract.md §14.7; posthog/models/person/person.py
//    `_split_distinct_ids_batch`), asynchronously.
// - rejoin (`rejoin`) the ids each former person had: `$merge_dangerously` events into the id whose
//    UUIDv5 is the person's old UUID, so that the person rebuilt is the one split back to that
//    UUID, and the events, cohort rows and references keyed by it name it again. A person not
//    created by ingestion for one of its ids has no such id: it is rebuilt under a new UUID.
// - restore the properties (`restoreProperties`) through capture: a `$set` per former person of what it is to hold
//    (the kept one: UndoGroup.keep_target), and `$unset` of the keys it holds now but is not to.
//    Read from the person store, as the rejoin was confirmed there: a lagging ClickHouse must not
//    leave a key out of the $unset.
//
// Every step is safe to do again (a split only of the ids still on the kept person; events with
// the same UUIDs; a merge applied twice is applied once), so a chunk whose answer was lost, or a
// run killed halfway and continued with --resume, finishes the undo instead of failing.
import type { Context } from '../../../context.js';
import { FIRST_POLL_MS, nextPollDelay } from '../../../sleep.js';
import { NotFoundError, UsageError } from '../../../errors.js';
import type { ApiClient } from '../../../http/client.js';
import { splitPerson } from '../../../api/person-actions.js';
import { batchPersons, PERSON_BATCH_MAX, type ListedPerson } from '../../../api/persons.js';
import type { CaptureEvent } from '../../../api/capture.js';
import { personUuidOf } from '../../../api/person-uuid.js';
import type { Attempt } from '../../engine/runner.js';
import type { KeptPerson } from '../merge/merge-kind.js';
import type { UndoGroup } from './undo-check.js';
import { EVENTS_A_REQUEST, mergeEvent, mergeEventUuid, sendEvents, type CaptureTarget } from '../merge/merge-events.js';

export interface ChunkEnv {
  ctx: Context;
  client: ApiClient;
  capture: CaptureTarget;
  project: string;
  /** The events' nonce and timestamp (eventStamp). */
  stamp: { nonce: string; timestamp: string };
  timeoutMs: number;
  /** How long a step waits for PostHog to apply it (--verify-timeout). */
  waitMs: number;
}

/** The distinct id a former person is joined into: the one whose person PostHog gives its old UUID. */
export function rejoinInto(p: KeptPerson, project: string): string {
  return p.distinct_ids.find((id) => personUuidOf(project, id) === p.uuid) ?? p.distinct_ids[0];
}

/** Which person each distinct id names now, in the person store. */
export async function personsOf(
  client: ApiClient,
  project: string,
  ids: string[],
  signal?: AbortSignal,
): Promise<Map<string, ListedPerson>> {
  const owner = new Map<string, ListedPerson>();
  for (let i = 0; i < ids.length; i += PERSON_BATCH_MAX) {
    const found = await batchPersons(client, project, 'distinct_ids', ids.slice(i, i + PERSON_BATCH_MAX), { signal });
    for (const [id, p] of found ?? []) owner.set(id, { ...p, uuid: p.uuid.toLowerCase() });
  }
  return owner;
}

const INTERRUPTED: Attempt = { kind: 'retry', status: null, error: 'interrupted' };

/**
 * One chunk of groups undone, every step safe to repeat. Its answer names the kept persons found
 * deleted. A wait cut short by Ctrl-C leaves the chunk to --resume.
 */
export async function undoChunk(env: ChunkEnv, given: UndoGroup[]): Promise<Attempt> {
  const { ctx } = env;
  try {
    const ids = given.flatMap((g) => [g.keep, ...g.merge].flatMap((p) => p.distinct_ids));
    const before = await personsOf(env.client, env.project, ids);
    // A kept person none of whose own ids names anyone was deleted since: reported, never rebuilt.
    const gone = given.filter((g) => g.keep.distinct_ids.every((id) => !before.has(id))).map((g) => g.keep.uuid);
    for (const uuid of gone)
      ctx.warn(`project ${env.project}: the kept person ${uuid} no longer exists (deleted since the merge?): its group cannot be undone`);
    const foreign = given.flatMap((g) => {
      const reason = gone.includes(g.keep.uuid) ? undefined : foreignOwner(g, before);
      return reason ? [{ keep: g.keep.uuid, reason }] : [];
    });
    for (const f of foreign) ctx.warn(`project ${env.project}: the group of ${f.keep} is not undone: ${f.reason}`);
    const left = new Set([...gone, ...foreign.map((f) => f.keep)]);
    const live = given.filter((g) => !left.has(g.keep.uuid));
    if (!(await split(env, live, before, gone))) return INTERRUPTED;
    const rest = live.filter((g) => !gone.includes(g.keep.uuid));
    if (rest.length > 0) {
      if (!(await rejoin(env, rest))) return INTERRUPTED;
      await restoreProperties(env, rest);
    }
    return { kind: 'ok', status: 200, summary: { gone, foreign } };
  } catch (err) {
    if (ctx.deps.signal?.aborted) return INTERRUPTED;
    if (err instanceof UsageError) return { kind: 'rejected', status: 0, error: err };
    return { kind: 'retry', status: null, error: err instanceof Error ? err.message : String(err), unclear: true };
  }
}

/**
 * Why a group may not be written to now: one of its distinct ids names a person other than the
 * kept one that also holds distinct ids of no person of the group (the kept person merged into
 * another since): the split, rejoin and properties sent to that id would change a person the
 * receipt does not name. Checked before each chunk is sent, so also on --resume, whose groups
 * were judged by its first run. The kept person may have ids of its own since (a new device), and
 * a person the undo itself rebuilt holds ids of the group only. (A batch read lists 10 ids a person.)
 */
function foreignOwner(g: UndoGroup, owners: Map<string, ListedPerson>): string | undefined {
  const ours = new Set([g.keep, ...g.merge].flatMap((p) => p.distinct_ids));
  for (const id of ours) {
    const owner = owners.get(id);
    if (!owner || owner.uuid === g.keep.uuid) continue;
    const other = owner.distinct_ids?.find((d) => !ours.has(d));
    if (other !== undefined)
      return `its distinct id ${JSON.stringify(id)} now names person ${owner.uuid}, which also has ${JSON.stringify(other)}, of no person of the group: undoing it would write to a person this receipt does not name`;
  }
  return undefined;
}

/** Waits until `done`, or the step's wait limit; false when Ctrl-C cut it short. */
async function until(env: ChunkEnv, done: () => Promise<boolean>): Promise<boolean> {
  const { clock } = env.ctx;
  const started = clock.now();
  for (let delay = FIRST_POLL_MS; ; delay = nextPollDelay(delay, 5_000)) {
    if (await done()) return true;
    if (clock.now() - started + delay > env.waitMs) return true;
    try {
      await clock.sleep(delay, env.ctx.deps.signal);
    } catch {
      return false;
    }
  }
}

/** The split: the ids of the persons merged away split off the kept person; `gone` takes kept persons found deleted. */
async function split(env: ChunkEnv, groups: UndoGroup[], before: Map<string, ListedPerson>, gone: string[]): Promise<boolean> {
  const keptOf = new Map<string, string>();
  for (const g of groups) {
    const still = g.merge.flatMap((p) => p.distinct_ids).filter((id) => before.get(id)?.uuid === g.keep.uuid);
    for (const id of g.merge.flatMap((p) => p.distinct_ids)) keptOf.set(id, g.keep.uuid);
    if (still.length === 0) continue;
    try {
      await splitPerson(env.client, env.project, g.keep.uuid, { distinct_ids_to_split: still });
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      gone.push(g.keep.uuid);
    }
  }
  const ids = [...keptOf.keys()];
  return until(env, async () => [...(await personsOf(env.client, env.project, ids))].every(([id, p]) => keptOf.get(id) !== p.uuid));
}

/** The rejoin: each former person's ids joined again, into the id that gives it its old UUID back. */
async function rejoin(env: ChunkEnv, groups: UndoGroup[]): Promise<boolean> {
  const formers = groups.flatMap((g) => g.merge);
  const joins: CaptureEvent[] = [];
  for (const p of formers) {
    const into = rejoinInto(p, env.project);
    for (const other of p.distinct_ids.filter((id) => id !== into))
      joins.push(mergeEvent({ into, alias: other, person: `${p.uuid}:${other}` }, env.stamp, env.project));
  }
  for (let i = 0; i < joins.length; i += EVENTS_A_REQUEST)
    await sendEvents(env.ctx, env.capture, joins.slice(i, i + EVENTS_A_REQUEST), env.timeoutMs);
  const ids = formers.flatMap((p) => p.distinct_ids);
  return until(env, async () => {
    const owner = await personsOf(env.client, env.project, ids);
    return formers.every((p) => p.distinct_ids.every((id) => owner.has(id) && owner.get(id)!.uuid === owner.get(p.distinct_ids[0])!.uuid));
  });
}

/** What a former person is to hold after the undo. */
export function targetOf(g: UndoGroup, p: KeptPerson): Record<string, unknown> {
  return p === g.keep ? g.keep_target : p.properties;
}

/** The restore: every former person's properties set as the undo gives them back, the kept one included. */
async function restoreProperties(env: ChunkEnv, groups: UndoGroup[]): Promise<void> {
  const formers = groups.flatMap((g) => [g.keep, ...g.merge].map((p) => ({ p, target: targetOf(g, p), into: rejoinInto(p, env.project) })));
  const now = await personsOf(
    env.client,
    env.project,
    formers.map((f) => f.into),
  );
  const sets: CaptureEvent[] = formers.map(({ p, target, into }) => {
    const unset = Object.keys(now.get(into)?.properties ?? {}).filter((k) => !Object.hasOwn(target, k));
    return {
      event: '$set',
      distinct_id: into,
      properties: { $set: target, ...(unset.length ? { $unset: unset } : {}) },
      timestamp: env.stamp.timestamp,
      uuid: mergeEventUuid(env.stamp.nonce, env.project, `set:${p.uuid}`),
    };
  });
  for (let i = 0; i < sets.length; i += EVENTS_A_REQUEST)
    await sendEvents(env.ctx, env.capture, sets.slice(i, i + EVENTS_A_REQUEST), env.timeoutMs);
}
