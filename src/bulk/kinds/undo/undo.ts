// `persons merge --undo <receipt>` as a kind of bulk job (src/bulk/engine/action.ts): journaled, locked
// and resumable like the merge. PostHog calls a merge irreversible, but the merge's journal kept
// each group as it was (every former person's distinct ids and properties), so it can be rebuilt,
// with the limits NOT_GIVEN_BACK names.
//
// Before anything is written every group is judged against the person store (undo-check.ts): a
// group whose distinct ids no longer all name the kept person, or whose kept person changed since
// the merge (unless --changed says otherwise), is refused with its reason, and the journal's
// header records the judgement, so that --resume undoes exactly the groups the first run chose.
// The engine's persons are the kept persons of the groups left; a chunk of them is undone in
// three steps (undo-steps.ts). The verification reads the person store back until every former
// person's distinct ids and properties are what the undo gives back, or --verify-timeout passes,
// and counts what did not come back (a UUID, a created_at, is_identified).
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import type { Context } from '../../../context.js';
import { FIRST_POLL_MS, nextPollDelay } from '../../../sleep.js';
import { counted, formatNumber } from '../../../io/counts.js';
import { PartialFailureError, UsageError } from '../../../errors.js';
import type { ApiClient } from '../../../http/client.js';
import { stampToSend } from '../../../api/capture.js';
import type { ActionEnv, BulkAction, JobKind, JobVerification, TargetsEnv, Verdict, VerifyEnv } from '../../engine/action.js';
import { readJournal } from '../../engine/journal-read.js';
import { type JournalHeader } from '../../engine/journal-format.js';
import { earlierReceiptError, type Receipt, type ReceiptPart } from '../../engine/receipt.js';
import { sameValue } from '../../engine/same-value.js';
import type { CaseTargets } from '../../input/targets.js';
import { mergeHeaderOf, targetsOf, type RecordedGroup } from '../merge/merge-kind.js';
import { captureClient, type CaptureTarget } from '../merge/merge-events.js';
import { GONE, holdsOwnIdsIn, isRefused, judgeGroup, type ChangedRule, type RefusedGroup, type UndoGroup } from './undo-check.js';
import { personsOf, targetOf, undoChunk } from './undo-steps.js';
import { NOT_GIVEN_BACK, notGivenBackLines } from '../merge/not-given-back.js';

const n = formatNumber;

/** Groups undone a chunk: each step of a chunk is one read-back for all of them. */
const GROUPS_A_CHUNK = 10;
/** A chunk splits up to 10 persons, and PostHog takes 240 person requests a minute with a personal
 * key that are not deletes: the budget keeps the splits under it (an undo of 200 groups takes
 * about a minute). */
const CHUNKS_PER_MINUTE = 24;

/** The undo's field of its journal's header: what the first run judged, as --resume continues it. */
export interface UndoHeader {
  /** The merge's journal the groups come from. */
  merge_journal: string;
  nonce: string;
  timestamp: string;
  changed_rule: ChangedRule;
  /** The groups it gives back. */
  groups: UndoGroup[];
  /** The groups it leaves alone, and why. */
  refused: RefusedGroup[];
}

export interface UndoSettings {
  /** The merge's receipt, as --undo names it. */
  receipt: string;
  /** The merge's journal, and its groups that the receipt calls merged (on --resume the undo's journal's stand). */
  mergeJournal: string;
  groups: RecordedGroup[];
  /** --changed as given (undefined: refuse, or on --resume the first run's). */
  changed: ChangedRule | undefined;
  verifyTimeoutMs: number;
  /** Where the capture requests go (runCaptureHost): recorded in the journal. */
  captureHost: string;
}

export type UndoStatus = 'restored' | 'pending' | 'failed' | 'refused';

/** What a chunk's answer says (undo-steps.ts undoChunk): kept persons found deleted, and groups
 * left as they are because their ids name a person of no group now. */
interface UndoAnswer {
  gone?: string[];
  foreign?: { keep: string; reason: string }[];
}

/** What came back of the persons merged away, counted over the groups restored. */
export interface NotRestored {
  /** Persons rebuilt under a new UUID. */
  uuid: number;
  created_at: number;
  /** Null where the person store's answers do not show it. */
  is_identified: number | null;
}

export type UndoReceipt = Receipt & {
  undo: {
    merge_receipt: string;
    merge_journal: string;
    changed_rule: ChangedRule;
    counts: { groups: number; restored: number; pending: number; failed: number; refused: number };
    not_restored: NotRestored;
    not_given_back: string[];
  };
  groups: {
    project_id: string;
    keep: string;
    status: UndoStatus;
    reason?: string;
    changed?: string[];
    persons: { uuid: string; distinct_ids: string[] }[];
  }[];
};

const keyOf = (project: string, uuid: string) => `${project}:${uuid}`;

function undoHeaderOf(header: JournalHeader | undefined): UndoHeader | undefined {
  const u = header?.undo as UndoHeader | undefined;
  return u && Array.isArray(u.groups) ? u : undefined;
}

/** Every group judged against the person store now (a dry run without a client: all given back as they were). */
async function judgeAll(
  ctx: Context,
  client: ApiClient | undefined,
  groups: RecordedGroup[],
  rule: ChangedRule,
): Promise<{ groups: UndoGroup[]; refused: RefusedGroup[] }> {
  if (!client) return { groups: groups.map((g) => ({ ...g, keep_target: g.keep.properties, changed: [] })), refused: [] };
  const undo: UndoGroup[] = [];
  const refused: RefusedGroup[] = [];
  for (const project of new Set(groups.map((g) => g.project_id))) {
    const mine = groups.filter((g) => g.project_id === project);
    const ids = mine.flatMap((g) => [g.keep, ...g.merge].flatMap((p) => p.distinct_ids));
    const owners = await personsOf(client, project, ids, ctx.deps.signal);
    for (const g of mine) {
      const judged = judgeGroup(g, owners, rule);
      if (isRefused(judged)) refused.push(judged);
      else undo.push(judged);
    }
  }
  return { groups: undo, refused };
}

/** An undo with nothing left to do is refused before its plan: already undone, or every group refused. */
function nothingLeft(receipt: string, refused: RefusedGroup[]): UsageError {
  if (refused.every((r) => r.undone))
    return new UsageError(
      `${receipt} was already undone: every former person holds its own distinct ids again`,
      'there is nothing to undo',
    );
  const lines = refused.slice(0, 10).map((r) => `  ${r.keep} (project ${r.project_id}): ${r.reason}`);
  if (refused.length > 10) lines.push(`  … and ${n(refused.length - 10)} more`);
  return new UsageError(
    `no group of ${receipt} can be undone; nothing was sent:\n${lines.join('\n')}`,
    refused.some((r) => r.reason.includes('--changed'))
      ? 'a group whose kept person changed since the merge is undone with --changed keep (the changes stay on it) or --changed overwrite'
      : 'each reason says what changed since the merge',
  );
}

/** The plan's lines of an undo: the groups it gives back, those it refuses, the keys changed since, what it cannot give back. */
function planLines(groups: UndoGroup[], refused: RefusedGroup[], rule: ChangedRule): string[] {
  const formers = groups.reduce((k, g) => k + g.merge.length, 0);
  const lines = [
    `  groups    ${n(groups.length)} merged groups (${counted(formers, 'person')} to give back their distinct ids and properties)`,
  ];
  const changed = groups.filter((g) => g.changed.length > 0);
  if (changed.length > 0) {
    const how = rule === 'keep' ? 'kept as they are now (--changed keep)' : 'set back as before the merge (--changed overwrite)';
    lines.push(`  changed   ${counted(changed.length, 'kept person')} changed since the merge; those keys are ${how}:`);
    for (const g of changed.slice(0, 5)) lines.push(`            ${g.keep.uuid}: ${g.changed.join(', ')}`);
    if (changed.length > 5) lines.push(`            … and ${n(changed.length - 5)} more`);
  }
  if (refused.length > 0) lines.push(`  refused   ${counted(refused.length, 'group')}, left as they are:`);
  for (const r of refused.slice(0, 10)) lines.push(`            ${r.keep} (project ${r.project_id}): ${r.reason}`);
  if (refused.length > 10) lines.push(`            … and ${n(refused.length - 10)} more (the receipt lists them all)`);
  lines.push(...notGivenBackLines('  not given back (no PostHog API can):'));
  return lines;
}

/** What an undo learns as it goes: its groups (judged now, or as the journal recorded them), the
 * rule for groups changed since, and which kept persons are gone or restored. */
class UndoState {
  groups: UndoGroup[] = [];
  refused: RefusedGroup[] = [];
  /** Kept persons found deleted, and groups whose ids name a person of no group now, with why
   * (from the chunks' answers); groups read back restored. */
  readonly gone = new Set<string>();
  readonly foreign = new Map<string, string>();
  readonly restored = new Set<string>();
  readonly notRestored: NotRestored = { uuid: 0, created_at: 0, is_identified: 0 };

  constructor(
    public mergeJournal: string,
    public rule: ChangedRule,
  ) {}

  byKeep(): Map<string, UndoGroup> {
    return new Map(this.groups.map((g) => [keyOf(g.project_id, g.keep.uuid), g]));
  }

  status(g: UndoGroup): UndoStatus {
    const key = keyOf(g.project_id, g.keep.uuid);
    if (this.gone.has(key)) return 'failed';
    if (this.foreign.has(key)) return 'refused';
    return this.restored.has(key) ? 'restored' : 'pending';
  }

  counts(): UndoReceipt['undo']['counts'] {
    const c = { groups: this.groups.length + this.refused.length, restored: 0, pending: 0, failed: 0, refused: 0 };
    for (const g of this.groups) c[this.status(g)]++;
    for (const r of this.refused) c[r.status]++;
    return c;
  }

  /** Kept persons the chunks' answers found deleted, and groups they found written to elsewhere. */
  goneOf(chunks: Iterable<{ project: string; answer?: { summary: unknown } }>): void {
    for (const c of chunks) {
      const summary = c.answer?.summary as UndoAnswer | null | undefined;
      for (const uuid of summary?.gone ?? []) this.gone.add(keyOf(c.project, uuid));
      for (const f of summary?.foreign ?? []) this.foreign.set(keyOf(c.project, f.keep), f.reason);
    }
  }
}

export function undoKind(s: UndoSettings): JobKind<UndoReceipt> {
  const st = new UndoState(s.mergeJournal, s.changed ?? 'refuse');
  return {
    words: { job: 'undo', request: 'undo', done: 'undone', unit: 'groups' },
    journal: {
      command: 'persons merge',
      // The receipt it undoes (its text binds the journal as the input); the absolute path, so that
      // a resume from another directory matches.
      binding: { fields: { undoes: resolvePath(s.receipt) }, describe: (f) => `--undo ${String(f.undoes)}` },
      hashesIdentifiers: false,
      header: (startedAt): { undo: UndoHeader; capture_host: string } => ({
        capture_host: s.captureHost,
        undo: {
          merge_journal: st.mergeJournal,
          nonce: randomBytes(16).toString('hex'),
          timestamp: startedAt,
          changed_rule: st.rule,
          groups: st.groups,
          refused: st.refused,
        },
      }),
    },
    requests: {
      sendsIdsAsGiven: false,
      chunkSize: GROUPS_A_CHUNK,
      windows: [{ limit: CHUNKS_PER_MINUTE, windowMs: 60_000 }],
      snapshot: () => false,
      targets: (ctx, env) => undoTargets(ctx, env, s, st),
      makeAction: async (ctx, env) => undoAction(ctx, env, s, st),
    },
    check: {
      verify: (ctx, env) => verifyUndo(ctx, env, s.verifyTimeoutMs, st),
      verdict: (receipt, o) => undoVerdict(receipt, o.resume),
    },
    receipt: undoReceipt(s.receipt, st),
  };
}

/** The groups: as the first run judged them on --resume, else judged now. */
async function undoTargets(ctx: Context, env: TargetsEnv, s: UndoSettings, st: UndoState): Promise<CaseTargets> {
  const recorded = undoHeaderOf(env.journal?.header);
  if (recorded) {
    // Continued: the groups as the first run judged them.
    ({ groups: st.groups, refused: st.refused } = recorded);
    st.mergeJournal = recorded.merge_journal;
    st.rule = recorded.changed_rule;
    if (s.changed !== undefined && s.changed !== st.rule)
      throw new UsageError(
        `this undo was started with --changed ${st.rule}: --resume undoes the groups its first run chose, as that run judged them`,
        `run it with --changed ${st.rule}, or without --changed`,
      );
  } else {
    ({ groups: st.groups, refused: st.refused } = await judgeAll(ctx, env.client, s.groups, st.rule));
    if (st.groups.length === 0) throw nothingLeft(s.receipt, st.refused);
  }
  return targetsOf(env.projects, st.groups);
}

/** A chunk of groups: each split, rebuilt and read back (undo-steps.ts). */
function undoAction(ctx: Context, env: ActionEnv, s: UndoSettings, st: UndoState): BulkAction<UndoReceipt> {
  const formers = st.groups.reduce((k, g) => k + g.merge.length, 0);
  const planned = st.byKeep();
  const captures = new Map<string, CaptureTarget>();
  const host = s.captureHost;
  let header: UndoHeader | undefined;
  return {
    title: 'undo a merge of duplicate persons',
    request: `POST /api/projects/<id>/persons/<kept uuid>/split/ per group, then $merge_dangerously and $set events through capture at ${host}, each step read back (${GROUPS_A_CHUNK} groups a chunk)`,
    flags: `${s.receipt} (journal ${st.mergeJournal})`,
    flagsLabel: 'undoes',
    planLines: planLines(st.groups, st.refused, st.rule),
    confirmation: (count) => `This splits ${counted(count, 'person')} and rebuilds ${n(formers)} from the journal ${st.mergeJournal}`,
    scope: 'person:write',
    prepare: async (journal) => {
      header = undoHeaderOf(journal.header);
      st.goneOf(journal.chunks.values());
      if (!env.client) return;
      for (const p of env.targets.projects)
        if (p.ids.length && !captures.has(p.id)) captures.set(p.id, await captureClient(ctx, env.client, p.id, host));
    },
    attempt: async (chunk) => {
      const project = chunk.project ?? env.projects[0];
      const capture = captures.get(project);
      if (!env.client || !capture || !header) throw new Error('a dry run sends nothing');
      const mine = chunk.ids.map((uuid) => planned.get(keyOf(project, uuid))).filter((g): g is UndoGroup => g !== undefined);
      const stamp = stampToSend({ nonce: `undo:${header.nonce}`, timestamp: header.timestamp }, ctx.clock.now());
      return undoChunk({ ctx, client: env.client, capture, project, stamp, timeoutMs: env.timeoutMs, waitMs: s.verifyTimeoutMs }, mine);
    },
    targetNoun: 'groups',
    checkedLost: () => '',
    account: (receipt) => {
      const c = receipt.undo?.counts;
      if (!c) return `${n(receipt.counts.sent)} groups sent`;
      return `${n(c.restored)} of ${n(c.groups)} groups restored, ${n(c.pending)} pending, ${n(c.failed)} failed, ${n(c.refused)} refused`;
    },
    describeAnswer: ({ summary }) => {
      const g = (summary as { gone?: string[] } | null)?.gone?.length ?? 0;
      return g ? `undone; ${g} kept persons no longer exist` : 'undone';
    },
  };
}

/** Reads the former persons of each group undone back until they are as given back, or --verify-timeout passes. */
async function verifyUndo(ctx: Context, env: VerifyEnv, verifyTimeoutMs: number, st: UndoState): Promise<JobVerification> {
  st.goneOf(env.journal.chunks.values());
  const sent = env.journal.answeredIds();
  const started = ctx.clock.now();
  const waiting = (g: UndoGroup) => sent.has(g.keep.uuid) && st.status(g) === 'pending';
  const projects = [...new Set(st.groups.map((g) => g.project_id))];
  for (let delay = FIRST_POLL_MS; ; delay = nextPollDelay(delay, 5_000)) {
    for (const project of projects) {
      const mine = st.groups.filter((g) => g.project_id === project && waiting(g));
      if (mine.length === 0) continue;
      for (const g of await restoredGroups(ctx, env.client, project, mine, st.notRestored)) st.restored.add(keyOf(project, g));
    }
    if (!st.groups.some(waiting) || ctx.clock.now() - started + delay > verifyTimeoutMs) break;
    await ctx.clock.sleep(delay, ctx.deps.signal);
  }
  const c = st.counts();
  const total = { status: c.pending === 0 ? 'finished' : 'timed_out', ...c };
  return { total, perProject: new Map() };
}

/** The undo's part of the receipt: each group, restored, pending, failed or refused. */
function undoReceipt(mergeReceipt: string, st: UndoState): ReceiptPart<UndoReceipt> {
  return {
    fields: ({ answered }) => {
      st.goneOf(answered);
      return {
        undo: {
          merge_receipt: mergeReceipt,
          merge_journal: st.mergeJournal,
          changed_rule: st.rule,
          counts: st.counts(),
          not_restored: st.notRestored,
          not_given_back: NOT_GIVEN_BACK,
        },
        groups: [
          ...st.groups.map((g) => undoGroupEntry(g, st.status(g), st.foreign.get(keyOf(g.project_id, g.keep.uuid)))),
          ...st.refused.map((r) => ({ project_id: r.project_id, keep: r.keep, status: r.status, reason: r.reason, persons: [] })),
        ],
      };
    },
    verificationNote:
      'every former person of each group undone was read back from the person store (batch_by_distinct_ids) until its distinct ids and properties were what the undo gives back, or --verify-timeout passed; `not_restored` counts the persons merged away that came back under a new UUID, created_at or is_identified',
    notes: {
      unanswered:
        'sent by a run that stopped before their answer was journaled (it was lost as the run stopped, or the run crashed, was killed or got a second Ctrl-C); the next run undoes them again (each step is safe to repeat)',
      unclear: 'an attempt at these groups did not finish cleanly: it may have been carried out in part; undoing them again is harmless',
      lostAnswers: () => 'undone in a chunk whose answer was lost; undone again',
    },
    incomplete: (r) => r.undo.counts.pending > 0 || r.undo.counts.failed > 0 || r.undo.counts.refused > 0,
    summary: (r) => ({ ...r.undo.counts }),
  };
}

/** A group undone as the receipt lists it: its persons, and why when it failed. */
function undoGroupEntry(g: UndoGroup, status: UndoStatus, foreign?: string): UndoReceipt['groups'][number] {
  return {
    project_id: g.project_id,
    keep: g.keep.uuid,
    status,
    ...(status === 'failed' ? { reason: GONE } : status === 'refused' ? { reason: foreign } : {}),
    ...(g.changed.length ? { changed: g.changed } : {}),
    persons: [g.keep, ...g.merge].map((p) => ({ uuid: p.uuid, distinct_ids: p.distinct_ids })),
  };
}

function undoVerdict(receipt: UndoReceipt, resume: string): Verdict {
  const c = receipt.undo.counts;
  const line = `${n(c.restored)} of ${n(c.groups)} groups restored, ${n(c.pending)} pending`;
  const left = receipt.groups.filter((g) => g.status === 'failed' || g.status === 'refused');
  if (left.length > 0)
    return {
      warnings: [],
      error: new PartialFailureError(
        `${line}; ${n(left.length)} not undone: ${left
          .slice(0, 10)
          .map((g) => (g.status === 'failed' ? `the kept person ${g.keep} no longer exists` : `${g.keep}: ${g.reason}`))
          .join('; ')}`,
        'the receipt lists each group and why; a refused group was left as it is',
      ),
    };
  if (c.pending > 0)
    return {
      warnings: [],
      error: new PartialFailureError(
        line,
        `accepted but not yet read back as given back: ingestion may be slow, or the project may be over its billing limit (capture then answers 200 and drops the events; an ingestion warning or the billing page says so); read back again later with:\n  ${resume}`,
      ),
    };
  return { warnings: [] };
}

/** The kept UUIDs of the groups whose every former person holds exactly what the undo gives back; counts what did not come back. */
async function restoredGroups(
  ctx: Context,
  client: ApiClient,
  project: string,
  groups: UndoGroup[],
  notRestored: NotRestored,
): Promise<string[]> {
  const ids = groups.flatMap((g) => [g.keep, ...g.merge].flatMap((p) => p.distinct_ids));
  const owners = await personsOf(client, project, ids, ctx.deps.signal);
  const done = groups.filter((g) =>
    [g.keep, ...g.merge].every((p) => {
      const person = owners.get(p.distinct_ids[0]);
      return person !== undefined && holdsOwnIdsIn(owners, g, p) && sameValue(person.properties, targetOf(g, p));
    }),
  );
  for (const p of done.flatMap((g) => g.merge)) {
    const person = owners.get(p.distinct_ids[0])!;
    if (person.uuid !== p.uuid) notRestored.uuid++;
    if (p.created_at && Date.parse(person.created_at) !== Date.parse(p.created_at)) notRestored.created_at++;
    // The person store's answer shows is_identified on some servers only: counted where shown.
    if (person.is_identified === undefined) notRestored.is_identified = null;
    else if (notRestored.is_identified !== null && person.is_identified !== p.is_identified) notRestored.is_identified++;
  }
  return done.map((g) => g.keep.uuid);
}
/**
 * What --undo gives back: the groups the merge's receipt calls merged, as the merge's journal kept
 * them (each person's distinct ids and properties, before the merge).
 */
export async function readMergeToUndo(
  receiptPath: string,
): Promise<{ text: string; mergeJournal: string; groups: RecordedGroup[]; made: { host: string; projects: string[] } }> {
  let text: string;
  let receipt: {
    command?: string;
    journal?: unknown;
    undo?: unknown;
    host?: unknown;
    groups?: { status: string; keep: string; project_id: string }[];
  };
  try {
    text = await readFile(receiptPath, 'utf8');
    receipt = JSON.parse(text) as typeof receipt;
  } catch {
    throw new UsageError(`cannot read ${receiptPath} as the receipt of a merge`, 'give the receipt `hogctl persons merge` wrote');
  }
  const earlier = earlierReceiptError(receiptPath, receipt);
  if (earlier) throw earlier;
  if (
    receipt.command !== 'persons merge' ||
    typeof receipt.journal !== 'string' ||
    typeof receipt.host !== 'string' ||
    !Array.isArray(receipt.groups) ||
    receipt.undo
  )
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
  return {
    text,
    mergeJournal: receipt.journal,
    groups: header.groups.filter((g) => merged.has(keyOf(g.project_id, g.keep.uuid))),
    made: { host: receipt.host, projects: [...new Set(receipt.groups.map((g) => g.project_id))] },
  };
}
