// The bulk job engine, start to finish: settings → the input, projects, journal and persons
// (prepare.ts) → plan → confirm → run (the snapshot of the persons, then the chunks, with the
// check of lost answers) → verify → receipt → exit code. The order matters: nothing reaches the
// server but reads before the person running it has agreed to exactly what the plan says, and
// nothing is changed before the journal can record it. What the job does is its JobKind
// (action.ts): deleting persons, or changing their properties. The verb settles the settings
// first (settleBulkJob), builds its kind once from them, and hands both to runBulkJob: the engine
// never calls back into the verb.
import type { Context } from '../../context.js';
import { CancelledError } from '../../errors.js';
import { confirmOrRefuse } from '../../cli/confirm.js';
import type { JobKind, JobVerification } from './action.js';
import { findings, finish, journalHeader } from './finish.js';
import { describeProjects } from './journal-binding.js';
import { JournalFileError, JournalWriter } from './journal-write.js';
import { type JournalRecord } from './journal-format.js';
import type { Receipt } from './receipt.js';
import { outcome, unreachableOutcome } from './outcome.js';
import { closeRun } from './unrecorded.js';
import { planFacts, planText } from './plan.js';
import { wrapHanging } from '../../io/columns.js';
import { writePlan } from './write-plan.js';
import { prepareJob, type Prepared } from './prepare.js';
import { journalLost, runJob, type RunJobOptions, type RunOutcome } from './run.js';
import { checkKeyScope } from './scope-check.js';
import { decideSettings, resumeCommand, withKindDefaults, type BulkSettings, type RunSettings, type SettledSettings } from './settings.js';
import { checkPlanPlace, readPlanFile } from './plan-file.js';
import { takeSnapshot } from './snapshot.js';
import { formatNumber } from '../../io/counts.js';

/** Above this many persons, a confirmation is made by typing the count. */
const TYPED_CONFIRMATION_ABOVE = 100;

/**
 * The settings of a bulk job, settled before its kind is built: the command line completed from
 * the journal it resumes (whose kind's own fields are `recorded`), or the reviewed plan it applies
 * (read and checked here, its flags `recorded`). The verb then builds its kind once from its own
 * flags and `recorded`, and calls runBulkJob.
 */
export async function settleBulkJob(ctx: Context, given: BulkSettings): Promise<SettledSettings> {
  const s = await decideSettings(ctx, given);
  if (s.input.kind !== 'plan') return s;
  const { baseUrl: host, profileName } = await ctx.settings();
  const reviewed = await readPlanFile(s.input.file, ctx.env);
  checkPlanPlace(s.input.file, reviewed, { profile: profileName ?? null, host, projects: s.projects, project: ctx.globals.project });
  // A plan does what it says: its flags, not the command line's.
  return { ...s, reviewed, recorded: { flags: reviewed.flags } };
}

/** Runs a bulk job of this kind with these settled settings (settleBulkJob). */
export async function runBulkJob(ctx: Context, settled: SettledSettings, kind: JobKind): Promise<void> {
  const s = withKindDefaults(settled, kind);
  const p = await prepareJob(ctx, s, kind);
  showPlan(ctx, p);
  const resume = kind.journal.resumeCommand ?? resumeCommand(ctx, kind.journal.command, s, p.bound.path);
  if (s.dryRun) return endDryRun(ctx, s, kind, p);
  // A fresh job with nothing to send ends here, unless its kind has work beyond its requests.
  if (p.chunks.length === 0 && !(kind.requests.runsWithoutRequests && !p.bound.state && p.client))
    return endWithNothingToSend(ctx, s, kind, p, resume);

  // A kind that only reads changes nothing that could need agreeing to.
  if (!kind.requests.readOnly) await confirm(ctx, p);
  // Before anything is journaled or changed: may this key do this in these projects?
  await checkKeyScope(ctx, p.client!, p.spans ? undefined : p.projects[0], p.action.scope);
  const ran = await runJob(ctx, runOptions(ctx, s, kind, p, resume));
  await endAfterRun(ctx, s, kind, p, resume, ran);
}

/** On a terminal the plan is wrapped at spaces, its continuations under their values; the
 * terminal itself would break its longer lines (identifiers, samples, paths) mid-word. */
function showPlan(ctx: Context, p: Prepared): void {
  const plan = planText(planFacts(p));
  ctx.info(ctx.io.stderr.isTTY && ctx.io.stderr.columns ? wrapHanging(plan, ctx.io.stderr.columns) : plan);
}

async function endDryRun(ctx: Context, s: RunSettings, kind: JobKind, p: Prepared): Promise<void> {
  if (s.planOut) await (kind.planOut ? kind.planOut.write(s.planOut, ctx.env) : writePlan(ctx, p, s.planOut));
  ctx.info(p.lookUp ? `dry run: nothing was ${kind.words.done}` : 'dry run: nothing was sent');
  // The plan is the answer; a summary of zeros would only bury it. Scripts that asked for JSON still get it.
  await finish(ctx, p, { status: 'dry_run', journal: p.bound.state, print: p.output.format === 'json' || p.output.format === 'ndjson' });
}

/** Nothing left to send: says why, and a finished job started again is checked again (what the
 * server holds now). */
async function endWithNothingToSend(ctx: Context, s: RunSettings, kind: JobKind, p: Prepared, resume: string): Promise<void> {
  if (p.bound.completedAt)
    ctx.info(
      `this ${kind.words.job} already completed at ${p.bound.completedAt} (journal ${p.bound.path}); no ${kind.words.request} was sent`,
    );
  else ctx.info(p.bound.state ? 'every id was already answered in earlier runs; nothing left to send' : 'nothing to send');
  const checked = s.verify !== false && p.bound.state && p.client ? await verifyJob(ctx, p, p.bound.state, resume) : undefined;
  const verification = checked?.verification;
  const { receipt, missing } = await finish(ctx, p, { status: 'completed', journal: p.bound.state, print: true, verification });
  if (checked?.interrupted) return closeRun(ctx, { warnings: [], error: interruptedVerifying(receipt, p, resume) }, missing, resume);
  const end = kind.check.verdict(receipt, { resume, retries: s.retries, receiptPath: p.receiptPath });
  closeRun(ctx, { warnings: end.warnings, error: end.error ?? unreachableOutcome(receipt, kind.words.done) }, missing, resume);
}

function runOptions(ctx: Context, s: RunSettings, kind: JobKind, p: Prepared, resume: string): RunJobOptions {
  return {
    action: p.action,
    journal: p.bound,
    header: journalHeader(ctx, p),
    resends: kind.journal.resends,
    chunkSize: kind.requests.chunkSize,
    resume: Boolean(s.resume),
    findings: findings(p.targets, p.policy),
    // What the job must read before the first change (the persons' distinct ids; --backup).
    beforeChunks:
      kind.requests.snapshot(p.lookUp) || p.plan || s.backup
        ? (state, append) =>
            takeSnapshot(ctx, p.client!, p.targets.projects, state, append, {
              policy: p.policy,
              backup: s.backup,
              reads: p.reads,
              done: kind.words.done,
            })
        : undefined,
    chunks: p.chunks,
    windows: s.rate,
    concurrency: s.concurrency,
    perMinute: s.perMinute,
    retries: s.retries,
    maxWaitMs: s.maxWaitMs,
    requestTimeoutMs: p.timeoutMs,
    unit: kind.words.unit,
    resumeCommand: resume,
  };
}

/** After the run: the verification (of a completed run), the receipt, and the exit. */
async function endAfterRun(ctx: Context, s: RunSettings, kind: JobKind, p: Prepared, resume: string, ran: RunOutcome): Promise<void> {
  const { result, journal, requests } = ran;
  const checked = result.reason === 'completed' && s.verify !== false ? await verifyJob(ctx, p, journal, resume) : undefined;
  const verification = checked?.verification;
  const { receipt, missing } = await finish(ctx, p, {
    status: result.reason,
    journal,
    error: result.error?.message,
    print: true,
    verification,
  });
  if (checked?.interrupted) return closeRun(ctx, { warnings: [], error: interruptedVerifying(receipt, p, resume) }, missing, resume);
  const account = (r: Receipt) => p.action.account(r, p.targets.identifiers);
  const end = outcome(result, receipt, {
    account: account(receipt),
    resume,
    requests,
    // A receipt that could not be written is not named as if it were there.
    receiptPath: missing.receipt ? undefined : p.receiptPath,
    maxWaitMs: s.maxWaitMs,
    now: ctx.clock.now(),
    done: kind.words.done,
    verdict: (r) => kind.check.verdict(r, { resume, retries: s.retries, receiptPath: p.receiptPath, account: account(r) }),
  });
  closeRun(ctx, { ...end, error: end.error ?? unreachableOutcome(receipt, kind.words.done) }, missing, resume);
}

/** Asks on a terminal, refuses off one without --yes; above a hundred persons, whatever chose
 * them (a file as much as a selection), the count must be typed: a plain y/N for 5,000 persons is
 * one keystroke from a mistake that cannot be undone. */
async function confirm(ctx: Context, p: Prepared): Promise<void> {
  const where = p.spans
    ? `in ${describeProjects(p.targets.projects.filter((t) => t.ids.length).map((t) => t.id))}`
    : `in project ${p.projects[0]}`;
  const typed = p.remaining > TYPED_CONFIRMATION_ABOVE;
  await confirmOrRefuse(ctx, {
    yes: p.s.yes,
    summary: `${p.action.confirmation(p.remaining)} ${where} on ${p.host}${p.profile ? ` (profile ${p.profile})` : ''}.`,
    question: p.action.reversible ? 'Go ahead?' : 'Go ahead? This cannot be undone.',
    typeToConfirm: typed ? String(p.remaining) : undefined,
  });
  if (ctx.deps.signal?.aborted) throw new CancelledError('cancelled; nothing was sent');
}

type Journal = NonNullable<Prepared['bound']['state']>;

/**
 * The verification, journaled as it goes. Ctrl-C stops it; every deletion was answered by
 * then, so the run still writes its receipt (verification: interrupted) and says how to go on.
 */
async function verifyJob(
  ctx: Context,
  p: Prepared,
  journal: Journal,
  resume: string,
): Promise<{ verification?: JobVerification; interrupted: boolean } | undefined> {
  const writer = await JournalWriter.open(p.bound.path, 'append').catch((err: unknown) => {
    throw err instanceof JournalFileError && journal.chunks.size > 0 ? journalLost(err, resume) : err;
  });
  const record = async (r: JournalRecord) => {
    await writer.append(r);
    journal.apply(r);
  };
  try {
    const env = {
      client: p.client!,
      action: p.action,
      journal,
      targets: p.targets,
      reads: p.reads,
      startedAt: p.startedAt,
      maxWaitMs: p.s.maxWaitMs,
      record,
    };
    return { verification: await p.kind.check.verify(ctx, env), interrupted: false };
  } catch (err) {
    // Every request was answered by then: a journal that fails now is no "nothing sent".
    if (err instanceof JournalFileError && journal.chunks.size > 0) throw journalLost(err, resume);
    if (!ctx.deps.signal?.aborted) throw err;
    const gone = journal.verification?.gone.size ?? 0;
    const at = new Date(ctx.clock.now()).toISOString();
    const total = { status: 'interrupted', at, checked: gone, still_present: 0, still_present_ids: [] };
    return { verification: { total, perProject: new Map() }, interrupted: true };
  } finally {
    await writer.close();
  }
}

function interruptedVerifying(receipt: Receipt, p: Prepared, resume: string): CancelledError {
  const own = p.kind.check.interrupted;
  if (own)
    return new CancelledError(
      `interrupted while ${own.while}: ${p.action.account(receipt, p.targets.identifiers)}; ${own.kept}`,
      `continue with:\n  ${resume}`,
    );
  const checked = (receipt.verification as { checked?: number } | null)?.checked ?? 0;
  return new CancelledError(
    `interrupted while verifying: ${p.action.account(receipt, p.targets.identifiers)}; every request was answered; ${formatNumber(checked)} found gone before the interrupt, the rest not checked yet (the receipt says so)`,
    `continue the verification with:\n  ${resume}`,
  );
}
