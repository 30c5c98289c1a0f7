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
import { lazyChunks, type ChunkList } from './chunk.js';
import { IdSet, type Ids } from '../input/id-set.js';
import type { JournalState } from './journal-state.js';
import { CLEAR, keyedPolicy, listBinding, policyOfJournal, type IdentifierPolicy } from '../input/identifiers.js';
import { evidenceKey, readEvidenceKey } from '../../config/evidence-key.js';
import { readJobInput, selectionOf, type Input } from '../input/input.js';
import { planPolicy, planTargets, type PlanFile } from './plan-file.js';
import { caseProjects, spansProjects, type CaseProject } from './projects.js';
import { RateBudget, readBurst } from './rate.js';
import { checkSelection } from '../input/selection.js';
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
  const { baseUrl: host, profileName } = await ctx.settings();
  const profile = profileName ?? null;
  const startedAt = new Date(ctx.clock.now()).toISOString();
  // Checked now: a bad -o must stop the run before anything is sent, not after.
  const output = await ctx.output({ remembered: s.output });
  const plan = s.reviewed;
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
  // Identifiers that are personal data are named by a keyed hash in the journal, the receipt and
  // the plan (the evidence key, created here on first need); a journal continued keeps its own.
  const policy: IdentifierPolicy = plan
    ? planPolicy(plan, ctx.env)
    : s.identifiers
      ? policyOfJournal(s.identifiers, ctx.env, s.journal ?? 'being continued')
      : kind.journal.hashesIdentifiers && (list.kind === 'emails' || list.kind === 'mixed') && !s.keepIdentifiers
        ? keyedPolicy(evidenceKey(ctx.env))
        : CLEAR;
  // Keyed, the hash that binds the journal and the receipt to the identifiers cannot be checked
  // against a guessed list either.
  if (!plan) list.sha256 = listBinding(list.sha256, policy);

  const reads = new RateBudget(s.readPerMinute, ctx.clock, readBurst(s.readPerMinute));
  // A plain file of ids for one project may go out as it is; everything else is looked up first,
  // reads only, even in a dry run: the plan needs what they find.
  const plainIds = list.kind === 'person_ids' || (list.kind === 'distinct_ids' && !kind.requests.looksUpDistinctIds);
  const lookUp = !plan && (!plainIds || !kind.requests.sendsIdsAsGiven || spansProjects(s) || Boolean(s.planOut));
  const client = s.dryRun && !lookUp ? undefined : await ctx.api();
  const reached: CaseProject[] = plan
    ? plan.projects.map((p) => ({ id: p.project, name: p.name, ...(p.unreachable ? { unreachable: p.unreachable } : {}) }))
    : // A kind's own input names its projects (a merge's groups each name theirs).
      await caseProjects(ctx, client, s.input.kind === 'own' ? { projects: s.input.own.projects } : s);
  const projects = reached.map((p) => p.id);
  const spans = spansProjects(s) || projects.length > 1;

  const bound = await bindJournal(
    ctx,
    s,
    {
      host,
      projects,
      id_kind: list.kind,
      command: kind.journal.command,
      kind: kind.journal.binding,
      input: { file: input.label, ids: list.ids.length, id_list_sha256: list.sha256 },
    },
    input,
    kind.journal.resends?.find,
  );
  // Started again after it completed, a run whose persons were found (a selection, addresses,
  // distinct ids, a merge's groups) would act on those it found then: persons the input names now
  // that it did not (created or changed since, or a merge undone) would be left, with a success.
  // Said, and refused; --resume checks the finished run again (job.ts).
  const found = Boolean(selection) || list.kind !== 'person_ids' || s.input.kind === 'own';
  if (bound.completedAt && !s.resume && !plan && found) {
    throw new UsageError(
      `this ${kind.words.job} already completed at ${bound.completedAt} (journal ${bound.path}); it acted on the persons it found when it began (${selection ? 'the selection' : input.label}), and nothing was sent now`,
      'the input may name other persons now: start a new run with --journal <new path> to act on them, or add --resume to check the finished run again',
    );
  }
  // Read, the list is looked up by its UUIDs alone (journal requests, ids sent): the map of its
  // other ids (a million addresses: 50 MB) may go.
  if (list.ids instanceof IdSet) list.ids.letLookupGo();
  if (s.backup && !s.dryRun) await checkBackup(s.backup, Boolean(bound.state));
  const targets = plan
    ? planTargets(plan, readEvidenceKey(ctx.env))
    : kind.requests.targets
      ? await kind.requests.targets(ctx, { client, projects: reached, journal: bound.state, reads, maxWaitMs: s.maxWaitMs })
      : await findTargets(ctx, client, reached, list, bound.state, {
          lookUp,
          policy,
          selection,
          maxWaitMs: s.maxWaitMs,
          reads,
          concurrency: s.concurrency,
        });
  if (ctx.deps.signal?.aborted) throw new CancelledError('cancelled; nothing was changed');

  const timeoutMs = ctx.timeoutMs(BULK_TIMEOUT_MS);
  const action = await kind.requests.makeAction(ctx, {
    client,
    projects,
    kind: list.kind,
    timeoutMs,
    reads,
    targets,
    asGiven: !lookUp && !plan,
    journal: bound.state,
    dryRun: Boolean(s.dryRun),
  });
  const answered = new AnsweredIds(bound.state);
  const skips = targets.projects.map((p) => answered.skipIn(p.ids));
  const chunks = lazyChunks(
    targets.projects.map((p, i) => ({ ids: p.ids, project: p.id, skip: skips[i] })),
    kind.requests.chunkSize,
    (bound.state?.maxChunk ?? 0) + 1,
  );
  const receiptPath = s.receipt ?? (s.dryRun ? undefined : bound.path.replace(/\.ndjson$/, '') + '.receipt.json');
  if (s.receipt) await checkWritableDir(s.receipt, '--receipt');
  if (s.journal) await checkWritableDir(s.journal, '--journal');
  if (s.planOut) await checkWritableDir(s.planOut, '--plan-out');
  return {
    s,
    kind,
    host,
    profile,
    startedAt,
    output,
    plan,
    input,
    policy,
    lookUp,
    client,
    reads,
    projects,
    spans,
    bound,
    targets,
    action,
    done: { size: answered.count },
    chunks,
    remaining: chunks.ids,
    timeoutMs,
    receiptPath,
  };
}

/**
 * The ids earlier runs answered (never sent again), project by project, and how many. Over a
 * compact list (id-set.ts) a bit per id marks them, by their place: a --resume of ten million ids
 * holds no second set of them (which would make it larger than the run it continues).
 */
class AnsweredIds {
  count = 0;
  private set?: IdSet;

  constructor(private readonly journal: JournalState | undefined) {}

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
      return marked ? (at) => (bits[at >>> 3] & (1 << (at & 7))) !== 0 : undefined;
    }
    if (!this.set) {
      this.set = journal.answeredIds();
      this.count += this.set.size;
    }
    const done = this.set;
    return done.size ? (_at, id) => done.has(id) : undefined;
  }
}
