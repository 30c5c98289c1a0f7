// Everything a bulk job settles before it asks anyone anything: the input read whole and checked
// (a file of identifiers, a selection, or a reviewed plan), the projects, the journal (a new one,
// or the run to resume), the persons found in each project, the action, and the chunks still to
// send. Reads only: nothing is changed on the server here.
import type { Context } from '../../context.js';
import { CancelledError, UsageError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import type { OutputSettings } from '../../io/output.js';
import type { BulkAction, JobKind } from './action.js';
import { bindJournal, type BoundJournal } from './bind-journal.js';
import { chunksThen, lazyChunks, resendChunks, type ChunkList } from './chunk.js';
import { IdSet, type Ids } from '../input/id-set.js';
import type { JournalState } from './journal-state.js';
import { CLEAR, keyedPolicy, listBinding, policyOfJournal, type IdentifierPolicy } from '../input/identifiers.js';
import { evidenceKey, readEvidenceKey } from '../../config/evidence-key.js';
import { readJobInput, selectionOf, type Input } from '../input/input.js';
import { planPolicy, planTargets, type PlanFile } from './plan-file.js';
import { caseProjects, spansProjects, type CaseProject } from './projects.js';
import { RateBudget, readBurst } from './rate.js';
import { checkSelection } from '../input/selection.js';
import type { IdKind } from '../input/validate.js';
import { checkWritableDir, selectionKey, type RunSettings } from './settings.js';
import { checkBackup } from './snapshot.js';
import { findTargets, type CaseTargets } from '../input/targets.js';

/** A request may take a while on a busy server (deleting 1000 persons); --timeout overrides it. */
const BULK_TIMEOUT_MS = 120_000;

export interface Prepared {
  s: RunSettings;
  kind: JobKind;
  host: string;
  profile: string | null;
  startedAt: string;
  output: OutputSettings;
  /** --plan: the reviewed plan applied. */
  plan?: PlanFile;
  input: Input;
  /** How identifiers are named in the journal and the receipt. */
  policy: IdentifierPolicy;
  /** Whether the persons were looked up (else a plain file goes out as it is). */
  lookUp: boolean;
  client?: ApiClient;
  /** The read budget of the job: every lookup, check and verification shares it. */
  reads: RateBudget;
  projects: string[];
  /** A job over several projects (named, or all). */
  spans: boolean;
  bound: BoundJournal;
  targets: CaseTargets;
  action: BulkAction;
  /** How many ids earlier runs had answered: never sent again. */
  done: { size: number };
  chunks: ChunkList;
  remaining: number;
  timeoutMs: number;
  receiptPath?: string;
}

export async function prepareJob(ctx: Context, s: RunSettings, kind: JobKind): Promise<Prepared> {
  const job = await settleJob(ctx, s, kind);
  const { plan, input, client, reads, lookUp, bound } = job;
  const targets = await findJobTargets(ctx, s, kind, plan, input.list, { ...job, journal: bound.state });
  if (ctx.deps.signal?.aborted) throw new CancelledError('cancelled; nothing was changed');

  const timeoutMs = ctx.timeoutMs(BULK_TIMEOUT_MS);
  const action = await kind.requests.makeAction(ctx, {
    client,
    projects: job.projects,
    kind: input.list.kind,
    timeoutMs,
    reads,
    targets,
    asGiven: !lookUp && !plan,
    journal: bound.state,
    dryRun: Boolean(s.dryRun),
  });
  const { chunks, done } = chunksToSend(kind, bound.state, targets);
  const receiptPath = s.receipt ?? (s.dryRun ? undefined : bound.path.replace(/\.ndjson$/, '') + '.receipt.json');
  await checkOutputDirs(s);
  // The selection and the projects reached served the lookup; the job keeps their results.
  const { selection: _selection, reached: _reached, ...settled } = job;
  return { ...settled, s, kind, targets, action, done, chunks, remaining: chunks.ids, timeoutMs, receiptPath };
}

/** What the job is: the input and how its identifiers are named, the projects, and the journal
 * (new, or the run to continue). A completed run started again is refused here. */
async function settleJob(ctx: Context, s: RunSettings, kind: JobKind) {
  const head = await jobHead(ctx, s);
  const plan = s.reviewed;
  const { input, selection } = await readInput(ctx, s, plan);
  const { list } = input;
  const policy = identifierPolicy(ctx, s, kind, list.kind, plan);
  // Keyed, the hash that binds the journal and the receipt to the identifiers cannot be checked
  // against a guessed list either.
  if (!plan) list.sha256 = listBinding(list.sha256, policy);

  const reads = new RateBudget(s.readPerMinute, ctx.clock, readBurst(s.readPerMinute));
  const { lookUp, client, reached } = await reachProjects(ctx, s, kind, list.kind, plan);
  const projects = reached.map((p) => p.id);
  const spans = spansProjects(s) || projects.length > 1;
  const bound = await bindJobJournal(ctx, s, kind, input, { host: head.host, projects });
  refuseFinishedRun(s, kind, bound, input, Boolean(selection));
  // Read, the list is looked up by its UUIDs alone (journal requests, ids sent): the map of its
  // other ids (a million addresses: 50 MB) may go.
  if (list.ids instanceof IdSet) list.ids.letLookupGo();
  if (s.backup && !s.dryRun) await checkBackup(s.backup, Boolean(bound.state));
  return { ...head, plan, input, selection, policy, reads, lookUp, client, reached, projects, spans, bound };
}

/** Where and when the job runs, and where its report goes. */
async function jobHead(ctx: Context, s: RunSettings) {
  const { baseUrl: host, profileName } = await ctx.settings();
  const profile = profileName ?? null;
  const startedAt = new Date(ctx.clock.now()).toISOString();
  // Checked now: a bad -o must stop the run before anything is sent, not after.
  const output = await ctx.output({ remembered: s.output });
  return { host, profile, startedAt, output };
}

/** What the lookup of the persons starts from. */
interface TargetSources {
  client: ApiClient | undefined;
  reached: CaseProject[];
  journal: JournalState | undefined;
  reads: RateBudget;
  lookUp: boolean;
  policy: IdentifierPolicy;
  selection: ReturnType<typeof selectionOf>;
}

/** The persons the job acts on, project by project: the reviewed plan's, those the kind finds
 * from its own input, or those the list names (looked up, or as given). */
async function findJobTargets(
  ctx: Context,
  s: RunSettings,
  kind: JobKind,
  plan: PlanFile | undefined,
  list: Input['list'],
  f: TargetSources,
): Promise<CaseTargets> {
  if (plan) return planTargets(plan, readEvidenceKey(ctx.env));
  if (kind.requests.targets)
    return await kind.requests.targets(ctx, {
      client: f.client,
      projects: f.reached,
      journal: f.journal,
      reads: f.reads,
      maxWaitMs: s.maxWaitMs,
    });
  const { lookUp, policy, selection, reads } = f;
  return await findTargets(ctx, f.client, f.reached, list, f.journal, {
    lookUp,
    policy,
    selection,
    maxWaitMs: s.maxWaitMs,
    reads,
    concurrency: s.concurrency,
  });
}

/** The job's input read whole and checked; `selection`: when the input is a selection of persons. */
async function readInput(ctx: Context, s: RunSettings, plan: PlanFile | undefined) {
  const selection = selectionOf(s.input);
  if (selection) checkSelection(selection);
  const input = await readJobInput(ctx, s.input, {
    skipInvalid: s.skipInvalid,
    reviewed: plan,
    selectionSha256: selection ? await selectionKey(ctx, s) : undefined,
  });
  const { list } = input;
  if (s.keepIdentifiers && list.kind !== 'emails' && list.kind !== 'mixed' && !plan)
    throw new UsageError(
      `--keep-identifiers goes with e-mail addresses or a mixed file of identifiers, and ${input.label} holds ${list.kind === 'distinct_ids' ? 'distinct ids' : 'person ids'}`,
      'drop --keep-identifiers: person ids and distinct ids are kept as they are',
    );
  return { input, selection };
}

/** Identifiers that are personal data are named by a keyed hash in the journal, the receipt and
 * the plan (the evidence key, created here on first need); a journal continued keeps its own. */
function identifierPolicy(ctx: Context, s: RunSettings, kind: JobKind, idKind: IdKind, plan: PlanFile | undefined): IdentifierPolicy {
  if (plan) return planPolicy(plan, ctx.env);
  if (s.identifiers) return policyOfJournal(s.identifiers, ctx.env, s.journal ?? 'being continued');
  const personal = idKind === 'emails' || idKind === 'mixed';
  return kind.journal.hashesIdentifiers && personal && !s.keepIdentifiers ? keyedPolicy(evidenceKey(ctx.env)) : CLEAR;
}

/** Whether the persons are looked up, the client (none for a dry run that asks nothing) and the
 * projects reached. A plain file of ids for one project may go out as it is; everything else is
 * looked up first, reads only, even in a dry run: the plan needs what they find. */
async function reachProjects(ctx: Context, s: RunSettings, kind: JobKind, idKind: IdKind, plan: PlanFile | undefined) {
  const plainIds = idKind === 'person_ids' || (idKind === 'distinct_ids' && !kind.requests.looksUpDistinctIds);
  const lookUp = !plan && (!plainIds || !kind.requests.sendsIdsAsGiven || spansProjects(s) || Boolean(s.planOut));
  const client = s.dryRun && !lookUp ? undefined : await ctx.api();
  const reached: CaseProject[] = plan
    ? plan.projects.map((p) => ({ id: p.project, name: p.name, ...(p.unreachable ? { unreachable: p.unreachable } : {}) }))
    : // A kind's own input names its projects (a merge's groups each name theirs).
      await caseProjects(ctx, client, s.input.kind === 'own' ? { projects: s.input.own.projects } : s);
  return { lookUp, client, reached };
}

function bindJobJournal(
  ctx: Context,
  s: RunSettings,
  kind: JobKind,
  input: Input,
  at: { host: string; projects: string[] },
): Promise<BoundJournal> {
  const { list } = input;
  const binding = {
    host: at.host,
    projects: at.projects,
    id_kind: list.kind,
    command: kind.journal.command,
    kind: kind.journal.binding,
    input: { file: input.label, ids: list.ids.length, id_list_sha256: list.sha256 },
  };
  return bindJournal(ctx, s, binding, input, kind.journal.resends?.find);
}

/** Started again after it completed, a run whose persons were found (a selection, addresses,
 * distinct ids, a merge's groups) would act on those it found then: persons the input names now
 * that it did not (created or changed since, or a merge undone) would be left, with a success.
 * Said, and refused; --resume checks the finished run again (job.ts). */
function refuseFinishedRun(s: RunSettings, kind: JobKind, bound: BoundJournal, input: Input, selection: boolean): void {
  const found = selection || input.list.kind !== 'person_ids' || s.input.kind === 'own';
  if (!bound.completedAt || s.resume || s.reviewed || !found) return;
  throw new UsageError(
    `this ${kind.words.job} already completed at ${bound.completedAt} (journal ${bound.path}); it acted on the persons it found when it began (${selection ? 'the selection' : input.label}), and nothing was sent now`,
    'the input may name other persons now: start a new run with --journal <new path> to act on them, or add --resume to check the finished run again',
  );
}

/** The chunks still to send, leaving out the ids earlier runs answered (`done` counts them). Ids
 * their answers asked to be sent again go first, in requests of their own marked as resends, as
 * the run that got those answers sends them (run.ts): such a request's persons were found, and
 * counted, by the answer that asked. */
function chunksToSend(
  kind: JobKind,
  journal: JournalState | undefined,
  targets: CaseTargets,
): { chunks: ChunkList; done: { size: number } } {
  const size = kind.requests.chunkSize;
  const first = (journal?.maxChunk ?? 0) + 1;
  const sendAgain = journal?.toSendAgain() ?? new Map<string, string>();
  const again = resendChunks(sendAgain, size, first);
  const answered = new AnsweredIds(journal, sendAgain);
  const skips = targets.projects.map((p) => answered.skipIn(p.ids));
  const rest = lazyChunks(
    targets.projects.map((p, i) => ({ ids: p.ids, project: p.id, skip: skips[i] })),
    size,
    first + again.length,
  );
  return { chunks: again.length ? chunksThen(again, rest) : rest, done: { size: answered.count } };
}

/** The files the job will write can be written: checked before anything is sent. */
async function checkOutputDirs(s: RunSettings): Promise<void> {
  if (s.receipt) await checkWritableDir(s.receipt, '--receipt');
  if (s.journal) await checkWritableDir(s.journal, '--journal');
  if (s.planOut) await checkWritableDir(s.planOut, '--plan-out');
}

/**
 * The ids earlier runs answered (never sent again), project by project, and how many; also left
 * out, uncounted, those an answer asked to be sent again (chunksToSend sends them apart). Over a
 * compact list (id-set.ts) a bit per id marks them, by their place: a --resume of ten million ids
 * holds no second set of them (which would make it larger than the run it continues).
 */
class AnsweredIds {
  count = 0;
  private set?: IdSet;

  constructor(
    private readonly journal: JournalState | undefined,
    private readonly sendAgain: Map<string, string>,
  ) {}

  skipIn(ids: Ids): ((index: number, id: string) => boolean) | undefined {
    const journal = this.journal;
    if (!journal || journal.chunks.size === 0) return undefined;
    if (ids instanceof IdSet) {
      const bits = new Uint8Array((ids.size + 7) >>> 3);
      let marked = 0;
      journal.eachAnsweredIn(ids, (at) => {
        if (bits[at >>> 3] & (1 << (at & 7))) return;
        bits[at >>> 3] |= 1 << (at & 7);
        marked++;
      });
      this.count += marked;
      for (const id of this.sendAgain.keys()) {
        const at = ids.indexOf(id);
        if (at >= 0) bits[at >>> 3] |= 1 << (at & 7);
      }
      return marked || this.sendAgain.size ? (at) => (bits[at >>> 3] & (1 << (at & 7))) !== 0 : undefined;
    }
    if (!this.set) {
      this.set = journal.answeredIds();
      this.count += this.set.size;
    }
    const done = this.set;
    const again = this.sendAgain;
    return done.size || again.size ? (_at, id) => done.has(id) || again.has(id) : undefined;
  }
}
