// `persons merge --undo <receipt>` as a kind of bulk job (src/bulk/engine/action.ts): journaled, locked
// and resumable like the merge. PostHog calls a merge irreversible, but the merge's journal kept
// each group as it was (every former person's distinct ids and properties), so it can be rebuilt.
// The engine's persons are the kept persons of the groups the receipt calls merged; a chunk of
// them is undone in three steps, each read back before the next:
//
// 1. split the kept person: POST persons/{uuid}/split/ with `distinct_ids_to_split`, the ids of
//    the persons merged into it still on it (`posthog-ingestion.md` D.8.2: each id moves to a
//    person of its own, asynchronously); until none of them names the kept person;
// 2. join again the ids each former person had: `$merge_dangerously` from its first id, one event
//    per other id (E.3); until each former person's ids name one person;
// 3. restore the properties through capture: a `$set` event per former person with its old
//    properties, and `$unset` of the keys it has now but had not (B.2.3).
//
// Every step is safe to do again (a split only of the ids still on the kept person; events with
// the same UUIDs; a merge applied twice is applied once), so a chunk whose answer was lost, or a
// run killed halfway and continued with --resume, finishes the undo instead of failing at the
// split. The verification reads back (HogQL) until every former person's ids and properties
// equal the journal's, or --verify-timeout passes. The persons so rebuilt are new persons (new
// UUIDs, PostHog's split rule B.1.2) holding the old ids and properties; the kept person keeps its
// UUID. A kept person deleted since (an erasure) cannot be undone: its group is reported, never
// rebuilt (its ids name no one, and a merge of ids without persons would create one, B.3.5).
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import type { Context } from '../context.js';
import { FIRST_POLL_MS, nextPollDelay } from '../sleep.js';
import { counted, formatNumber } from '../io/counts.js';
import { NotFoundError, PartialFailureError, UsageError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import { splitPerson } from '../api/person-actions.js';
import { batchPersons, PERSON_BATCH_MAX } from '../api/persons.js';
import type { CaptureEvent } from '../api/capture.js';
import type { JobKind, Verdict } from '../bulk/engine/action.js';
import { readJournal, type JournalHeader } from '../bulk/engine/journal.js';
import type { Receipt } from '../bulk/engine/receipt.js';
import type { Attempt } from '../bulk/engine/runner.js';
import { sameValue } from '../bulk/engine/same-value.js';
import { readPersons } from './find-duplicates.js';
import { mergeHeaderOf, type KeptPerson, type RecordedGroup } from './merge-kind.js';
import { EVENTS_A_REQUEST, captureClient, mergeEvent, mergeEventUuid, sendEvents, type CaptureTarget } from './merge-events.js';

const n = formatNumber;

/** Groups undone a chunk: each step of a chunk is one read-back for all of them. */
const GROUPS_A_CHUNK = 10;
/** A chunk splits up to 10 persons, and PostHog takes 240 person requests a minute with a personal
 * key that are not deletes: the budget keeps the splits under it (an undo of 200 groups takes
 * about a minute). */
const CHUNKS_PER_MINUTE = 24;

/** The undo's field of its journal's header: the groups it gives back, as the merge's journal kept them. */
export interface UndoHeader {
  /** The merge's journal the groups come from. */
  merge_journal: string;
  nonce: string;
  timestamp: string;
  groups: RecordedGroup[];
}

export interface UndoSettings {
  /** The merge's receipt, as --undo names it. */
  receipt: string;
  /** The merge's journal, and its groups that the receipt calls merged (on --resume the undo's journal's stand). */
  mergeJournal: string;
  groups: RecordedGroup[];
  verifyTimeoutMs: number;
  maxWaitMs: number;
  /** Where the capture requests go (runCaptureHost): recorded in the journal. */
  captureHost: string;
}

export type UndoStatus = 'restored' | 'pending' | 'failed';

export type UndoReceipt = Receipt & {
  undo: { merge_receipt: string; merge_journal: string; counts: { groups: number; restored: number; pending: number; failed: number } };
  groups: { project_id: string; keep: string; status: UndoStatus; reason?: string; persons: { distinct_ids: string[] }[] }[];
};

const keyOf = (project: string, uuid: string) => `${project}:${uuid}`;
const GONE = 'the kept person no longer exists (deleted since the merge?): its former persons cannot be rebuilt';

function undoHeaderOf(header: JournalHeader | undefined): UndoHeader | undefined {
  const u = header?.undo as UndoHeader | undefined;
  return u && Array.isArray(u.groups) ? u : undefined;
}

export function undoKind(s: UndoSettings): JobKind {
  let groups = s.groups;
  let mergeJournal = s.mergeJournal;
  /** Kept persons found deleted (from the chunks' answers), and groups read back restored. */
  const gone = new Set<string>();
  const restored = new Set<string>();
  const byKeep = () => new Map(groups.map((g) => [keyOf(g.project_id, g.keep.uuid), g]));
  const status = (g: RecordedGroup): UndoStatus =>
    gone.has(keyOf(g.project_id, g.keep.uuid)) ? 'failed' : restored.has(keyOf(g.project_id, g.keep.uuid)) ? 'restored' : 'pending';
  const counts = () => {
    const c = { groups: groups.length, restored: 0, pending: 0, failed: 0 };
    for (const g of groups) c[status(g)]++;
    return c;
  };
  const goneOf = (chunks: Iterable<{ project: string; answer?: { summary: unknown } }>) => {
    for (const c of chunks)
      for (const uuid of (c.answer?.summary as { gone?: string[] } | null)?.gone ?? []) gone.add(keyOf(c.project, uuid));
  };

  return {
    command: 'persons merge',
    words: { job: 'undo', request: 'undo', done: 'undone', unit: 'groups' },
    // The receipt it undoes (its text binds the journal as the input); the absolute path, so that
    // a resume from another directory matches.
    binding: { fields: { undoes: resolvePath(s.receipt) }, describe: (f) => `--undo ${String(f.undoes)}` },
    hashesIdentifiers: false,
    sendsIdsAsGiven: false,
    chunkSize: GROUPS_A_CHUNK,
    windows: [{ limit: CHUNKS_PER_MINUTE, windowMs: 60_000 }],
    snapshot: () => false,
    journalHeader: (startedAt): { undo: UndoHeader; capture_host: string } => ({
      capture_host: s.captureHost,
      undo: { merge_journal: mergeJournal, nonce: randomBytes(16).toString('hex'), timestamp: startedAt, groups },
    }),

    targets: async (_ctx, env) => {
      const recorded = undoHeaderOf(env.journal?.header);
      if (recorded) {
        groups = recorded.groups;
        mergeJournal = recorded.merge_journal;
      }
      return {
        projects: env.projects.map((p) => ({
          ...p,
          ids: p.unreachable ? [] : groups.filter((g) => g.project_id === p.id).map((g) => g.keep.uuid),
          matches: new Map(),
          newlyMatched: new Map(),
          distinctIds: new Map(),
          sample: [],
        })),
        unresolved: [],
        resolvedDuplicates: 0,
        newlyResolved: new Map(),
        queries: 0,
      };
    },

    makeAction: async (ctx, env) => {
      const formers = groups.reduce((k, g) => k + g.merge.length, 0);
      const planned = byKeep();
      const captures = new Map<string, CaptureTarget>();
      const host = s.captureHost;
      let stamp: UndoHeader | undefined;
      return {
        title: 'undo a merge of duplicate persons',
        request: `POST /api/projects/<id>/persons/<kept uuid>/split/ per group, then $merge_dangerously and $set events through capture at ${host}, each step read back (${GROUPS_A_CHUNK} groups a chunk)`,
        flags: `${s.receipt} (journal ${mergeJournal})`,
        flagsLabel: 'undoes',
        planLines: [
          `  groups    ${n(groups.length)} merged groups (${counted(formers, 'person')} to give back their distinct ids and properties)`,
        ],
        confirmation: (count) => `This splits ${counted(count, 'person')} and rebuilds ${n(formers)} from the journal ${mergeJournal}`,
        scope: 'person:write',
        prepare: async (journal) => {
          stamp = undoHeaderOf(journal.header);
          goneOf(journal.chunks.values());
          if (!env.client) return;
          for (const p of env.targets.projects)
            if (p.ids.length && !captures.has(p.id)) captures.set(p.id, await captureClient(ctx, env.client, p.id, host));
        },
        attempt: async (chunk) => {
          const project = chunk.project ?? env.projects[0];
          const capture = captures.get(project);
          if (!env.client || !capture || !stamp) throw new Error('a dry run sends nothing');
          const mine = chunk.ids.map((uuid) => planned.get(keyOf(project, uuid))).filter((g): g is RecordedGroup => g !== undefined);
          return undoChunk(ctx, env.client, capture, project, mine, stamp, {
            timeoutMs: env.timeoutMs,
            waitMs: s.verifyTimeoutMs,
            maxWaitMs: s.maxWaitMs,
          });
        },
        targetNoun: 'groups',
        checkedLost: () => '',
        account: (receipt) => {
          const c = (receipt as UndoReceipt).undo?.counts;
          if (!c) return `${n(receipt.counts.sent)} groups sent`;
          return `${n(c.restored)} of ${n(c.groups)} groups restored, ${n(c.pending)} pending, ${n(c.failed)} failed`;
        },
        describeAnswer: ({ summary }) => {
          const g = (summary as { gone?: string[] } | null)?.gone?.length ?? 0;
          return g ? `undone; ${g} kept persons no longer exist` : 'undone';
        },
      };
    },

    verify: async (ctx, env) => {
      goneOf(env.journal.chunks.values());
      const sent = env.journal.answeredIds();
      const { sleep } = ctx.clock;
      const started = ctx.clock.now();
      const waiting = (g: RecordedGroup) => sent.has(g.keep.uuid) && status(g) === 'pending';
      const projects = [...new Set(groups.map((g) => g.project_id))];
      for (let delay = FIRST_POLL_MS; ; delay = nextPollDelay(delay, 5_000)) {
        for (const project of projects) {
          const mine = groups.filter((g) => g.project_id === project && waiting(g));
          if (mine.length === 0) continue;
          for (const g of await restoredGroups(ctx, env.client, project, mine, s.maxWaitMs)) restored.add(keyOf(project, g));
        }
        if (!groups.some(waiting) || ctx.clock.now() - started + delay > s.verifyTimeoutMs) break;
        await sleep(delay, ctx.deps.signal);
      }
      const c = counts();
      return { total: { status: c.pending === 0 ? 'finished' : 'timed_out', ...c }, perProject: new Map() };
    },

    receipt: {
      fields: ({ answered }) => {
        goneOf(answered);
        return {
          undo: { merge_receipt: s.receipt, merge_journal: mergeJournal, counts: counts() },
          groups: groups.map((g) => {
            const st = status(g);
            return {
              project_id: g.project_id,
              keep: g.keep.uuid,
              status: st,
              ...(st === 'failed' ? { reason: GONE } : {}),
              persons: [g.keep, ...g.merge].map((p) => ({ distinct_ids: p.distinct_ids })),
            };
          }),
        };
      },
      verificationNote:
        "every former person of each group undone was read back (HogQL) until its distinct ids and properties equalled the merge's journal, or --verify-timeout passed",
      notes: {
        unanswered:
          'sent by a run that stopped before their answer was journaled (it was lost as the run stopped, or the run crashed, was killed or got a second Ctrl-C); the next run undoes them again (each step is safe to repeat)',
        unclear: 'an attempt at these groups did not finish cleanly: it may have been carried out in part; undoing them again is harmless',
        lostAnswers: () => 'undone in a chunk whose answer was lost; undone again',
      },
      incomplete: (r) => {
        const c = (r as UndoReceipt).undo.counts;
        return c.pending > 0 || c.failed > 0;
      },
      summary: (r) => ({ ...(r as UndoReceipt).undo.counts }),
    },

    verdict: (receipt, o) => undoVerdict(receipt as UndoReceipt, o.resume),
  };
}

function undoVerdict(receipt: UndoReceipt, resume: string): Verdict {
  const c = receipt.undo.counts;
  const line = `${n(c.restored)} of ${n(c.groups)} groups restored, ${n(c.pending)} pending`;
  const failed = receipt.groups.filter((g) => g.status === 'failed');
  if (failed.length > 0)
    return {
      warnings: [],
      error: new PartialFailureError(
        `${line}; ${n(failed.length)} could not be undone: ${failed
          .slice(0, 10)
          .map((g) => `the kept person ${g.keep} no longer exists`)
          .join('; ')}`,
        'the receipt lists them; their former persons cannot be rebuilt from a deleted person',
      ),
    };
  if (c.pending > 0)
    return {
      warnings: [],
      error: new PartialFailureError(line, `PostHog may still be applying it: read back again later with:\n  ${resume}`),
    };
  return { warnings: [] };
}

/**
 * One chunk of groups undone, every step safe to repeat. Its answer names the kept persons found
 * deleted. A wait cut short by Ctrl-C leaves the chunk to --resume.
 */
async function undoChunk(
  ctx: Context,
  client: ApiClient,
  capture: CaptureTarget,
  project: string,
  given: RecordedGroup[],
  stamp: UndoHeader,
  o: { timeoutMs: number; waitMs: number; maxWaitMs: number },
): Promise<Attempt> {
  const { sleep } = ctx.clock;
  const interrupted: Attempt = { kind: 'retry', status: null, error: 'interrupted' };
  /** Waits until `done`, or the wait limit; false when Ctrl-C cut it short. */
  const until = async (done: () => Promise<boolean>): Promise<boolean> => {
    const started = ctx.clock.now();
    for (let delay = FIRST_POLL_MS; ; delay = nextPollDelay(delay, 5_000)) {
      if (await done()) return true;
      if (ctx.clock.now() - started + delay > o.waitMs) return true;
      try {
        await sleep(delay, ctx.deps.signal);
      } catch {
        return false;
      }
    }
  };
  const owners = (ids: string[]) => ownersOf(client, project, ids);
  try {
    // 1. Split off the kept person the ids of the persons merged into it that it still holds. A
    // kept person none of whose own ids names anyone was deleted since: reported, never rebuilt.
    const before = await owners(given.flatMap((g) => [g.keep, ...g.merge].flatMap((p) => p.distinct_ids)));
    const gone = given.filter((g) => g.keep.distinct_ids.every((id) => before.get(id) === undefined)).map((g) => g.keep.uuid);
    for (const uuid of gone)
      ctx.warn(`project ${project}: the kept person ${uuid} no longer exists (deleted since the merge?): its group cannot be undone`);
    const groups = given.filter((g) => !gone.includes(g.keep.uuid));
    for (const g of groups) {
      const still = g.merge.flatMap((p) => p.distinct_ids).filter((id) => before.get(id) === g.keep.uuid);
      if (still.length === 0) continue;
      try {
        await splitPerson(client, project, g.keep.uuid, { distinct_ids_to_split: still });
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
        gone.push(g.keep.uuid);
      }
    }
    const live = groups.filter((g) => !gone.includes(g.keep.uuid));
    if (live.length === 0) return { kind: 'ok', status: 200, summary: { gone } };
    const formerIds = live.flatMap((g) => g.merge.flatMap((p) => p.distinct_ids));
    const keptOf = new Map(live.flatMap((g) => g.merge.flatMap((p) => p.distinct_ids.map((id) => [id, g.keep.uuid] as const))));
    if (!(await until(async () => [...(await owners(formerIds))].every(([id, uuid]) => keptOf.get(id) !== uuid)))) return interrupted;

    // 2. Join again the ids of each former person that had more than one.
    const events = { nonce: `undo:${stamp.nonce}`, timestamp: stamp.timestamp };
    const joins: CaptureEvent[] = [];
    for (const p of live.flatMap((g) => g.merge))
      for (const other of p.distinct_ids.slice(1))
        joins.push(mergeEvent({ into: p.distinct_ids[0], alias: other, person: `${p.uuid}:${other}` }, events, project));
    for (let i = 0; i < joins.length; i += EVENTS_A_REQUEST)
      await sendEvents(ctx, capture, joins.slice(i, i + EVENTS_A_REQUEST), o.timeoutMs);
    const joined = (owner: Map<string, string>, p: KeptPerson) =>
      p.distinct_ids.every((id) => owner.get(id) !== undefined && owner.get(id) === owner.get(p.distinct_ids[0]));
    const rejoined = await until(async () => {
      const owner = await owners(formerIds);
      return live.every((g) => g.merge.every((p) => joined(owner, p)));
    });
    if (!rejoined) return interrupted;

    // 3. Restore the properties of every former person, the kept one included.
    const formers = live.flatMap((g) => [g.keep, ...g.merge]);
    const now = await readPersons(ctx, client, project, { uuids: [], distinctIds: formers.map((p) => p.distinct_ids[0]) }, o.maxWaitMs);
    const sets: CaptureEvent[] = formers.map((p) => {
      const current = now.persons.get(now.byDistinctId.get(p.distinct_ids[0]) ?? '')?.properties ?? {};
      const unset = Object.keys(current).filter((k) => !(k in p.properties));
      return {
        event: '$set',
        distinct_id: p.distinct_ids[0],
        properties: { $set: p.properties, ...(unset.length ? { $unset: unset } : {}) },
        timestamp: events.timestamp,
        uuid: mergeEventUuid(events.nonce, project, `set:${p.uuid}`),
      };
    });
    for (let i = 0; i < sets.length; i += EVENTS_A_REQUEST)
      await sendEvents(ctx, capture, sets.slice(i, i + EVENTS_A_REQUEST), o.timeoutMs);
    return { kind: 'ok', status: 200, summary: { gone } };
  } catch (err) {
    if (ctx.deps.signal?.aborted) return interrupted;
    if (err instanceof UsageError) return { kind: 'rejected', status: 0, error: err };
    return { kind: 'retry', status: null, error: err instanceof Error ? err.message : String(err), unclear: true };
  }
}

/** Which person (by UUID) each distinct id names now, from the person store. */
async function ownersOf(client: ApiClient, project: string, ids: string[]): Promise<Map<string, string>> {
  const owner = new Map<string, string>();
  for (let i = 0; i < ids.length; i += PERSON_BATCH_MAX) {
    const found = await batchPersons(client, project, 'distinct_ids', ids.slice(i, i + PERSON_BATCH_MAX));
    for (const [id, p] of found ?? []) owner.set(id, p.uuid.toLowerCase());
  }
  return owner;
}

/** The kept UUIDs of the groups whose every former person holds exactly its ids and properties again. */
async function restoredGroups(
  ctx: Context,
  client: ApiClient,
  project: string,
  groups: RecordedGroup[],
  maxWaitMs: number,
): Promise<string[]> {
  const formers = groups.flatMap((g) => [g.keep, ...g.merge]);
  const read = await readPersons(ctx, client, project, { uuids: [], distinctIds: formers.flatMap((p) => p.distinct_ids) }, maxWaitMs);
  return groups
    .filter((g) =>
      [g.keep, ...g.merge].every((p) => {
        const person = read.persons.get(read.byDistinctId.get(p.distinct_ids[0]) ?? '');
        return (
          person !== undefined &&
          JSON.stringify([...person.distinct_ids].sort()) === JSON.stringify([...p.distinct_ids].sort()) &&
          sameValue(person.properties, p.properties)
        );
      }),
    )
    .map((g) => g.keep.uuid);
}

/**
 * What --undo gives back: the groups the merge's receipt calls merged, as the merge's journal kept
 * them (each person's distinct ids and properties, before the merge).
 */
export async function readMergeToUndo(receiptPath: string): Promise<{ text: string; mergeJournal: string; groups: RecordedGroup[] }> {
  let text: string;
  let receipt: { command?: string; journal?: unknown; undo?: unknown; groups?: { status: string; keep: string; project_id: string }[] };
  try {
    text = await readFile(receiptPath, 'utf8');
    receipt = JSON.parse(text) as typeof receipt;
  } catch {
    throw new UsageError(`cannot read ${receiptPath} as the receipt of a merge`, 'give the receipt `hogctl persons merge` wrote');
  }
  if (receipt.command !== 'persons merge' || typeof receipt.journal !== 'string' || !Array.isArray(receipt.groups) || receipt.undo)
    throw new UsageError(`${receiptPath} is not the receipt of a merge`, 'give the receipt `hogctl persons merge` wrote');
  const header = mergeHeaderOf((await readJournal(receipt.journal)).header);
  if (!header) throw new UsageError(`${receipt.journal} is not the journal of a merge`, 'give the receipt `hogctl persons merge` wrote');
  const merged = new Set(receipt.groups.filter((g) => g.status === 'merged').map((g) => keyOf(g.project_id, g.keep)));
  if (merged.size === 0) {
    const statuses = new Map<string, number>();
    for (const g of receipt.groups) statuses.set(g.status, (statuses.get(g.status) ?? 0) + 1);
    const said = [...statuses].map(([status, k]) => `${formatNumber(k)} ${status}`).join(', ') || 'no groups';
    throw new UsageError(
      `${receiptPath} calls no group merged (${said}): there is nothing to undo`,
      statuses.has('pending')
        ? 'a pending merge may show later: read it back with the command the merge printed (`hogctl persons merge … --resume`), then undo'
        : 'give the receipt of a merge that merged',
    );
  }
  return { text, mergeJournal: receipt.journal, groups: header.groups.filter((g) => merged.has(keyOf(g.project_id, g.keep.uuid))) };
}
