// The bulk job engine, start to finish: input → projects → journal → find the persons → plan →
// confirm → run (the snapshot of the persons, then the chunks, with the check of lost answers) →
// verify → receipt → exit code. The order matters: nothing reaches the server before the input has
// been read whole and the person running it has agreed to exactly what the plan says; nothing is
// deleted before the journal can record it. The action (what one request does) is a parameter:
// today `persons bulk-delete` (delete-persons.ts).
import { createHash } from 'node:crypto';
import { resolve as resolvePath } from 'node:path';
import type { Context } from '../context.js';
import { VERSION } from '../context.js';
import { CancelledError, UsageError } from '../errors.js';
import { confirmOrRefuse } from '../cli/confirm.js';
import { writeRecord, type OutputSettings } from '../io/output.js';
import type { ApiClient } from '../http/client.js';
import { bindJournal } from './bind-journal.js';
import { chunkIds } from './chunk.js';
import { deletePersons } from './delete-persons.js';
import { identifierKey, newPolicy, recordedDistinctId, type IdentifierPolicy } from './identifiers.js';
import { listedInput, readInput, type Input } from './input.js';
import { describeProjects, JournalState, type DeleteFlags, type JournalRecord } from './journal.js';
import { outcome, unreachableOutcome, verificationOutcome } from './outcome.js';
import { planText } from './plan.js';
import { checkPlanPlace, readPlanFile, writePlanFile, PLAN_FORMAT, type PlanFile } from './plan-file.js';
import { caseProjects, spansProjects, type CaseProject } from './projects.js';
import { buildReceipt, summaryRecord, writeReceipt, type Receipt, type ReceiptStatus } from './receipt.js';
import { RateBudget, sleep } from './rate.js';
import { runJob } from './run.js';
import { describeSelection, hasSelection, checkSelection } from './selection.js';
import { checkBackup, takeSnapshot } from './snapshot.js';
import { findTargets, type CaseTargets, type ProjectTargets } from './targets.js';
import { eventDeletions, eventsVerification, totalVerification, verifyGone, describeVerification, type Verification } from './verify.js';
import type { BulkAction } from './action.js';
import { checkKeyScope } from './scope-check.js';
import { checkWritableDir, decideSettings, resumeCommand, selectionKey, type BulkDeleteSettings, type RunSettings } from './settings.js';
import type { IdKind } from './validate.js';

export type { BulkDeleteSettings } from './settings.js';

/** bulk_delete of 1000 persons can take a while on a busy server; --timeout overrides it. */
const BULK_TIMEOUT_MS = 120_000;
/** A selection larger than this is confirmed by typing its size. */
const TYPED_CONFIRMATION_ABOVE = 100;

const n = (x: number) => x.toLocaleString('en-US');

export async function bulkDelete(ctx: Context, given: BulkDeleteSettings): Promise<void> {
  const s = await decideSettings(ctx, given);
  const { baseUrl: host, profileName } = await ctx.settings();
  const profile = profileName ?? null;
  const startedAt = new Date(ctx.deps.now()).toISOString();
  // Checked now: a bad -o must stop the run before anything is sent, not after.
  const output = await ctx.output();

  const plan = s.plan ? await readPlanFile(s.plan) : undefined;
  if (plan) checkPlanPlace(s.plan!, plan, { profile, host, projects: s.projects });
  const flags: DeleteFlags = plan?.flags ?? {
    delete_events: Boolean(s.deleteEvents),
    delete_recordings: Boolean(s.deleteRecordings),
    keep_person: Boolean(s.keepPerson),
  };
  if (hasSelection(s.selection)) checkSelection(s.selection);
  const input = plan
    ? planInput(s.plan!, plan)
    : hasSelection(s.selection)
      ? listedInput(describeSelection(s.selection), { kind: 'selection', sha256: await selectionKey(ctx, s) }, { stem: 'selection' })
      : await readInput(ctx, s, s.emails ? 'emails' : s.distinctIds ? 'distinct_ids' : 'person_ids');
  const { list } = input;
  const kind = list.kind;
  if (s.keepIdentifiers && kind !== 'emails' && kind !== 'mixed' && !plan)
    throw new UsageError(
      `--keep-identifiers goes with e-mail addresses or a mixed file of identifiers, and ${input.label} holds ${kind === 'distinct_ids' ? 'distinct ids' : 'person ids'}`,
      'drop --keep-identifiers: person ids and distinct ids are kept as they are',
    );
  // Identifiers that are personal data are named by a salted hash in the journal and the receipt.
  const policy: IdentifierPolicy = plan?.identifiers
    ? { salt: plan.identifiers.salt }
    : (s.identifiers ?? (kind === 'emails' || kind === 'mixed' ? newPolicy(Boolean(s.keepIdentifiers)) : { salt: null }));
  // Salted, the hash that binds the journal and the receipt to the identifiers cannot be checked
  // against a guessed one.
  if (policy.salt && !plan) list.sha256 = createHash('sha256').update(`${policy.salt}:${list.sha256}`).digest('hex');
  // A plain file of ids for one project is sent as it is; everything else is looked up first,
  // reads only, even in a dry run: the plan needs what they find.
  // One read budget for every read of the job: the server counts them together.
  const reads = new RateBudget(s.readPerMinute, { now: ctx.deps.now, sleep: ctx.deps.sleep ?? sleep });
  const lookUp = !plan && (kind !== 'person_ids' && kind !== 'distinct_ids' ? true : spansProjects(s) || Boolean(s.planOut));
  const client = s.dryRun && !lookUp ? undefined : await ctx.api();
  const projects: CaseProject[] = plan
    ? plan.projects.map((p) => ({ id: p.project, name: p.name, ...(p.unreachable ? { unreachable: p.unreachable } : {}) }))
    : await caseProjects(ctx, client, s);
  const projectIds = projects.map((p) => p.id);
  const spans = spansProjects(s) || projects.length > 1;

  const binding = {
    host,
    projects: projectIds,
    id_kind: kind,
    flags,
    input: { file: input.label, ids: list.ids.length, id_list_sha256: list.sha256 },
  };
  const bound = await bindJournal(ctx, s, binding, input);
  if (s.backup && !s.dryRun) await checkBackup(s.backup, Boolean(bound.state));
  const targets: CaseTargets = plan
    ? planTargets(plan)
    : await findTargets(ctx, client, projects, list, bound.state, {
        lookUp,
        policy,
        selection: s.selection,
        maxWaitMs: s.maxWaitMs,
        reads,
        concurrency: s.concurrency,
      });
  if (ctx.deps.signal?.aborted) throw new CancelledError('cancelled; nothing was deleted');

  const requestTimeoutMs = ctx.globals.timeout !== undefined || ctx.env.HOGCTL_TIMEOUT !== undefined ? ctx.timeoutMs() : BULK_TIMEOUT_MS;
  const action = deletePersons(ctx, { client, projects: projectIds, kind, flags, timeoutMs: requestTimeoutMs, reads });
  const done = bound.state?.answeredIds() ?? new Set<string>();
  let next = (bound.state?.maxChunk ?? 0) + 1;
  const chunks = targets.projects.flatMap((p) => {
    const left = done.size ? p.ids.filter((id) => !done.has(id)) : p.ids;
    const mine = chunkIds(left, next, undefined, p.id);
    next += mine.length;
    return mine;
  });
  const remaining = chunks.reduce((k, c) => k + c.ids.length, 0);
  const receiptPath = s.receipt ?? (s.dryRun ? undefined : bound.path.replace(/\.ndjson$/, '') + '.receipt.json');
  if (s.receipt) await checkWritableDir(s.receipt, '--receipt');
  if (s.journal) await checkWritableDir(s.journal, '--journal');
  if (s.planOut) await checkWritableDir(s.planOut, '--plan-out');
  ctx.info(
    planText({
      title: action.title,
      dryRun: Boolean(s.dryRun),
      profile,
      host,
      projects: targets.projects.map((p) => ({ id: p.id, name: p.name, unreachable: p.unreachable, targets: p.ids.length })),
      spans,
      input,
      resolveLater: !client,
      resolvedDuplicates: targets.resolvedDuplicates,
      unresolved: targets.unresolved.length,
      identifiers: targets.identifiers,
      selection: hasSelection(s.selection) ? describeSelection(s.selection) : undefined,
      sample: targets.projects.flatMap((p) => p.sample.map((person) => ({ project: p.id, person }))),
      resume: bound.state && { answered: done.size, left: remaining },
      requests: chunks.length,
      request: action.request,
      flags: action.flags,
      windows: s.rate,
      concurrency: s.concurrency,
      backup: s.backup,
      planOut: s.planOut,
      planFile: s.plan,
      journal: s.dryRun ? undefined : bound.path,
      receipt: receiptPath,
    }),
  );

  const facts: ReceiptFacts = {
    ctx,
    s,
    output,
    input,
    targets,
    flags,
    policy,
    profile,
    host,
    startedAt,
    journalPath: bound.path,
    receiptPath,
  };
  if (s.dryRun) {
    if (s.planOut) await writePlan(ctx, client!, s.planOut, facts, targets, reads);
    ctx.info(lookUp ? 'dry run: nothing was deleted' : 'dry run: nothing was sent');
    // The plan is the answer; a summary of zeros would only bury it. Scripts that asked for
    // JSON still get the record.
    await finish(facts, 'dry_run', bound.state, undefined, output.format === 'json' || output.format === 'ndjson');
    return;
  }
  if (chunks.length === 0) {
    if (bound.completedAt) ctx.info(`this erasure already completed at ${bound.completedAt} (journal ${bound.path}); no deletion was sent`);
    else ctx.info(bound.state ? 'every id was already answered in earlier runs; nothing left to send' : 'nothing to send');
    // Started again, a finished erasure is checked again: what the server holds now.
    const verification = await verify(ctx, s, action, bound.state, targets, client, startedAt);
    const receipt = await finish(facts, 'completed', bound.state, undefined, true, verification);
    const end = verificationOutcome(receipt, resumeCommand(ctx, action.command, s, bound.path));
    for (const line of end.warnings) ctx.warn(line);
    if (end.error) throw end.error;
    const unreachable = unreachableOutcome(receipt);
    if (unreachable) throw unreachable;
    return;
  }

  const place = spans
    ? `in ${describeProjects(targets.projects.filter((p) => p.ids.length).map((p) => p.id))} on ${host}${profile ? ` (profile ${profile})` : ''}`
    : `in project ${projectIds[0]} on ${host}${profile ? ` (profile ${profile})` : ''}`;
  // A selection is easy to get wrong and hard to undo: above a hundred persons, type the number.
  const typed = hasSelection(s.selection) && remaining > TYPED_CONFIRMATION_ABOVE ? String(remaining) : undefined;
  await confirmOrRefuse(ctx, {
    yes: s.yes,
    summary: `${action.confirmation(remaining)} ${place}.`,
    question: 'Go ahead? This cannot be undone.',
    typeToConfirm: typed,
  });
  if (ctx.deps.signal?.aborted) throw new CancelledError('cancelled; nothing was sent');
  // Before anything is journaled or deleted: may this key do this in these projects?
  await checkKeyScope(ctx, client!, spans ? undefined : projectIds[0], action.scope);

  const resume = resumeCommand(ctx, action.command, s, bound.path);
  const { result, journal, requests } = await runJob(ctx, {
    action,
    journal: bound,
    header: journalHeader(facts, projectIds),
    resume: Boolean(s.resume),
    findings: findings(targets, plan, policy),
    // The persons' distinct ids (and with --backup their records) are read before the first
    // deletion, when they can still be read.
    beforeChunks:
      lookUp || plan || s.backup
        ? (state, append) => takeSnapshot(ctx, client!, targets.projects, state, append, { policy, backup: s.backup, reads })
        : undefined,
    chunks,
    windows: s.rate,
    concurrency: s.concurrency,
    perMinute: s.perMinute,
    retries: s.retries,
    maxWaitMs: s.maxWaitMs,
    requestTimeoutMs,
    resumeCommand: resume,
  });

  const verification = result.reason === 'completed' ? await verify(ctx, s, action, journal, targets, client, startedAt) : undefined;
  const receipt = await finish(facts, result.reason, journal, result.error?.message, true, verification);
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
  const unreachable = unreachableOutcome(receipt);
  if (unreachable) throw unreachable;
  ctx.info(end.success!);
}

interface ReceiptFacts {
  ctx: Context;
  s: RunSettings;
  output: OutputSettings;
  input: Input;
  targets: CaseTargets;
  flags: DeleteFlags;
  policy: IdentifierPolicy;
  profile: string | null;
  host: string;
  startedAt: string;
  journalPath: string;
  receiptPath?: string;
}

/** A plan file as the job's input: its identifiers (by their keys), bound to the plan's hash. */
function planInput(path: string, plan: PlanFile): Input {
  const keys = plan.input.identifier_keys;
  return listedInput(path, { kind: plan.input.id_kind, sha256: plan.sha256, ids: keys, requested: keys.length }, { path });
}

/** The persons of a plan, as it names them: no lookup. */
function planTargets(plan: PlanFile): CaseTargets {
  return {
    projects: plan.projects.map((p): ProjectTargets => ({
      id: p.project,
      name: p.name,
      ...(p.unreachable ? { unreachable: p.unreachable } : {}),
      ids: p.person_uuids,
      matches: new Map(),
      newlyMatched: new Map(),
      distinctIds: new Map(Object.entries(p.distinct_ids)),
      sample: [],
    })),
    identifiers: plan.identifiers
      ? {
          matched: plan.identifiers.matched,
          several: plan.identifiers.matching_several,
          inSeveralProjects: plan.identifiers.in_several_projects,
          persons: plan.identifiers.persons,
          unmatched: plan.identifiers.unmatched_keys,
          unmatchedKeys: plan.identifiers.unmatched_keys,
        }
      : undefined,
    unresolved: [],
    resolvedDuplicates: 0,
    newlyResolved: new Map(),
    queries: 0,
  };
}

/** What the lookups found, as journal records, so that a resume need not look again. */
function findings(targets: CaseTargets, plan: PlanFile | undefined, policy: IdentifierPolicy): JournalRecord[] {
  const out: JournalRecord[] = [];
  const slices = <T>(entries: T[], make: (part: T[]) => JournalRecord) => {
    for (let i = 0; i < entries.length; i += 10_000) out.push(make(entries.slice(i, i + 10_000)));
  };
  slices([...targets.newlyResolved], (part) => ({ type: 'resolved', ids: Object.fromEntries(part) }));
  for (const p of targets.projects) {
    slices([...p.newlyMatched], (part) => ({ type: 'matched', project: p.id, ids: Object.fromEntries(part) }));
    if (p.newlySelected) {
      const ids = p.newlySelected;
      for (let i = 0; i < ids.length || i === 0; i += 10_000)
        out.push({
          type: 'selected',
          project: p.id,
          ids: ids.slice(i, i + 10_000),
          ...(i + 10_000 >= ids.length ? { complete: true } : {}),
        });
    }
    if (p.distinctIds.size) {
      const recorded = [...p.distinctIds].map(([uuid, ids]) => [uuid, plan ? ids : ids.map((d) => recordedDistinctId(d, policy))] as const);
      slices(recorded, (part) => ({ type: 'recorded', project: p.id, persons: Object.fromEntries(part) }));
    }
  }
  return out;
}

/** --plan-out: the resolved plan, with the persons' distinct ids read now, for review. */
async function writePlan(
  ctx: Context,
  client: ApiClient,
  path: string,
  r: ReceiptFacts,
  targets: CaseTargets,
  reads: RateBudget,
): Promise<void> {
  // The distinct ids the lookups did not read whole are read now, so that applying the plan
  // needs no read before it deletes.
  const collected = new JournalState();
  for (const record of findings(targets, undefined, r.policy)) collected.apply(record);
  await takeSnapshot(ctx, client, targets.projects, collected, async (record) => collected.apply(record), { policy: r.policy, reads });
  const { list } = r.input;
  writePlanFile(path, {
    plan_format: PLAN_FORMAT,
    command: 'persons bulk-delete',
    hogctl_version: VERSION,
    created_at: r.startedAt,
    profile: r.profile,
    host: r.host,
    projects: targets.projects.map((p) => ({
      project: p.id,
      name: p.name,
      unreachable: p.unreachable ?? null,
      person_uuids: p.ids,
      distinct_ids: Object.fromEntries(p.ids.map((id) => [id, collected.recorded.get(p.id)?.get(id) ?? []])),
    })),
    flags: r.flags,
    input: {
      file: r.input.label,
      id_kind: list.kind,
      ids: list.ids.length,
      id_list_sha256: list.sha256,
      // The identifiers by their keys (salted unless --keep-identifiers): which ones the plan covers.
      identifier_keys: list.ids.map((value) => identifierKey(value, r.policy)),
      selection: hasSelection(r.s.selection) ? r.s.selection : null,
    },
    identifiers: targets.identifiers
      ? {
          salt: r.policy.salt,
          matched: targets.identifiers.matched,
          matching_several: targets.identifiers.several,
          in_several_projects: targets.identifiers.inSeveralProjects,
          persons: targets.identifiers.persons,
          unmatched_keys: targets.identifiers.unmatchedKeys,
        }
      : null,
  });
  ctx.info(`plan written to ${path}: apply it with \`hogctl persons bulk-delete --plan ${path}\``);
}

/** The journal's first line: what the run is bound to, and the settings --resume takes from it. */
function journalHeader(r: ReceiptFacts, projects: string[]) {
  const { s, input } = r;
  return {
    created_at: r.startedAt,
    profile: r.profile,
    host: r.host,
    project: projects[0],
    ...(projects.length > 1 || spansProjects(s) ? { projects } : {}),
    id_kind: input.list.kind,
    flags: r.flags,
    input: {
      file: input.label,
      format: input.list.format,
      column: s.column ?? null,
      ids: input.list.ids.length,
      id_list_sha256: input.list.sha256,
    },
    ...(hasSelection(s.selection) ? { selection: s.selection } : {}),
    settings: {
      receipt: r.receiptPath ? resolvePath(r.receiptPath) : null,
      output: r.ctx.globals.output ?? r.ctx.env.HOGCTL_OUTPUT ?? null,
      rate: s.rate.map((w) => ({ limit: w.limit, window_ms: w.windowMs })),
      concurrency: s.concurrency,
      retries: s.retries,
      max_wait_ms: s.maxWaitMs,
      skip_invalid: Boolean(s.skipInvalid),
      backup: s.backup ? resolvePath(s.backup) : null,
      read_rate: s.readPerMinute,
      projects_flag: s.allProjects ? ('all' as const) : s.projects ? ('list' as const) : null,
    },
    ...(r.policy.salt !== null || input.list.kind === 'emails' || input.list.kind === 'mixed'
      ? { identifiers: { salt: r.policy.salt } }
      : {}),
  };
}

/** Writes the receipt (built from the journal: the server's answers) and prints its summary. */
async function finish(
  r: ReceiptFacts,
  status: ReceiptStatus,
  journal: JournalState | undefined,
  error?: string,
  print = true,
  verification?: { total?: Verification; perProject: Map<string, Verification> },
): Promise<Receipt> {
  const { ctx, s, input, targets } = r;
  const kind: IdKind = input.list.kind;
  const receipt = buildReceipt(journal, input.list, {
    status,
    version: VERSION,
    startedAt: journal?.header?.created_at ?? r.startedAt,
    finishedAt: new Date(ctx.deps.now()).toISOString(),
    profile: r.profile,
    host: r.host,
    project: targets.projects[0].id,
    file: input.label,
    format: input.list.format,
    column: s.column ?? null,
    kind,
    flags: r.flags,
    skipInvalid: Boolean(s.skipInvalid),
    journal: journal?.header ? r.journalPath : null,
    receipt: r.receiptPath ?? null,
    targets: targets.projects.reduce((k, p) => k + p.ids.length, 0),
    // Identifiers are named by their keys; several naming one person are no duplicates.
    unresolved: targets.identifiers ? targets.identifiers.unmatchedKeys : targets.unresolved,
    resolvedDuplicates: targets.identifiers ? 0 : targets.resolvedDuplicates,
    identifiers: targets.identifiers && { policy: r.policy, totals: targets.identifiers },
    verification: verification?.total,
    selection: hasSelection(s.selection) ? s.selection : undefined,
    projects: targets.projects.map((p) => ({
      id: p.id,
      name: p.name,
      unreachable: p.unreachable,
      targets: p.ids.length,
      verification: verification?.perProject.get(p.id),
    })),
    backup: s.backup ? resolvePath(s.backup) : null,
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

/**
 * Checks that what the run did is so on the server, project by project, unless --no-verify or
 * nothing can be checked: the persons are gone and, with --delete-events, their event deletions
 * are queued.
 */
async function verify(
  ctx: Context,
  s: RunSettings,
  action: BulkAction,
  journal: JournalState | undefined,
  targets: CaseTargets,
  client: ApiClient | undefined,
  startedAt: string,
): Promise<{ total?: Verification; perProject: Map<string, Verification> } | undefined> {
  if (s.verify === false || !journal || !client) return undefined;
  const done = journal.answeredIds();
  const perProject = new Map<string, Verification>();
  const sentTo = (project: string) =>
    [...journal.chunks.values()]
      .filter((c) => c.project === project)
      .flatMap((c) => c.ids)
      .filter((id) => done.has(id));
  const all = targets.projects.filter((p) => !p.unreachable);
  const count = all.reduce((k, p) => k + new Set(sentTo(p.id)).size, 0);
  ctx.info(`verifying: asking the server whether the ${n(count)} ${action.targetNoun} are gone…`);
  for (const p of all) {
    const ids = [...new Set(sentTo(p.id))];
    const v = action.verify ? await verifyGone(action.verify, ids, p.id, ctx.deps.now) : undefined;
    const found = [...journal.chunks.values()]
      .filter((c) => c.project === p.id && c.answer?.summary?.events_queued_for_deletion)
      .reduce((k, c) => k + (c.answer!.summary!.persons_found ?? 0), 0);
    const events =
      journal.header?.flags.delete_events && found > 0
        ? eventsVerification(await eventDeletions(ctx, client, p.id, ids, Date.parse(startedAt) - 60_000), found)
        : undefined;
    if (v || events)
      perProject.set(p.id, {
        ...(v ?? {
          status: 'unavailable',
          at: new Date(ctx.deps.now()).toISOString(),
          checked: 0,
          still_present: 0,
          still_present_ids: [],
        }),
        ...(events ? { events } : {}),
      });
  }
  const total = totalVerification([...perProject.values()]);
  const said = total && describeVerification(total, action.targetNoun);
  if (said) ctx.info(said);
  return { total, perProject };
}
