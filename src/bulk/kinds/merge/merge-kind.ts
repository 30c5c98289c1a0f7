// A merge of duplicate persons as a kind of bulk job (src/bulk/engine/action.ts): the engine plans,
// confirms, journals, locks, sends, resumes and writes the receipt; this file says what a merge
// is to it.
//
// - Its input is its own (JobInput `own`): groups of persons, per project. The persons the engine
//   sends are the kept ones, one a group; a chunk of kept persons is one capture request of the
//   `$merge_dangerously` events of their groups (one per person merged away, sent from one of the
//   kept person's distinct ids, so capture keeps them in order: docs/server-contract.md §14.6).
// - Before the plan every person is read again (reads only): one merged into its own group since
//   it was listed is left out, one its group's project does not hold is refused (`readNow`), and
//   the person kept is chosen by the rule. The journal's header keeps each group as it was (every
//   person's distinct ids and properties): what --undo gives back, and where --resume takes the
//   groups from, because the persons merged away no longer exist (`targets`).
// - An event's UUID comes from the journal's nonce and the person merged away, so a request sent
//   again after a lost answer carries the same events; a merge applied twice is a no-op (both ids
//   name one person already, B.3.5).
// - The verification reads the person store back until each group is one person holding every
//   distinct id (E.4), or --verify-timeout passes; the receipt lists each group as merged,
//   pending or failed.
//
// Never across projects: a group is read, planned and sent in its own project. Never a person
// created: an event is sent only for two distinct ids that each name a person read just before
// (a merge of two ids without persons would create one, B.3.5).
import { randomBytes } from 'node:crypto';
import type { Context } from '../../../context.js';
import { FIRST_POLL_MS, nextPollDelay } from '../../../sleep.js';
import { counted, formatNumber } from '../../../io/counts.js';
import { NotFoundError, PartialFailureError, UsageError } from '../../../errors.js';
import { createSecretFile } from '../../../config/secret-file.js';
import { signedPlanText } from '../../../config/signed-plan.js';
import type { ApiClient } from '../../../http/client.js';
import { batchBody, stampToSend, sendBatch, type CaptureEvent } from '../../../api/capture.js';
import type { ActionEnv, BulkAction, JobKind, JobVerification, TargetsEnv, Verdict, VerifyEnv } from '../../engine/action.js';
import type { ChunkRecord, JournalHeader } from '../../engine/journal-format.js';
import type { Receipt, ReceiptPart } from '../../engine/receipt.js';
import type { CaseTargets } from '../../input/targets.js';
import { readPersons, type Candidate } from '../../../merge/find-duplicates.js';
import { DEFAULT_EVENTS_SINCE, parseEventsSince } from '../../../merge/events-since.js';
import { lowerAscii, nearAddress } from '../../input/identifiers.js';
import {
  KEEP_MEANS,
  PROPERTY_RULE,
  expectedProperties,
  planGroups,
  type InputGroup,
  type KeepRule,
  type LeftOut,
  type PlannedGroup,
} from '../../../merge/plan-groups.js';
import { captureClient, mergeEvent, mergedGroups, type CaptureTarget } from './merge-events.js';
import { captureAttempt } from '../../engine/capture-attempt.js';
import { notGivenBackLines } from './not-given-back.js';
import { whoIs } from '../../../merge/who.js';
import { PLAN_FORMAT } from '../../../merge/read-groups.js';

const n = formatNumber;

/** Groups a capture request carries: their events, one per person merged away, go together. */
export const GROUPS_A_REQUEST = 100;
/** Capture is not throttled like the REST API; this only keeps a run from flooding a small instance. */
const CAPTURE_PER_MINUTE = 600;

/** A person as the journal keeps it: what --undo gives back. */
export interface KeptPerson {
  uuid: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  /** As read before the merge: what an undo counts as given back or not. */
  created_at: string;
  is_identified: boolean;
}

/** A group as the journal keeps it. */
export interface RecordedGroup {
  project_id: string;
  keep: KeptPerson;
  merge: KeptPerson[];
}

/** The merge's field of the journal's header. */
export interface MergeHeader {
  /** Names the events, the same on every run of the job. */
  nonce: string;
  /** The events' timestamp. */
  timestamp: string;
  /** How the kept persons were chosen: "oldest", "as the plan says". */
  keep: KeepLabel;
  property_rule: string;
  groups: RecordedGroup[];
  /** Persons of the groups that are not merged, and why. */
  left_out: LeftOut[];
}

/** How the kept persons are chosen: by a --keep rule, or as the reviewed plan names them. */
type KeepLabel = KeepRule | 'as the plan says';

/** The merge's header field of a journal, if it is a merge's. */
export function mergeHeaderOf(header: JournalHeader | undefined): MergeHeader | undefined {
  const m = header?.merge as MergeHeader | undefined;
  return m && Array.isArray(m.groups) ? m : undefined;
}

export type GroupStatus = 'merged' | 'pending' | 'failed';

export interface MergeCounts {
  groups: number;
  merged: number;
  pending: number;
  failed: number;
  persons_merged_away: number;
  left_out: number;
}

/** The merge's fields of the receipt. */
export type MergeReceipt = Receipt & {
  merge: { keep: string; property_rule: string; counts: MergeCounts };
  groups: { project_id: string; status: GroupStatus; keep: string; merged: string[]; distinct_ids: string[]; reason?: string }[];
  left_out: LeftOut[];
};

export interface MergeSettings {
  /** The groups read from the input; on --resume the journal's stand instead. */
  groups: InputGroup[];
  keep: KeepRule;
  /** A reviewed plan (or one group given as arguments): its kept persons stand. */
  fromPlan: boolean;
  verifyTimeoutMs: number;
  /** Where the capture requests go (runCaptureHost): recorded in the journal. */
  captureHost: string;
}

export interface MergeKind extends JobKind<MergeReceipt> {
  /** The groups as planned (after targets). */
  planned(): { groups: PlannedGroup[]; leftOut: LeftOut[] };
}

const slim = (p: Candidate): KeptPerson => ({
  uuid: p.uuid,
  distinct_ids: p.distinct_ids,
  properties: p.properties,
  created_at: p.created_at,
  is_identified: p.is_identified,
});
const full = (p: KeptPerson): Candidate => ({ ...p, last_seen: null, event_count: 0 });
const keyOf = (project: string, uuid: string) => `${project}:${uuid}`;

/** What a merge learns as it goes: its groups (planned, or as the journal recorded them), the
 * rule that kept their persons, and what the verification found per group. */
class MergeState {
  groups: PlannedGroup[] = [];
  leftOut: LeftOut[] = [];
  recordedKeep: KeepLabel;
  /** Per group (project:kept uuid): what the verification found. */
  readonly found = new Map<string, { status: GroupStatus; reason?: string }>();

  constructor(readonly keepLabel: KeepLabel) {
    this.recordedKeep = keepLabel;
  }

  byKeep(): Map<string, PlannedGroup> {
    return new Map(this.groups.map((g) => [keyOf(g.project_id, g.keep.uuid), g]));
  }

  statusOf(g: PlannedGroup): GroupStatus {
    return this.found.get(keyOf(g.project_id, g.keep.uuid))?.status ?? 'pending';
  }

  counts(): MergeCounts {
    const c = { groups: this.groups.length, merged: 0, pending: 0, failed: 0, persons_merged_away: 0, left_out: this.leftOut.length };
    for (const g of this.groups) {
      const st = this.statusOf(g);
      c[st]++;
      if (st === 'merged') c.persons_merged_away += g.merge.length;
    }
    return c;
  }
}

export function mergeKind(s: MergeSettings): MergeKind {
  const st = new MergeState(s.fromPlan ? 'as the plan says' : s.keep);
  return {
    words: { job: 'merge', request: 'merge event', done: 'merged', unit: 'groups' },
    journal: {
      command: 'persons merge',
      // The groups are bound by the input's hash (and on --resume come from the journal); what
      // PostHog makes of the properties is the rule the journal was written under.
      binding: { fields: { merge_rule: PROPERTY_RULE }, describe: () => 'the property rule of an earlier hogctl' },
      hashesIdentifiers: false,
      header: (startedAt): { merge: MergeHeader; capture_host: string } => ({
        capture_host: s.captureHost,
        merge: {
          nonce: randomBytes(16).toString('hex'),
          timestamp: startedAt,
          keep: st.keepLabel,
          property_rule: PROPERTY_RULE,
          groups: st.groups.map((g) => ({ project_id: g.project_id, keep: slim(g.keep), merge: g.merge.map(slim) })),
          left_out: st.leftOut,
        },
      }),
    },
    requests: {
      sendsIdsAsGiven: false,
      chunkSize: GROUPS_A_REQUEST,
      windows: [{ limit: CAPTURE_PER_MINUTE, windowMs: 60_000 }],
      snapshot: () => false,
      targets: (ctx, env) => mergeTargets(ctx, env, s, st),
      makeAction: async (ctx, env) => mergeAction(ctx, env, s.captureHost, st),
    },
    check: {
      verify: (ctx, env) => verifyMerge(ctx, env, s.verifyTimeoutMs, st),
      verdict: (receipt, o) => mergeVerdict(receipt, o.resume),
    },
    receipt: mergeReceipt(st),
    planOut: { applyWith: '--groups', write: (path, env) => writeMergePlan(path, st, env) },
    planned: () => ({ groups: st.groups, leftOut: st.leftOut }),
  };
}

/** The groups: as the journal recorded them on --resume, else read now and planned by the rule. */
async function mergeTargets(ctx: Context, env: TargetsEnv, s: MergeSettings, st: MergeState): Promise<CaseTargets> {
  const recorded = mergeHeaderOf(env.journal?.header);
  if (recorded) {
    // Continued: the groups as they were, from the journal (the persons merged away are gone).
    st.groups = recorded.groups.map((g) => {
      const keep = full(g.keep);
      const merge = g.merge.map(full);
      return { project_id: g.project_id, keep, merge, expected_properties: expectedProperties(keep, merge) };
    });
    st.leftOut = recorded.left_out;
    st.recordedKeep = recorded.keep;
    // The groups not sent yet are read again, as a first run reads them before it sends: a person
    // merged elsewhere since is not found by its UUID, and its distinct id, sent as the alias,
    // would merge a person of no group into the kept one. readNow refuses then; nothing is sent.
    const sent = env.journal?.answeredIds();
    const open = st.groups
      .map((g, i) => ({ project_id: g.project_id, persons: [g.keep, ...g.merge], where: `recorded group ${i + 1}` }))
      .filter((g) => !sent?.has(g.persons[0].uuid));
    if (env.client && open.length) await readNow(ctx, env.client, open, env.maxWaitMs);
  } else {
    const now = env.client ? await readNow(ctx, env.client, s.groups, env.maxWaitMs) : { groups: s.groups, gone: [] };
    const plan = planGroups(now.groups, s.keep);
    st.groups = plan.planned;
    st.leftOut = [...now.gone, ...plan.leftOut];
  }
  return targetsOf(env.projects, st.groups);
}

/** A chunk of kept persons is one capture request: the merge events of their groups. */
function mergeAction(ctx: Context, env: ActionEnv, host: string, st: MergeState): BulkAction<MergeReceipt> {
  const away = st.groups.reduce((k, g) => k + g.merge.length, 0);
  const captures = new Map<string, CaptureTarget>();
  let stamp: { nonce: string; timestamp: string } | undefined;
  const planned = st.byKeep();
  return {
    title: 'merge duplicate persons',
    request: `POST ${host}/batch/ ($merge_dangerously events, one a person merged away, ${GROUPS_A_REQUEST} groups a request)`,
    flags: st.recordedKeep === 'as the plan says' ? 'as the plan names them' : keptBy(st.recordedKeep),
    flagsLabel: 'kept',
    planLines: planLines(st.groups, st.leftOut),
    confirmation: (count) =>
      `This merges ${counted(away, 'person')} into ${counted(count, 'kept person', 'kept persons')}. PostHog cannot undo a merge; hogctl persons merge --undo <receipt> can, from the journal`,
    reversible: true,
    scope: 'project:read',
    prepare: async (journal) => {
      stamp = mergeHeaderOf(journal.header);
      if (!env.client) return;
      // The project API key of every project with groups, read now: a key that cannot read one
      // stops the run before anything is sent.
      for (const p of env.targets.projects)
        if (p.ids.length && !captures.has(p.id)) captures.set(p.id, await captureClient(ctx, env.client, p.id, host));
    },
    attempt: async (chunk) => {
      const project = chunk.project ?? env.projects[0];
      const capture = captures.get(project);
      if (!capture || !stamp) throw new Error('a dry run sends nothing');
      const events = mergeEvents(planned, project, chunk.ids, stampToSend(stamp, ctx.clock.now()));
      if (events.length === 0) return { kind: 'ok', status: 200, summary: null };
      // Not cut short by Ctrl-C: the runner waits for the requests in flight, so that their
      // answers are journaled (a second Ctrl-C quits without them).
      return captureAttempt(
        () => sendBatch(capture.client, batchBody(capture.key, events), { timeoutMs: env.timeoutMs }),
        ctx.clock.now,
        { host: capture.host, project },
        'no group of that request is counted as merged',
      );
    },
    targetNoun: 'groups',
    checkedLost: () => '',
    account: (receipt) => {
      const c = receipt.merge?.counts;
      if (!c) return `${n(receipt.counts.sent)} groups sent`;
      return `${n(c.merged)} of ${n(c.groups)} groups merged (${n(c.persons_merged_away)} persons merged away), ${n(c.pending)} pending, ${n(c.failed)} failed`;
    },
    describeAnswer: ({ status }) => `accepted (${status})`,
  };
}

/** The `$merge_dangerously` events of the groups these kept persons lead, one per person merged away. */
function mergeEvents(
  planned: Map<string, PlannedGroup>,
  project: string,
  kept: string[],
  sent: ReturnType<typeof stampToSend>,
): CaptureEvent[] {
  const events: CaptureEvent[] = [];
  for (const uuid of kept) {
    const g = planned.get(keyOf(project, uuid));
    if (!g) continue;
    const into = g.keep.distinct_ids[0];
    for (const other of g.merge) events.push(mergeEvent({ into, alias: other.distinct_ids[0], person: other.uuid }, sent, project));
  }
  return events;
}

/** Reads each group sent back until it is one person, or --verify-timeout passes: those capture
 * accepted, and those whose request may have been carried out though its answer was lost. */
async function verifyMerge(ctx: Context, env: VerifyEnv, verifyTimeoutMs: number, st: MergeState): Promise<JobVerification> {
  const sent = env.journal.answeredIds();
  for (const c of env.journal.chunks.values()) if (lostItsAnswers(c)) for (const id of c.ids) sent.add(id);
  const started = ctx.clock.now();
  const waiting = (g: PlannedGroup) => sent.has(g.keep.uuid) && !st.found.has(keyOf(g.project_id, g.keep.uuid));
  const projects = [...new Set(st.groups.map((g) => g.project_id))];
  for (let delay = FIRST_POLL_MS; ; delay = nextPollDelay(delay, 5_000)) {
    for (const project of projects) await readBackGroups(ctx, env.client, project, st, waiting);
    if (!st.groups.some(waiting) || ctx.clock.now() - started + delay > verifyTimeoutMs) break;
    await ctx.clock.sleep(delay, ctx.deps.signal);
  }
  const c = st.counts();
  const status = c.pending === 0 ? 'finished' : 'timed_out';
  const total = { status, merged: c.merged, pending: c.pending, failed: c.failed };
  return { total, perProject: new Map() };
}

/** One read-back of a project's groups still waiting: those now one person are merged. */
async function readBackGroups(
  ctx: Context,
  client: ApiClient,
  project: string,
  st: MergeState,
  waiting: (g: PlannedGroup) => boolean,
): Promise<void> {
  const pending = st.groups
    .filter((g) => g.project_id === project && waiting(g))
    .map((g, index) => ({ index, keep: g.keep.uuid, distinctIds: [g.keep, ...g.merge].flatMap((p) => p.distinct_ids) }));
  if (pending.length === 0) return;
  const done = await mergedGroups(ctx, client, project, pending);
  if (done === null) {
    for (const p of pending)
      st.found.set(keyOf(project, p.keep), { status: 'failed', reason: 'the server has no batch_by_distinct_ids to check the merge with' });
    return;
  }
  for (const i of done) st.found.set(keyOf(project, pending[i].keep), { status: 'merged' });
}

/** The merge's part of the receipt: each group, merged, pending or failed. */
function mergeReceipt(st: MergeState): ReceiptPart<MergeReceipt> {
  return {
    fields: ({ chunks, answered }) => {
      const keys = (of: ChunkRecord[]) => new Set(of.flatMap((chunk) => Array.from(chunk.ids, (id) => keyOf(chunk.project, id))));
      const sent = { accepted: keys(answered), unclear: keys(chunks.filter(lostItsAnswers)) };
      return {
        merge: { keep: st.recordedKeep, property_rule: PROPERTY_RULE, counts: st.counts() },
        groups: st.groups.map((g) => groupEntry(g, st, sent)),
        left_out: st.leftOut,
      };
    },
    verificationNote:
      'each group sent was read back (batch_by_distinct_ids) until every distinct id of the group named the kept person, or --verify-timeout passed; `groups` says per group merged, pending or failed',
    notes: {
      unanswered:
        'sent by a run that stopped before their answer was journaled (it was lost as the run stopped, or the run crashed, was killed or got a second Ctrl-C); the next run sends the same events again (a merge applied twice is applied once)',
      unclear:
        'an attempt at these requests timed out, lost its answer or met a server error: it may have been carried out; sending the same events again is harmless',
      lostAnswers: () => 'sent in a request whose answer was lost; sent again with the same events',
    },
    incomplete: (r) => r.merge.counts.pending > 0 || r.merge.counts.failed > 0,
    summary: (r) => ({ ...r.merge.counts }),
  };
}

/** A request that failed after an attempt whose answer was lost: it may have been carried out. */
const lostItsAnswers = (c: ChunkRecord) => !c.answer && (c.failure?.unclear ?? 0) > 0;

/** A group as the receipt lists it: its status, and why when it is not merged. */
function groupEntry(
  g: PlannedGroup,
  st: MergeState,
  sent: { accepted: Set<string>; unclear: Set<string> },
): MergeReceipt['groups'][number] {
  const key = keyOf(g.project_id, g.keep.uuid);
  const status = st.statusOf(g);
  const pendingReason = sent.accepted.has(key) ? PENDING_REASON : sent.unclear.has(key) ? LOST_REASON : 'not sent';
  const reason = status === 'failed' ? st.found.get(key)?.reason : status === 'pending' ? pendingReason : undefined;
  return {
    project_id: g.project_id,
    status,
    keep: g.keep.uuid,
    merged: g.merge.map((p) => p.uuid),
    distinct_ids: [g.keep, ...g.merge].flatMap((p) => p.distinct_ids).sort(),
    ...(reason ? { reason } : {}),
  };
}

/** --plan-out: every group with its kept person, as `--groups` reads it back, signed (0600, never replacing a file). */
async function writeMergePlan(path: string, st: MergeState, env: NodeJS.ProcessEnv): Promise<void> {
  const body = {
    format: PLAN_FORMAT,
    keep: st.keepLabel,
    property_rule: PROPERTY_RULE,
    groups: st.groups.map((g) => ({
      project_id: g.project_id,
      keep: g.keep.uuid,
      persons: [g.keep, ...g.merge],
      expected_properties: g.expected_properties,
    })),
    left_out: st.leftOut,
  };
  if (!createSecretFile(path, signedPlanText(body, env)))
    throw new UsageError(`${path} exists: --plan-out does not replace a file`, 'give another path, or remove it');
}

/**
 * Why a group capture accepted may still not be one person. Capture's 200 says only that the
 * events were taken: a project over its billing limit gets the same 200 and its events are dropped
 * (rust/capture/src/v0_endpoint.rs `event()`, docs/server-contract.md §14.1), and ingestion
 * refuses some merges, naming why in an ingestion warning.
 */
const PENDING_REASON =
  "accepted by capture but not applied when the read-back stopped: ingestion may be slow, the project may be over its billing limit (capture answers 200 and drops the events), or PostHog refused the merge (an ingestion warning in the project's Data management says why, e.g. a merge over the size limit)";

/** Why a group whose request lost its answer is not merged yet. */
const LOST_REASON =
  'sent, but every attempt lost its answer (a timeout, a dropped connection or a server error): capture may have taken the events, and the group may be merged; --resume sends the same events again and reads the group back (a merge applied twice is applied once)';

/** Groups sent but not (yet) one person are a failure to report (exit 8); --resume reads them back again. */
function mergeVerdict(receipt: MergeReceipt, resume: string): Verdict {
  const c = receipt.merge.counts;
  if (!receipt.verification) {
    if (receipt.status === 'dry_run' || c.groups === 0) return { warnings: [] };
    return { warnings: ['the groups were not read back: the receipt cannot say whether they are merged'] };
  }
  if (c.pending === 0 && c.failed === 0) return { warnings: [] };
  return {
    warnings: [],
    error: new PartialFailureError(
      `${n(c.merged)} of ${n(c.groups)} groups merged (${n(c.persons_merged_away)} persons merged away), ${n(c.pending)} pending, ${n(c.failed)} failed; the receipt lists each group`,
      `read them back again later with:\n  ${resume}\n` +
        "if they stay pending, capture took the events but PostHog did not apply them: check the organization's billing limits and the project's ingestion warnings (Data management), then merge those groups again in a new run (a merge applied twice is applied once)",
    ),
  };
}

/** The engine's persons of a merge or its undo: per project, the kept person of each group. */
export function targetsOf(
  projects: { id: string; name: string | null; unreachable?: string }[],
  groups: { project_id: string; keep: { uuid: string } }[],
): CaseTargets {
  return {
    projects: projects.map((p) => ({
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
}

/** `by --keep identified (an identified person, then …)`. */
function keptBy(rule: KeepRule): string {
  return `by --keep ${rule} (${KEEP_MEANS[rule]})`;
}

/**
 * The plan's lines of a merge: the groups, a few of them as they will be merged with who each
 * person is (who.ts: e-mail, name, identified, events, created, last seen: what the reviewer
 * checks the kept person by), whose properties win, who is left out.
 */
function planLines(groups: PlannedGroup[], leftOut: LeftOut[]): string[] {
  const away = groups.reduce((k, g) => k + g.merge.length, 0);
  const lines = [`  groups    ${n(groups.length)} (${counted(away, 'person')} merged away, each into its group's kept person)`];
  for (const g of groups.slice(0, 5)) {
    lines.push(`            keep ${g.keep.uuid} (${g.keep.distinct_ids[0]}): ${whoIs(g.keep)}`);
    for (const p of g.merge) lines.push(`              ← ${p.uuid} (${p.distinct_ids[0]}): ${whoIs(p)}`);
  }
  if (groups.length > 5) lines.push(`            … and ${n(groups.length - 5)} more groups (--plan-out writes them all)`);
  lines.push(`  properties ${PROPERTY_RULE}`);
  lines.push(...uncleanLines(groups));
  // Said before the merge, not after: what `--undo` will not be able to give back.
  lines.push(...notGivenBackLines('  undo      `persons merge --undo <receipt>` gives back distinct ids and properties, not:'));
  if (leftOut.length > 0) lines.push(`  left out  ${counted(leftOut.length, 'person')}:`);
  for (const l of leftOut.slice(0, 20)) lines.push(`            ${l.uuid} (project ${l.project_id}): ${l.reason}`);
  if (leftOut.length > 20) lines.push(`            … and ${n(leftOut.length - 20)} more (--plan-out lists them all)`);
  return lines;
}

/** The warning of groups that keep an address only lookups' near-match finds over a clean one. */
function uncleanLines(groups: PlannedGroup[]): string[] {
  const unclean = groups.filter((g) => isNearOnly(g.keep.properties.email) && g.merge.some((p) => isClean(p.properties.email)));
  if (unclean.length === 0) return [];
  const lines = [
    `  warning   ${counted(unclean.length, 'group keeps', 'groups keep')} an e-mail address with spaces around it or a trailing dot where another person of the group has it clean; after the merge \`persons get --email\` and an erasure by that address find the person only as a near-match:`,
  ];
  for (const g of unclean.slice(0, 5)) lines.push(`            ${g.keep.uuid} keeps ${JSON.stringify(g.keep.properties.email)}`);
  if (unclean.length > 5) lines.push(`            … and ${n(unclean.length - 5)} more groups (--plan-out writes them all)`);
  lines.push('            choose another --keep, or set the address after the merge (`hogctl persons set-prop <uuid> email <address>`)');
  return lines;
}

/** An address that the e-mail lookups match only as a near-match (bulk/input/identifiers.ts
 * nearAddress: spaces around it, a trailing dot), and one they match exactly. The kept person's
 * properties win a merge (PROPERTY_RULE), so a group that keeps the first and merges away the
 * second leaves its person harder to find by address, an erasure's included. */
const isNearOnly = (email: unknown) => typeof email === 'string' && nearAddress(email) !== lowerAscii(email);
const isClean = (email: unknown) => typeof email === 'string' && email.includes('@') && nearAddress(email) === lowerAscii(email);

/**
 * The groups as they are now on the server, each person read again. A person whose distinct ids
 * now name another person of its group was merged into it since it was listed: left out, as the
 * merge it was meant for is done. A person found neither by its UUID nor through its distinct ids
 * in its group's project (of another project, never there, deleted or merged elsewhere since) makes
 * the file wrong about the project: refused (exit 3, as `merge <keep> <other>` says a person it
 * cannot find), naming the group and the person, before anything is sent.
 */
async function readNow(
  ctx: Context,
  client: ApiClient,
  groups: InputGroup[],
  maxWaitMs: number,
): Promise<{ groups: InputGroup[]; gone: LeftOut[] }> {
  const byProject = new Map<string, InputGroup[]>();
  for (const g of groups) byProject.set(g.project_id, [...(byProject.get(g.project_id) ?? []), g]);
  const fresh: InputGroup[] = [];
  const gone: LeftOut[] = [];
  const missing: string[] = [];
  for (const [project, list] of byProject) {
    const read = (values: { uuids: string[]; distinctIds: string[] }) =>
      readPersons(ctx, client, project, values, maxWaitMs, parseEventsSince(DEFAULT_EVENTS_SINCE, ctx.clock.now()));
    const { persons } = await read({ uuids: list.flatMap((g) => g.persons.map((p) => p.uuid)), distinctIds: [] });
    const lost = list.flatMap((g) => g.persons.filter((p) => !persons.has(p.uuid)));
    // Only when someone is not found by UUID: where its distinct ids are now.
    const { byDistinctId } =
      lost.length > 0
        ? await read({ uuids: [], distinctIds: lost.flatMap((p) => p.distinct_ids) })
        : { byDistinctId: new Map<string, string>() };
    for (const [gi, g] of list.entries()) {
      const now: Candidate[] = [];
      const uuids = new Set(g.persons.map((p) => p.uuid));
      for (const [i, p] of g.persons.entries()) {
        const current = persons.get(p.uuid);
        const into = p.distinct_ids.map((id) => byDistinctId.get(id)).find((u) => u !== undefined && uuids.has(u) && u !== p.uuid);
        if (current) now.push(current);
        else if (into !== undefined)
          gone.push({ project_id: project, uuid: p.uuid, reason: `merged into ${into}, of its group, since it was listed` });
        else missing.push(`${g.where ?? `group ${gi + 1}`} person ${i + 1} (${p.uuid})`);
      }
      fresh.push({ ...g, persons: now });
    }
    if (missing.length > 0)
      throw new NotFoundError(
        `no person in project ${project} is ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ` and ${n(missing.length - 10)} more` : ''}: neither its UUID nor its distinct ids name a person there; nothing was sent`,
        'a person of another project, never in this one, or deleted or merged elsewhere since it was listed: list the duplicates again (`hogctl persons duplicates -o json`)',
      );
  }
  return { groups: fresh, gone };
}
