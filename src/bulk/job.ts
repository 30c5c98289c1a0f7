// The bulk job engine, start to finish: input → journal → resolve → plan → confirm → run (with
// the check of lost answers) → receipt → exit code. The order matters: nothing reaches the
// server before the input has been read whole and the person running it has agreed to exactly
// what the plan says; nothing is deleted before the journal can record it. The action (what one
// request does) is a parameter: today `persons bulk-delete` (delete-persons.ts).
import { createHash } from 'node:crypto';
import { resolve as resolvePath } from 'node:path';
import type { Context } from '../context.js';
import { VERSION } from '../context.js';
import { CancelledError } from '../errors.js';
import { confirmOrRefuse } from '../cli/confirm.js';
import { writeRecord, type OutputSettings } from '../io/output.js';
import { bindJournal } from './bind-journal.js';
import { chunkIds } from './chunk.js';
import { deletePersons } from './delete-persons.js';
import { readInput, type Input } from './input.js';
import type { DeleteFlags, JournalState } from './journal.js';
import { outcome, verificationOutcome } from './outcome.js';
import { planText } from './plan.js';
import { buildReceipt, summaryRecord, writeReceipt, type Receipt, type ReceiptStatus } from './receipt.js';
import { matchTargets, resolveTargets, uuidLookup, type Targets } from './resolve.js';
import { runJob } from './run.js';
import { verifyGone, type Verification } from './verify.js';
import type { BulkAction } from './action.js';
import { checkKeyScope } from './scope-check.js';
import { checkWritableDir, decideSettings, resumeCommand, type BulkDeleteSettings, type RunSettings } from './settings.js';

export type { BulkDeleteSettings } from './settings.js';

/** bulk_delete of 1000 persons can take a while on a busy server; --timeout overrides it. */
const BULK_TIMEOUT_MS = 120_000;

export async function bulkDelete(ctx: Context, given: BulkDeleteSettings): Promise<void> {
  const s = await decideSettings(ctx, given);
  const { baseUrl: host, profileName } = await ctx.settings();
  const profile = profileName ?? null;
  const projectId = await ctx.projectId();
  const kind = s.emails ? 'emails' : s.distinctIds ? 'distinct_ids' : 'person_ids';
  const flags: DeleteFlags = {
    delete_events: Boolean(s.deleteEvents),
    delete_recordings: Boolean(s.deleteRecordings),
    keep_person: Boolean(s.keepPerson),
  };
  const startedAt = new Date(ctx.deps.now()).toISOString();
  // Checked now: a bad -o must stop the run before anything is sent, not after.
  const output = await ctx.output();

  const input = await readInput(ctx, s, kind);
  const { list } = input;
  // Salted, the hash that binds the journal and the receipt to the addresses cannot be checked
  // against a guessed address.
  if (s.identifiers?.salt) list.sha256 = createHash('sha256').update(`${s.identifiers.salt}:${list.sha256}`).digest('hex');
  // E-mail addresses are looked up even in a dry run: reads only, and the plan needs them.
  const client = s.dryRun && kind !== 'emails' ? undefined : await ctx.api();
  const inputBinding = { file: input.label, ids: list.ids.length, id_list_sha256: list.sha256 };
  const bound = await bindJournal(ctx, s, { host, project: projectId, id_kind: kind, flags, input: inputBinding }, input);
  const targets =
    kind === 'emails'
      ? await matchTargets(ctx, list, bound.state?.matched ?? new Map(), client!, projectId, s.identifiers!, s.maxWaitMs)
      : await resolveTargets(ctx, list, bound.state?.resolved ?? new Map(), client && uuidLookup(client, projectId), s);
  if (ctx.deps.signal?.aborted) throw new CancelledError('cancelled; nothing was deleted');

  const requestTimeoutMs = ctx.globals.timeout !== undefined || ctx.env.HOGCTL_TIMEOUT !== undefined ? ctx.timeoutMs() : BULK_TIMEOUT_MS;
  const action = deletePersons(ctx, { client, projectId, kind, flags, timeoutMs: requestTimeoutMs });
  const done = bound.state?.answeredIds() ?? new Set<string>();
  const remaining = done.size ? targets.ids.filter((id) => !done.has(id)) : targets.ids;
  const chunks = chunkIds(remaining, (bound.state?.maxChunk ?? 0) + 1);
  const receiptPath = s.receipt ?? (s.dryRun ? undefined : bound.path.replace(/\.ndjson$/, '') + '.receipt.json');
  if (s.receipt) await checkWritableDir(s.receipt, '--receipt');
  if (s.journal) await checkWritableDir(s.journal, '--journal');
  ctx.info(
    planText({
      title: action.title,
      dryRun: Boolean(s.dryRun),
      profile,
      host,
      projectId,
      input,
      resolveLater: !client,
      resolvedDuplicates: targets.resolvedDuplicates,
      unresolved: targets.unresolved.length,
      emails: targets.emails && { ...targets.emails, unmatched: targets.unresolved },
      resume: bound.state && { answered: done.size, left: remaining.length },
      requests: chunks.length,
      request: action.request,
      flags: action.flags,
      windows: s.rate,
      concurrency: s.concurrency,
      journal: s.dryRun ? undefined : bound.path,
      receipt: receiptPath,
    }),
  );

  const receiptOf = { ctx, s, output, input, targets, flags, profile, host, projectId, startedAt, journalPath: bound.path, receiptPath };
  if (s.dryRun) {
    ctx.info(kind === 'emails' ? 'dry run: nothing was deleted' : 'dry run: nothing was sent');
    // The plan is the answer; a summary of zeros would only bury it. Scripts that asked for
    // JSON still get the record.
    await finish(receiptOf, 'dry_run', bound.state, undefined, output.format === 'json' || output.format === 'ndjson');
    return;
  }
  if (chunks.length === 0) {
    if (bound.completedAt) ctx.info(`this erasure already completed at ${bound.completedAt} (journal ${bound.path}); no deletion was sent`);
    else ctx.info(bound.state ? 'every id was already answered in earlier runs; nothing left to send' : 'nothing to send');
    // Started again, a finished erasure is checked again: what the server holds now.
    const verification = await verify(ctx, s, action, bound.state);
    const receipt = await finish(receiptOf, 'completed', bound.state, undefined, true, verification);
    const end = verificationOutcome(receipt, resumeCommand(ctx, action.command, s, bound.path));
    for (const line of end.warnings) ctx.warn(line);
    if (end.error) throw end.error;
    return;
  }

  const place = `in project ${projectId} on ${host}${profile ? ` (profile ${profile})` : ''}`;
  await confirmOrRefuse(ctx, {
    yes: s.yes,
    summary: `${action.confirmation(remaining.length)} ${place}.`,
    question: 'Go ahead? This cannot be undone.',
  });
  if (ctx.deps.signal?.aborted) throw new CancelledError('cancelled; nothing was sent');
  // Before anything is journaled or deleted: may this key do this in this project?
  await checkKeyScope(ctx, client!, projectId, action.scope);

  const resume = resumeCommand(ctx, action.command, s, bound.path);
  const { result, journal, requests } = await runJob(ctx, {
    action,
    journal: bound,
    header: journalHeader(receiptOf),
    resume: Boolean(s.resume),
    newlyResolved: targets.newlyResolved,
    newlyMatched: targets.emails?.newlyMatched ?? new Map(),
    chunks,
    windows: s.rate,
    concurrency: s.concurrency,
    perMinute: s.perMinute,
    retries: s.retries,
    maxWaitMs: s.maxWaitMs,
    requestTimeoutMs,
    resumeCommand: resume,
  });

  const verification = result.reason === 'completed' ? await verify(ctx, s, action, journal) : undefined;
  const receipt = await finish(receiptOf, result.reason, journal, result.error?.message, true, verification);
  const end = outcome(result, receipt, {
    account: action.account(receipt),
    resume,
    requests,
    receiptPath: receiptPath!,
    maxWaitMs: s.maxWaitMs,
    now: ctx.deps.now(),
  });
  for (const line of end.warnings) ctx.warn(line);
  if (end.error) throw end.error;
  ctx.info(end.success!);
}

interface ReceiptFacts {
  ctx: Context;
  s: RunSettings;
  output: OutputSettings;
  input: Input;
  targets: Targets;
  flags: DeleteFlags;
  profile: string | null;
  host: string;
  projectId: string;
  startedAt: string;
  journalPath: string;
  receiptPath?: string;
}

/** The journal's first line: what the run is bound to, and the settings --resume takes from it. */
function journalHeader(r: ReceiptFacts) {
  const { s, input } = r;
  return {
    created_at: r.startedAt,
    profile: r.profile,
    host: r.host,
    project: r.projectId,
    id_kind: input.list.kind,
    flags: r.flags,
    input: {
      file: input.label,
      format: input.list.format,
      column: s.column ?? null,
      ids: input.list.ids.length,
      id_list_sha256: input.list.sha256,
    },
    settings: {
      receipt: r.receiptPath ? resolvePath(r.receiptPath) : null,
      output: r.ctx.globals.output ?? r.ctx.env.HOGCTL_OUTPUT ?? null,
      rate: s.rate.map((w) => ({ limit: w.limit, window_ms: w.windowMs })),
      concurrency: s.concurrency,
      retries: s.retries,
      max_wait_ms: s.maxWaitMs,
      skip_invalid: Boolean(s.skipInvalid),
    },
    ...(s.identifiers ? { identifiers: { salt: s.identifiers.salt } } : {}),
  };
}

/** Writes the receipt (built from the journal: the server's answers) and prints its summary. */
async function finish(
  r: ReceiptFacts,
  status: ReceiptStatus,
  journal: JournalState | undefined,
  error?: string,
  print = true,
  verification?: Verification,
): Promise<Receipt> {
  const { ctx, s, input, targets } = r;
  const receipt = buildReceipt(journal, input.list, {
    status,
    version: VERSION,
    startedAt: journal?.header?.created_at ?? r.startedAt,
    finishedAt: new Date(ctx.deps.now()).toISOString(),
    profile: r.profile,
    host: r.host,
    project: r.projectId,
    file: input.label,
    format: input.list.format,
    column: s.column ?? null,
    kind: input.list.kind,
    flags: r.flags,
    skipInvalid: Boolean(s.skipInvalid),
    journal: journal?.header ? r.journalPath : null,
    receipt: r.receiptPath ?? null,
    targets: targets.ids.length,
    // Addresses are named by their keys; several addresses naming one person are no duplicates.
    unresolved: targets.emails ? targets.emails.unmatchedKeys : targets.unresolved,
    resolvedDuplicates: targets.emails ? 0 : targets.resolvedDuplicates,
    identifiers: targets.emails && s.identifiers && { policy: s.identifiers, matches: targets.emails },
    verification,
    error,
  });
  // Persons the server could not delete make the run partial, even if every request succeeded.
  if (receipt.status === 'completed' && (receipt.counts.deletion_errors ?? 0) > 0) receipt.status = 'partial';
  if (r.receiptPath) await writeReceipt(r.receiptPath, receipt);
  if (!print) return receipt;
  const record = summaryRecord(receipt);
  record.receipt = r.receiptPath ?? null;
  await writeRecord(r.output, record, { columns: Object.keys(record) });
  return receipt;
}

/** Checks that what the run did is so on the server, unless --no-verify or nothing can be checked. */
async function verify(
  ctx: Context,
  s: RunSettings,
  action: BulkAction,
  journal: JournalState | undefined,
): Promise<Verification | undefined> {
  if (s.verify === false || !action.verify || !journal) return undefined;
  return verifyGone(ctx, action.verify, [...journal.answeredIds()], action.targetNoun);
}
