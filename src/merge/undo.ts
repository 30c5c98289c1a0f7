// `persons merge --undo <receipt>`: PostHog calls a merge irreversible, but the journal kept each
// group as it was (every former person's distinct ids and properties), so it can be rebuilt:
//
// 1. split the kept person: POST persons/{uuid}/split/ with `distinct_ids_to_split`, the ids of
//    the persons merged into it (`posthog-ingestion.md` D.8.2: each id moves to a person of its
//    own, asynchronously); read back until none of them names the kept person;
// 2. join again the ids each former person had: `$merge_dangerously` from its first id, one event
//    per other id (E.3); read back until each former person's ids name one person;
// 3. restore the properties through capture: a `$set` event per former person with its old
//    properties, and `$unset` of the keys it has now but had not (B.2.3); read back (HogQL) until
//    every former person's properties equal the snapshot, or --verify-timeout passes.
//
// The persons so rebuilt are new persons (new UUIDs, PostHog's split rule B.1.2) holding the old
// ids and properties; the kept person keeps its UUID. The undo's receipt says per group restored
// or pending.
import { readFile } from 'node:fs/promises';
import { writeSecretFile } from '../config/secret-file.js';
import type { Context } from '../context.js';
import { NotFoundError, PartialFailureError, UsageError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import { confirmOrRefuse } from '../cli/confirm.js';
import { lockJournal } from '../bulk/lock.js';
import { splitPerson } from '../api/person-actions.js';
import { batchPersons, PERSON_BATCH_MAX } from '../api/persons.js';
import type { CaptureEvent } from '../api/capture.js';
import { writeRecord } from '../io/output.js';
import { readPersons, type Candidate } from './find-duplicates.js';
import { readMergeJournal } from './merge-journal.js';
import { EVENTS_A_REQUEST, captureClient, mergeEvent, mergeEventUuid, sendEvents } from './merge-events.js';
import type { PlannedGroup } from './plan-groups.js';

export interface UndoSettings {
  receipt: string;
  yes: boolean;
  dryRun: boolean;
  verifyTimeoutMs: number;
  maxWaitMs: number;
  timeoutMs: number;
  /** Where the undo's receipt goes (default: beside the merge's). */
  out?: string;
}

interface MergeReceiptFile {
  format: string;
  journal: string;
  groups: { project_id: string; status: string; keep: string }[];
}

export async function runUndo(ctx: Context, s: UndoSettings): Promise<void> {
  let receipt: MergeReceiptFile;
  try {
    receipt = JSON.parse(await readFile(s.receipt, 'utf8')) as MergeReceiptFile;
  } catch {
    throw new UsageError(`cannot read ${s.receipt} as the receipt of a merge`, 'give the receipt `hogctl persons merge` wrote');
  }
  if (receipt.format !== 'hogctl persons merge receipt' || typeof receipt.journal !== 'string')
    throw new UsageError(`${s.receipt} is not the receipt of a merge`, 'give the receipt `hogctl persons merge` wrote');
  const journal = await readMergeJournal(receipt.journal);
  const merged = new Set(receipt.groups.filter((g) => g.status === 'merged').map((g) => g.keep));
  const groups = journal.groups.filter((g) => merged.has(g.keep.uuid));
  const formers = groups.reduce((n, g) => n + g.merge.length, 0);
  ctx.info(
    [
      'Plan: undo a merge',
      `  receipt:     ${s.receipt}`,
      `  groups:      ${groups.length} merged groups (${formers} persons to give back their distinct ids and properties)`,
      '  requests:    POST persons/<kept uuid>/split/ per group, then $merge_dangerously and $set events through capture, each step read back',
    ].join('\n'),
  );
  if (s.dryRun || groups.length === 0) return;
  await confirmOrRefuse(ctx, {
    yes: s.yes,
    summary: `This splits ${groups.length} persons and rebuilds ${formers} persons from the journal ${receipt.journal}.`,
    question: `Undo the merge of ${groups.length} groups?`,
    typeToConfirm: String(groups.length),
  });
  const client = await ctx.api();
  const byProject = new Map<string, PlannedGroup[]>();
  for (const g of groups) byProject.set(g.project_id, [...(byProject.get(g.project_id) ?? []), g]);
  const restored = new Set<string>();
  const gone = new Set<string>();
  // The merge's lock: an undo and a --resume of the same merge never run at once.
  const lock = await lockJournal(receipt.journal, ctx.deps.now);
  try {
    for (const [project, list] of byProject) {
      const done = await undoProject(ctx, client, project, list, journal.header.nonce, s);
      for (const uuid of done.restored) restored.add(uuid);
      for (const uuid of done.gone) gone.add(uuid);
    }
  } finally {
    await lock.release();
  }
  const result = {
    format: 'hogctl persons merge undo receipt',
    undoes: s.receipt,
    groups: groups.map((g) => ({
      project_id: g.project_id,
      keep: g.keep.uuid,
      status: restored.has(g.keep.uuid) ? 'restored' : gone.has(g.keep.uuid) ? 'failed: the kept person no longer exists' : 'pending',
      persons: [g.keep, ...g.merge].map((p) => ({ distinct_ids: p.distinct_ids })),
    })),
  };
  const out = s.out ?? s.receipt.replace(/\.json$/, '') + '.undo.json';
  writeSecretFile(out, `${JSON.stringify(result, null, 2)}\n`);
  const pending = groups.length - restored.size - gone.size;
  await writeRecord(
    await ctx.output(),
    { groups: groups.length, restored: restored.size, pending, failed: gone.size, receipt: out },
    { columns: ['groups', 'restored', 'pending', 'failed', 'receipt'] },
  );
  const line = `${restored.size} of ${groups.length} groups restored, ${pending} pending; receipt ${out}`;
  if (gone.size > 0)
    throw new PartialFailureError(
      `${line}; ${gone.size} could not be undone: the kept person no longer exists`,
      'the receipt lists them; their former persons cannot be rebuilt from a deleted person',
    );
  if (pending > 0)
    throw new PartialFailureError(
      line,
      'PostHog may still be applying it: read the persons again later (hogctl persons get <distinct id>)',
    );
  ctx.info(`✔ ${line}`);
}

/** The groups of one project, undone; returns the kept UUIDs of the groups restored. */
async function undoProject(
  ctx: Context,
  client: ApiClient,
  project: string,
  given: PlannedGroup[],
  nonce: string,
  s: UndoSettings,
): Promise<{ restored: string[]; gone: string[] }> {
  const sleep = ctx.deps.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  const until = async (done: () => Promise<boolean>): Promise<boolean> => {
    const started = ctx.deps.now();
    for (let delay = 250; ; delay = Math.min(delay * 2, 5_000)) {
      if (await done()) return true;
      if (ctx.deps.now() - started + delay > s.verifyTimeoutMs) return false;
      await sleep(delay, ctx.deps.signal);
    }
  };
  const owners = async (ids: string[]): Promise<Map<string, string>> => {
    const owner = new Map<string, string>();
    for (let i = 0; i < ids.length; i += PERSON_BATCH_MAX) {
      const found = await batchPersons(client, project, 'distinct_ids', ids.slice(i, i + PERSON_BATCH_MAX), { signal: ctx.deps.signal });
      for (const [id, p] of found ?? []) owner.set(id, p.uuid.toLowerCase());
    }
    return owner;
  };
  // 1. Split the merged-in ids off each kept person. One deleted since (an erasure) has nothing
  // left to give back: its group is reported, the others go on.
  const gone = new Set<string>();
  for (const g of given) {
    try {
      await splitPerson(client, project, g.keep.uuid, { distinct_ids_to_split: g.merge.flatMap((p) => p.distinct_ids) });
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      gone.add(g.keep.uuid);
      ctx.warn(
        `project ${project}: the kept person ${g.keep.uuid} no longer exists (deleted since the merge?): its group cannot be undone`,
      );
    }
  }
  const groups = given.filter((g) => !gone.has(g.keep.uuid));
  if (groups.length === 0) return { restored: [], gone: [...gone] };
  const formerIds = groups.flatMap((g) => g.merge.flatMap((p) => p.distinct_ids));
  const kept = new Map(groups.flatMap((g) => g.merge.flatMap((p) => p.distinct_ids.map((id) => [id, g.keep.uuid] as const))));
  await until(async () => [...(await owners(formerIds))].every(([id, uuid]) => kept.get(id) !== uuid));

  // 2. Join again the ids of each former person that had more than one.
  const capture = await captureClient(ctx, client, project);
  const stamp = { nonce: `undo:${nonce}`, timestamp: new Date(ctx.deps.now()).toISOString() };
  const joins: CaptureEvent[] = [];
  for (const p of groups.flatMap((g) => g.merge))
    for (const other of p.distinct_ids.slice(1))
      joins.push(mergeEvent({ into: p.distinct_ids[0], alias: other, person: `${p.uuid}:${other}` }, stamp, project));
  for (let i = 0; i < joins.length; i += EVENTS_A_REQUEST)
    await sendEvents(ctx, capture, joins.slice(i, i + EVENTS_A_REQUEST), s.timeoutMs);
  const joined = (owner: Map<string, string>, p: Candidate) =>
    p.distinct_ids.every((id) => owner.get(id) !== undefined && owner.get(id) === owner.get(p.distinct_ids[0]));
  await until(async () => {
    const owner = await owners(formerIds);
    return groups.every((g) => g.merge.every((p) => joined(owner, p)));
  });

  // 3. Restore the properties of every former person, the kept one included.
  const formers = groups.flatMap((g) => [g.keep, ...g.merge]);
  const now = await readPersons(ctx, client, project, { uuids: [], distinctIds: formers.map((p) => p.distinct_ids[0]) }, s.maxWaitMs);
  const sets: CaptureEvent[] = formers.map((p) => {
    const current = now.persons.get(now.byDistinctId.get(p.distinct_ids[0]) ?? '')?.properties ?? {};
    const unset = Object.keys(current).filter((k) => !(k in p.properties));
    return {
      event: '$set',
      distinct_id: p.distinct_ids[0],
      properties: { $set: p.properties, ...(unset.length ? { $unset: unset } : {}) },
      timestamp: stamp.timestamp,
      uuid: mergeEventUuid(stamp.nonce, project, `set:${p.uuid}`),
    };
  });
  for (let i = 0; i < sets.length; i += EVENTS_A_REQUEST) await sendEvents(ctx, capture, sets.slice(i, i + EVENTS_A_REQUEST), s.timeoutMs);

  // Read back: every former person is one person with exactly its ids and its properties.
  const restored = new Set<string>();
  await until(async () => {
    const read = await readPersons(ctx, client, project, { uuids: [], distinctIds: formers.flatMap((p) => p.distinct_ids) }, s.maxWaitMs);
    for (const g of groups) {
      const ok = [g.keep, ...g.merge].every((p) => {
        const person = read.persons.get(read.byDistinctId.get(p.distinct_ids[0]) ?? '');
        return (
          person !== undefined &&
          JSON.stringify([...person.distinct_ids].sort()) === JSON.stringify([...p.distinct_ids].sort()) &&
          sameProperties(person.properties, p.properties)
        );
      });
      if (ok) restored.add(g.keep.uuid);
    }
    return restored.size === groups.length;
  });
  return { restored: [...restored], gone: [...gone] };
}

function sameProperties(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return canonical(a) === canonical(b);
}

/** JSON with object keys sorted: a person's properties are jsonb, which reorders keys. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}
