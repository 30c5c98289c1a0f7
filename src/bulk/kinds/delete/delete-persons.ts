// The job of `persons bulk-delete`: POST bulk_delete with up to 1,000 ids a request
// (docs/server-contract.md §6.6) within PostHog's two delete windows. Ids whose answers were lost
// are checked by asking which of them still name a person; with --keep-person a kept person
// proves nothing, so they are sent again unchecked. Afterwards every person is checked gone and,
// with --delete-events, their event deletions checked queued (verify.ts).
import type { Context } from '../../../context.js';
import { PartialFailureError } from '../../../errors.js';
import type { ApiClient } from '../../../http/client.js';
import type { BulkDeleteSummary } from '../../../api/bulk-delete.js';
import type { ActionEnv, BulkAction, JobKind, JobVerification, KindFields, KindRequests, Verdict, VerifyEnv } from '../../engine/action.js';
import { describeEventsLeft, eventsLeft, isHashedDistinctId } from './events-left.js';
import { BULK_DELETE_CHUNK, DELETE_WINDOWS } from './limits.js';
import { deletionReceipt, openDeletionErrors, type BulkDeleteFlags, type DeletionReceipt } from './delete-receipt.js';
import type { ChunkRecord } from '../../engine/journal-format.js';
import type { JournalState } from '../../engine/journal-state.js';
import { presenceCheck, type PresenceCheck } from '../../engine/lost-answers.js';
import { describeAsked } from '../../engine/plan.js';
import type { IdentifierTotals } from '../../input/targets.js';
import type { RateBudget } from '../../engine/rate.js';
import { sender } from './send.js';
import { describeSweep, sweepEvents, type SweepRecord } from './sweep.js';
import type { IdKind } from '../../input/validate.js';
import { describeVerification, eventDeletions, eventsVerification, totalVerification, verifyGone, type Verification } from './verify.js';
import { counted, formatNumber, plural } from '../../../io/counts.js';

export interface DeletePersonsSettings {
  /** Undefined in a dry run: nothing is sent. */
  client?: ApiClient;
  /** The projects of the job: one, or those of an erasure across projects. */
  projects: string[];
  /** What the values of the input are. */
  kind: IdKind;
  /** Whether they go out as given (a plain file): distinct ids then stay distinct ids; looked
   * up, every person is sent by UUID. */
  asGiven: boolean;
  flags: BulkDeleteFlags;
  timeoutMs: number;
  /** The read budget of the job: checks of lost answers and the verification. */
  reads: RateBudget;
}

/** The flags a deletion's journal (or plan) recorded, read back; undefined when it has none. */
export function recordedFlags(fields: KindFields | undefined): BulkDeleteFlags | undefined {
  const f = fields?.flags as Partial<BulkDeleteFlags> | undefined;
  if (!f || typeof f !== 'object') return undefined;
  return { delete_events: f.delete_events === true, delete_recordings: f.delete_recordings === true, keep_person: f.keep_person === true };
}

/** "--delete-events --keep-person": the flags as the command line gives them. */
function flagWords(fields: KindFields): string {
  const f = recordedFlags(fields);
  if (!f) return '';
  return [f.delete_events && '--delete-events', f.delete_recordings && '--delete-recordings', f.keep_person && '--keep-person']
    .filter(Boolean)
    .join(' ');
}

/** --sweep-events: the identifiers of the input in clear (addresses, distinct ids), swept whether
 * or not they named a person: an address used only as a personless distinct id names no one. */
export interface SweepSettings {
  identifiers: string[];
}

/** The job of `persons bulk-delete`. */
export function deleteKind(flags: BulkDeleteFlags, sweep?: SweepSettings): JobKind<DeletionReceipt> {
  return {
    words: { job: 'erasure', request: 'deletion', done: 'deleted', unit: 'ids' },
    byPersonId: { verb: 'delete', how: '`hogctl persons delete <uuid>`, or a person_id column beside email' },
    journal: {
      command: 'persons bulk-delete',
      binding: { fields: sweep ? { flags, sweep_events: true } : { flags }, describe: flagWords },
      hashesIdentifiers: true,
      resends: {
        find: openDeletionErrors,
        note: (count) => `sending ${counted(count, 'person')} again that the server could not delete (deletion_errors)`,
      },
    },
    requests: deletionRequests(flags, sweep),
    check: {
      // A kept person proves nothing: with --keep-person nothing is read back.
      readsBack: !flags.keep_person,
      verify: (ctx, env) => verifyDeletion(ctx, env, flags, sweep),
      verdict: deletionVerdict,
    },
    receipt: deletionReceipt(flags),
  };
}

/** How a deletion's requests go: bulk_delete, 1,000 ids each, within PostHog's delete windows. */
function deletionRequests(flags: BulkDeleteFlags, sweep?: SweepSettings): KindRequests<DeletionReceipt> {
  return {
    // The sweep reaches identifiers that name no person: it runs with nothing to delete, too.
    runsWithoutRequests: Boolean(sweep),
    sendsIdsAsGiven: true,
    // Distinct ids are looked up (batch_by_distinct_ids) and the persons deleted by UUID: the
    // receipt then names them by UUID, which deletion_status needs for erasure-status to follow
    // their event deletions.
    looksUpDistinctIds: true,
    chunkSize: BULK_DELETE_CHUNK,
    windows: DELETE_WINDOWS,
    // Looked up, the persons' distinct ids are recorded for erasure-status before they go.
    snapshot: (lookUp) => lookUp,
    makeAction: async (ctx, env: ActionEnv) => {
      const action = deletePersons(ctx, {
        client: env.client,
        projects: env.projects,
        kind: env.kind,
        asGiven: env.asGiven,
        flags,
        timeoutMs: env.timeoutMs,
        reads: env.reads,
      });
      // An identifier that names no person may still carry events: the plan counts them.
      if (sweep && env.client && !env.journal?.header) action.planLines = await sweepPlanLines(ctx, env.client, env.projects, sweep);
      return action;
    },
  };
}

/**
 * The confirmation's description of what goes: "18,997 persons and their events", "the events
 * and recordings of 12 persons (keeping the persons)".
 */
export function describeDeletion(kind: IdKind, count: number, flags: BulkDeleteFlags): string {
  const persons =
    kind === 'distinct_ids' ? `the persons behind ${formatNumber(count)} distinct ${plural(count, 'id')}` : counted(count, 'person');
  const data = [flags.delete_events && 'events', flags.delete_recordings && 'recordings'].filter(Boolean).join(' and ');
  if (flags.keep_person) return `the ${data} of ${persons} (keeping the persons themselves)`;
  return data ? `${persons} and their ${data}` : `${persons} (their events and recordings stay)`;
}

/**
 * Persons the server could not delete each time it was asked are a failure (exit 8); so are
 * persons it reported deleted that still exist when checked, unless it queued their deletion
 * (then a warning to check again later).
 */
export function deletionVerdict(
  receipt: DeletionReceipt,
  o: { resume: string; retries: number; receiptPath?: string; account?: string },
): Verdict {
  const errors = receipt.counts.deletion_errors ?? 0;
  if (errors > 0) {
    return {
      warnings: [],
      error: new PartialFailureError(
        `${counted(errors, 'person')} could not be deleted: the server reported an error deleting them (deletion_errors) each time it was asked, ${o.retries + 1} times at most${o.account ? `: ${o.account}` : ''}; the receipt ${o.receiptPath ?? ''} lists them`,
        `the server asks for them to be sent again: do so later with\n  ${o.resume}`,
      ),
    };
  }
  const v = receipt.verification;
  if (v?.status === 'unavailable')
    return {
      warnings: [
        `the verification could not run (the server could not say whether the persons are gone): the receipt does not confirm the erasure; check it later with:\n  hogctl persons erasure-status --receipt ${o.receiptPath ?? '<receipt>'}`,
      ],
    };
  if (!v || v.status !== 'still_present') return { warnings: [] };
  const left = `${formatNumber(v.still_present)} of the ${formatNumber(v.checked)} persons still exist on the server`;
  if ((receipt.counts.persons_queued_for_deletion ?? 0) > 0) {
    return {
      warnings: [`${left}: the server queued their deletion and has not carried it out yet; check again later with:\n  ${o.resume}`],
    };
  }
  return {
    warnings: [],
    error: new PartialFailureError(
      `${left}, though the server answered that it deleted them; the receipt lists them (verification.still_present_ids)`,
      `check again later with:\n  ${o.resume}\nif they are still there, delete them one by one with \`hogctl persons delete <uuid>\``,
    ),
  };
}

const BY: Record<IdKind, string> = {
  person_ids: 'by person id',
  distinct_ids: 'by distinct id',
  emails: 'by e-mail address',
  mixed: 'by e-mail address, distinct id and person id',
  selection: 'chosen by a selection',
};

export function describeFlags(f: BulkDeleteFlags): string {
  const yn = (b: boolean) => (b ? 'yes' : 'no');
  return `delete events: ${yn(f.delete_events)} · delete recordings: ${yn(f.delete_recordings)} · keep person: ${yn(f.keep_person)}`;
}

/** A deletion, and how to tell whether its persons are gone. */
export interface DeleteAction extends BulkAction<DeletionReceipt> {
  /** Which of the ids still name a person; undefined when nothing can be checked (--keep-person, a dry run). */
  gone?: PresenceCheck;
}

export function deletePersons(ctx: Context, s: DeletePersonsSettings): DeleteAction {
  const { client, projects, kind, flags } = s;
  // Identifiers that were looked up became the persons' UUIDs: those are what is sent and checked.
  const sent = s.asGiven && kind === 'distinct_ids' ? 'distinct_ids' : 'person_ids';
  const attempt = client
    ? sender({ client, projectId: projects[0], kind: sent, flags, timeoutMs: s.timeoutMs, now: ctx.clock.now })
    : undefined;
  // Whether ids still name a person, read within PostHog's read rate (240/min); none with
  // --keep-person (the persons stay) or in a dry run. `warning` is said once if the server cannot tell.
  const check = (warning: string) =>
    client && !flags.keep_person
      ? presenceCheck({
          client,
          kind: sent,
          budget: s.reads,
          signal: ctx.deps.signal,
          unavailable: (why) => ctx.warn(warning.replace('{why}', why)),
        })
      : undefined;
  const by = BY[kind];
  return {
    title: `${flags.keep_person ? 'delete the data of' : 'delete'} persons ${by}`,
    request: `POST /api/projects/${projects.length === 1 ? projects[0] : '<project>'}/persons/bulk_delete/`,
    flags: describeFlags(flags),
    confirmation: (count) => `This deletes ${describeDeletion(kind, count, flags)}`,
    scope: 'person:write',
    attempt: (chunk) => {
      if (!attempt) throw new Error('a dry run sends nothing');
      return attempt(chunk);
    },
    presence: check(
      'cannot check the ids of requests whose answers were lost: {why}; they are sent again, and persons a lost request deleted are not counted (the receipt says so)',
    ),
    gone: check('cannot verify that the persons are gone: {why}; the receipt says so'),
    targetNoun: sent === 'distinct_ids' ? 'distinct ids' : 'persons',
    checkedLost: (gone) =>
      `${formatNumber(gone)} of them no longer name a person (the earlier request deleted them); the others are sent again`,
    account: (receipt, asked) => deletionAccount(receipt, asked),
    describeAnswer: ({ summary: answer }) => {
      const summary = answer as BulkDeleteSummary | null;
      return summary
        ? `found ${summary.persons_found ?? '?'}, deleted ${summary.persons_deleted ?? '?'}${summary.persons_queued_for_deletion !== undefined ? `, queued ${summary.persons_queued_for_deletion}` : ''}`
        : 'empty answer';
    },
  };
}

/**
 * What a deletion did, in the units the person asked in (ARCHITECTURE.md §3): the addresses (or
 * other identifiers) first, found and not found, naming those that named no one; then the
 * persons deleted. Ids of a plain file whose answers were lost and that name no one when checked
 * are said as such, apart from the answered ones: they may have been deleted by that request, or
 * never have named anyone.
 */
export function deletionAccount(receipt: DeletionReceipt, asked?: IdentifierTotals): string {
  const c = receipt.counts;
  const gone = c.persons_gone_after_lost_answer ?? 0;
  // Looked up first, the persons existed: those gone after a lost answer were deleted by it.
  const lookedUp = receipt.sent_id_kind === 'person_uuids';
  const lead = asked && receipt.identifiers ? describeAsked(receipt.identifiers.kind, asked) : '';
  if (c.sent === 0) return `${lead}no request was answered`;
  const queued = c.persons_queued_for_deletion ? `, ${formatNumber(c.persons_queued_for_deletion)} queued for deletion` : '';
  if (lookedUp) {
    // The persons were named by the lookup: their count is the unit, not the UUIDs sent.
    const goneNote = gone ? `, ${formatNumber(gone)} of them found gone when checked after a lost answer` : '';
    if (c.persons_deleted === null || c.persons_deleted === undefined)
      return `${lead}${counted(c.sent, 'person')} sent and acknowledged (the server did not report how many it deleted)`;
    const found = lead && c.persons_found === c.sent ? '' : ` (${formatNumber(c.persons_found ?? 0)} found)`;
    return `${lead}${counted(c.persons_deleted, 'person')} deleted${goneNote}${queued}${found}${lead ? '' : ` from ${counted(c.sent, 'id')} sent`}`;
  }
  const answered = c.sent - gone;
  const lost = gone
    ? `${counted(gone, 'id')} sent whose answers were lost name no person any more when checked (the lost request deleted them, or they never named one)`
    : '';
  if (answered === 0) return `${lead}${lost}`;
  const said =
    c.persons_deleted === null || c.persons_deleted === undefined
      ? `${counted(answered, 'id')} sent and acknowledged (the server did not report how many persons it deleted)`
      : `${counted(c.persons_deleted, 'person')} deleted${queued} (${formatNumber(c.persons_found ?? 0)} found) from ${counted(answered, 'id')} sent`;
  return `${lead}${said}${lost ? `; ${lost}` : ''}`;
}

/**
 * The ids of a project to read back after the run: those of requests whose answer said it found
 * persons (or gave no count: an older server's empty body), and those a lost answer left
 * uncertain. A request that found no one deleted no one: its ids need no read, however many
 * there are (2,000,000 unknown ids would otherwise take 42 minutes of reads at 240 a minute).
 * Persons the server could not delete (deletion_errors, still open) are known to be there.
 */
function idsToVerify(journal: JournalState, chunks: ChunkRecord[]): { ids: string[]; notFound: number } {
  const done = journal.answeredIds();
  const read = new Set<string>();
  const skipped = new Set<string>();
  for (const c of chunks) {
    for (const id of c.gone ?? []) read.add(id);
    if (!c.answer) continue;
    const foundNone = (c.answer.summary as BulkDeleteSummary | null)?.persons_found === 0 && !c.answer.unclear;
    for (const id of c.ids) if (done.has(id)) (foundNone ? skipped : read).add(id);
  }
  for (const id of read) skipped.delete(id);
  return { ids: [...read].filter((id) => done.has(id)), notFound: skipped.size };
}

/**
 * Checks that what the run did is so on the server, project by project: the persons are gone
 * and, with --delete-events, their event deletions are queued.
 */
async function verifyDeletion(
  ctx: Context,
  env: VerifyEnv,
  flags: BulkDeleteFlags,
  sweep?: SweepSettings,
): Promise<JobVerification<Verification> | undefined> {
  const { journal, targets } = env;
  const action = env.action as DeleteAction;
  const searched = targets.projects.filter((p) => !p.unreachable);
  const toRead = new Map(searched.map((p) => [p.id, idsToVerify(journal, chunksOf(journal, p.id))]));
  announceVerification(ctx, action, [...toRead.values()]);
  // An interrupted verification goes on where it stopped; any other starts afresh.
  const going = journal.verification && !journal.verification.finished ? journal.verification.gone : undefined;
  if (!going) await env.record?.({ type: 'verification', at: new Date(ctx.clock.now()).toISOString(), stage: 'started' });
  const perProject = new Map<string, Verification>();
  const eventsLeftIn: string[] = [];
  for (const p of searched) {
    const checked = await verifyProjectDeletion(ctx, env, flags, sweep, p.id, toRead.get(p.id)!, going);
    if (checked.eventsLeft) eventsLeftIn.push(checked.eventsLeft);
    if (checked.verification) perProject.set(p.id, checked.verification);
  }
  await env.record?.({ type: 'verification', at: new Date(ctx.clock.now()).toISOString(), stage: 'finished' });
  const total = totalVerification([...perProject.values()]);
  const said = total && describeVerification(total, action.targetNoun);
  if (said) ctx.info(said);
  noteEventsLeft(ctx, flags, total, eventsLeftIn);
  return { total, perProject };
}

function chunksOf(journal: VerifyEnv['journal'], project: string) {
  return [...journal.chunks.values()].filter((c) => c.project === project);
}

/** Says how many persons are read back, and how many the server did not find (not read back). */
function announceVerification(ctx: Context, action: DeleteAction, toRead: { ids: string[]; notFound: number }[]): void {
  const count = toRead.reduce((k, r) => k + r.ids.length, 0);
  const skipped = toRead.reduce((k, r) => k + r.notFound, 0);
  const aside = skipped ? ` (${counted(skipped, 'id')} the server did not find ${plural(skipped, 'is', 'are')} not read back)` : '';
  const one = action.targetNoun.replace(/s$/, '');
  const which = count === 1 ? one : counted(count, one, action.targetNoun);
  ctx.info(
    count === 0
      ? `verifying: nothing to read back${aside}`
      : `verifying: asking the server whether the ${which} ${plural(count, 'is', 'are')} gone…${aside}`,
  );
}

/** One project: the persons gone, their event deletions queued (and the events those left),
 * and the sweep. */
async function verifyProjectDeletion(
  ctx: Context,
  env: VerifyEnv,
  flags: BulkDeleteFlags,
  sweep: SweepSettings | undefined,
  project: string,
  toRead: { ids: string[]; notFound: number },
  going: Set<string> | undefined,
): Promise<{ verification?: Verification; eventsLeft?: string }> {
  const action = env.action as DeleteAction;
  const { ids: all, notFound } = toRead;
  const ids = going ? all.filter((id) => !going.has(id)) : all;
  const checkedGone = async (gone: string[]) => {
    if (gone.length) await env.record?.({ type: 'verified', project, at: new Date(ctx.clock.now()).toISOString(), gone });
  };
  const gone = action.gone
    ? await verifyGone(action.gone, ids, project, ctx.clock.now, { notFound, alreadyGone: all.length - ids.length, checkedGone })
    : undefined;
  // The persons the server found and whose events it said it queued.
  const found = chunksOf(env.journal, project)
    .map((c) => c.answer?.summary as BulkDeleteSummary | null | undefined)
    .filter((summary) => summary?.events_queued_for_deletion)
    .reduce((k, summary) => k + (summary!.persons_found ?? 0), 0);
  const events =
    flags.delete_events && found > 0
      ? eventsVerification(await eventDeletions(ctx, env.client, project, ids, Date.parse(env.startedAt) - 60_000), found)
      : undefined;
  // The deletion has run already (a run continued after the weekly job): count what it left.
  const eventsLeft =
    events?.status === 'queued' && !events.pending && events.completed ? await leftAfterDeletion(ctx, env, project) : undefined;
  const swept = sweep ? await sweepProject(ctx, env, project, sweep) : undefined;
  if (!gone && !events && !swept) return { eventsLeft };
  const base: Verification = gone ?? {
    status: 'unavailable',
    at: new Date(ctx.clock.now()).toISOString(),
    checked: 0,
    still_present: 0,
    still_present_ids: [],
  };
  return { verification: { ...base, ...(events ? { events } : {}), ...(swept ? { sweep: swept } : {}) }, eventsLeft };
}

/** The events of the erased distinct ids kept in clear that PostHog's deletion left, as a line. */
async function leftAfterDeletion(ctx: Context, env: VerifyEnv, project: string): Promise<string | undefined> {
  const erased = [...(env.journal.recorded.get(project)?.values() ?? [])].flat().filter((d) => !isHashedDistinctId(d));
  const left = erased.length
    ? await eventsLeft(ctx, env.client, project, erased, { maxWaitMs: env.maxWaitMs, flag: '--max-wait' }, ctx.clock.now())
    : new Map();
  return left.size ? `project ${project}: ${describeEventsLeft(left)}` : undefined;
}

/** What PostHog's deletion of events leaves, and what to do about it. */
function noteEventsLeft(ctx: Context, flags: BulkDeleteFlags, total: Verification | undefined, eventsLeftIn: string[]): void {
  if (eventsLeftIn.length) {
    ctx.warn(
      `the deletion of their events has run, and ${eventsLeftIn.join('; ')}: they are stored with another person id (distinct ids never the person's, or not yet squashed), and PostHog's deletion goes by person id. Delete them by query with \`hogctl events delete --distinct-id …\` (PostHog's self-service deletion, where it has enabled it for the project); else, on PostHog Cloud, ask PostHog support to delete them, naming the project and the distinct ids; on a self-hosted PostHog, delete them in ClickHouse by team_id and distinct_id`,
    );
  } else if (flags.delete_events && total?.events) {
    // PostHog's job deletes events by their stored person_id after the squash (posthog/dags/
    // deletes.py), docs/server-contract.md §14.5: say what it leaves, and how to count it.
    ctx.info(
      "note: PostHog deletes events by person id, after squashing person overrides: the persons' own personless and pre-merge events go with them, but events of these distinct ids that were never the persons' carry another person id and stay. Once the deletion has run (Saturday night UTC, after the person-overrides squash), `hogctl persons erasure-status --receipt <this run's receipt>` counts them",
    );
  }
}

/** The plan's line of a sweep: the events the given identifiers carry as distinct ids now. */
async function sweepPlanLines(ctx: Context, client: ApiClient, projects: string[], sweep: SweepSettings): Promise<string[]> {
  if (!sweep.identifiers.length) return [];
  const carried = new Map<string, number>();
  for (const project of projects) {
    const left = await eventsLeft(ctx, client, project, sweep.identifiers, { maxWaitMs: 15 * 60_000, flag: '--max-wait' }, ctx.clock.now());
    for (const [id, k] of left) carried.set(id, (carried.get(id) ?? 0) + k);
  }
  const events = [...carried.values()].reduce((k, x) => k + x, 0);
  const named = [...carried].slice(0, 3).map(([id, k]) => `${id}: ${formatNumber(k)}`);
  const which = named.length ? ` (${named.join(', ')}${carried.size > 3 ? ', …' : ''})` : '';
  return [
    `  sweep     ${counted(events, 'event carries', 'events carry')} the given identifiers as distinct ids${which}, whether they name a person or not; --sweep-events asks PostHog to delete them with those of the persons' own distinct ids, up to the run's start`,
  ];
}

/**
 * The sweep of one project: the distinct ids of the persons as read before their deletion (those
 * kept in clear) and the input's own identifiers, whether they named a person or not (an address
 * is swept in any case of its ASCII letters, as the erasure looked it up: sweep.ts).
 */
async function sweepProject(ctx: Context, env: VerifyEnv, project: string, sweep: SweepSettings): Promise<SweepRecord> {
  const recorded = [...(env.journal.recorded.get(project)?.values() ?? [])].flat().filter((d) => !isHashedDistinctId(d));
  // The bound is the first run's start (the receipt's started_at): a --resume makes the same queries.
  const startedAt = env.journal.header?.created_at ?? env.startedAt;
  const record = await sweepEvents(ctx, project, [...recorded, ...sweep.identifiers], startedAt, {
    maxWaitMs: env.maxWaitMs,
    flag: '--max-wait',
  });
  // Nothing is said swept that was not: a sweep that could not be made is a warning.
  if (record.status === 'unavailable') ctx.warn(describeSweep(project, record));
  else ctx.info(describeSweep(project, record));
  return record;
}
