// Whether an erasure is still complete, later: `persons erasure-status --receipt <file>` reads a
// bulk-delete receipt and asks the server, project by project, what the receipt says should be
// so. The persons are still gone (batch_by_uuids, or batch_by_distinct_ids for a run by distinct
// id); their distinct ids still name no one (a deleted person's distinct ids are blocked until
// reset_person_distinct_id, docs/server-contract.md §6.5; if one names a person again, data about
// that person is being collected again); and the deletion of their events, which PostHog queues
// and runs in a weekly batch, has run (deletion_status). Reads only, within the read rate.
//
// Once that deletion has run, it also counts the events that still carry one of the erased
// distinct ids: PostHog deletes events by their stored person_id, after the person-overrides squash
// has given the person's own personless and pre-merge events its UUID (posthog/dags/deletes.py,
// posthog/dags/person_overrides.py, docs/server-contract.md §14.5), so events of distinct ids that
// were never the person's survive it, and an erasure that stopped at "the deletion has run" would
// claim more than is so.
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { fileError } from '../../../config/secret-file.js';
import { requireEvidenceKey } from '../../../config/evidence-key.js';
import { CLEAR, identifierKey, keyedPolicy, lowerAscii } from '../../input/identifiers.js';
import type { ApiClient } from '../../../http/client.js';
import { presenceCheck } from '../../engine/lost-answers.js';
import { RateBudget, readBurst } from '../../engine/rate.js';
import type { DeletionReceipt } from './delete-receipt.js';
import { READ_PER_MINUTE } from '../../input/resolve.js';
import { eventsLeft, isHashedDistinctId } from './events-left.js';
import type { SweepRecord } from './sweep.js';
import { sweepStatus } from './sweep-status.js';
import type { WaitCap } from '../../../cli/wait-out-limit.js';
import { eventDeletions } from './verify.js';
import { JsonSyntaxError, readJsonFile } from '../../../io/json-file.js';
import { earlierReceiptError, RECEIPT_FORMAT } from '../../engine/receipt.js';

/** The lists of a receipt that hold an id per person sent. */
const COMPACT_LISTS = new Set(['ids_sent']);

/** The longest single wait for the query limit (--max-wait). */
const DEFAULT_MAX_WAIT_MS = 15 * 60_000;

/** Ids listed per project at most. */
const LIST_CAP = 1000;

export interface ErasureStatus {
  project: string;
  name: string | null;
  /** complete, pending (events not deleted yet), reopened (a person or distinct id is back),
   * unreachable (not searched by the erasure), events_remain (the deletion has run, and events still
   * carry erased distinct ids: `events_remaining`), or unknown (the server could not say). */
  status: 'complete' | 'pending' | 'reopened' | 'unreachable' | 'events_remain' | 'not_swept' | 'unknown';
  persons_checked: number;
  /** The persons the erasure deleted, as its receipt counted them (null: the server did not say). */
  persons_deleted: number | null;
  persons_present: number;
  persons_present_ids: string[];
  distinct_ids_checked: number;
  /** Distinct ids that name a person now. */
  distinct_ids_in_use: number;
  distinct_ids_in_use_list: string[];
  /** Distinct ids the receipt keeps by a hash, which cannot be asked about. */
  distinct_ids_unchecked: number;
  /** Persons whose event deletion the erasure queued; null when it did not ask for one, or when the
   * server's answers did not say (the empty 202 of older servers). */
  events_queued: number | null;
  events_pending: number;
  events_completed: number;
  /** Queued deletions deletion_status no longer (or never) listed. */
  events_unseen: number;
  /** Once every queued event deletion has run: the events that still carry one of the erased
   * distinct ids (those the receipt keeps in clear): stored with another person id (ids never the
   * person's, or not squashed yet), which PostHog's deletion leaves. Null when not counted (no event
   * deletion asked for, or not run yet). */
  events_remaining: number | null;
  /** The distinct ids those events carry (the first 1,000). */
  events_remaining_distinct_ids: string[];
  /** With --sweep-events: its requests, those PostHog has completed, and why it cannot be
   * followed or was not made (not_swept). Null without a sweep. */
  sweep_requests: number | null;
  sweep_requests_completed: number;
  sweep_problem: string | null;
  /** Events of the erased distinct ids collected after the erasure's start: new data, the case
   * reopened, not a failure of the deletion. Null when not counted. */
  events_after_erasure: number | null;
}

/** Whether a receipt read from a file says it is a deletion's, of this format. */
function isDeletionReceipt(value: unknown): value is DeletionReceipt {
  if (typeof value !== 'object' || value === null) return false;
  return (
    'command' in value && value.command === 'persons bulk-delete' && 'receipt_format' in value && value.receipt_format === RECEIPT_FORMAT
  );
}

/** Read a piece at a time (io/json-file.ts): a receipt of ten million ids is too long for one
 * string, and its ids are kept 16 bytes each. */
export async function readReceipt(path: string): Promise<DeletionReceipt> {
  let receipt: unknown;
  try {
    receipt = readJsonFile(path, { compact: COMPACT_LISTS });
  } catch (err) {
    if (err instanceof JsonSyntaxError)
      throw new UsageError(
        `${path} is not a receipt: it is not JSON (${err.message})`,
        'pass the receipt a `persons bulk-delete` run wrote',
      );
    throw fileError(err, path, 'read');
  }
  const earlier = earlierReceiptError(path, receipt);
  if (earlier) throw earlier;
  if (!isDeletionReceipt(receipt)) {
    throw new UsageError(
      `${path} is not a receipt of \`hogctl persons bulk-delete\``,
      'pass the receipt a `persons bulk-delete` run wrote',
    );
  }
  return receipt;
}

/** `readsPerMinute`: the read budget (PostHog allows 240 reads of persons a minute per key). */
export async function erasureStatus(
  ctx: Context,
  client: ApiClient,
  receipt: DeletionReceipt,
  readsPerMinute = READ_PER_MINUTE,
  maxWaitMs = DEFAULT_MAX_WAIT_MS,
): Promise<ErasureStatus[]> {
  const budget = new RateBudget(readsPerMinute, ctx.clock, readBurst(readsPerMinute));
  const unavailable: string[] = [];
  const check = (kind: 'person_ids' | 'distinct_ids') =>
    presenceCheck({ client, kind, budget, signal: ctx.deps.signal, unavailable: (why) => unavailable.push(why) });
  const persons = check('person_ids');
  const distinct = check('distinct_ids');
  const since = Date.parse(receipt.started_at) - 60_000;
  const out: ErasureStatus[] = [];
  for (const p of receipt.projects) {
    out.push(await projectStatus(ctx, client, p, receipt, { persons, distinct, since, maxWaitMs }));
  }
  for (const why of new Set(unavailable)) ctx.warn(`some checks could not be made: ${why}`);
  return out;
}

type ProjectRecord = DeletionReceipt['projects'][number];

interface StatusChecks {
  persons: ReturnType<typeof presenceCheck>;
  distinct: ReturnType<typeof presenceCheck>;
  since: number;
  maxWaitMs: number;
}

async function projectStatus(
  ctx: Context,
  client: ApiClient,
  p: ProjectRecord,
  receipt: DeletionReceipt,
  c: StatusChecks,
): Promise<ErasureStatus> {
  const status = uncheckedStatus(p, receipt);
  if (p.status === 'unreachable') return { ...status, status: 'unreachable' };
  const clear = (p.distinct_ids ?? []).filter((d) => !isHashedDistinctId(d));
  status.distinct_ids_unchecked = (p.distinct_ids?.length ?? 0) - clear.length;
  // Each check that could not be made (null) leaves the status unknown; all are made regardless.
  let unknown = false;
  // With --keep-person the persons stay: only their data was to go.
  if (!receipt.flags.keep_person) {
    if (!(await checkPersonsGone(status, p, c))) unknown = true;
    if (!(await checkDistinctIdsFree(status, p, clear, c))) unknown = true;
  }
  if (!(await checkEventDeletions(ctx, client, status, p, c.since, receipt.flags.delete_events))) unknown = true;
  const sweep = (p.verification as { sweep?: SweepRecord } | null | undefined)?.sweep;
  const cap = { maxWaitMs: c.maxWaitMs, flag: '--max-wait' };
  // A sweep counts the events of every erased distinct id up to the erasure, hashed ones too.
  if (sweep) {
    if (!(await applySweep(ctx, client, p.project, sweep, status, cap))) unknown = true;
  } else if (status.events_completed && !status.events_pending && !status.events_unseen && !unknown && clear.length) {
    // Up to the end of the run that asked for the deletions: the events PostHog's deletion covers.
    const requestedAt = Date.parse(receipt.finished_at) || Date.parse(receipt.started_at);
    const left = await eventsLeft(ctx, client, p.project, clear, cap, requestedAt);
    status.events_remaining = [...left.values()].reduce((k, x) => k + x, 0);
    status.events_remaining_distinct_ids = [...left.keys()].slice(0, LIST_CAP);
  }
  status.status = verdictOf(status, unknown);
  return status;
}

/** A project's status before anything is checked: what its receipt says was done. */
function uncheckedStatus(p: ProjectRecord, receipt: DeletionReceipt): ErasureStatus {
  return {
    project: p.project,
    name: p.name,
    status: 'complete',
    persons_checked: 0,
    persons_deleted: typeof p.persons_deleted === 'number' ? p.persons_deleted : null,
    persons_present: 0,
    persons_present_ids: [],
    distinct_ids_checked: 0,
    distinct_ids_in_use: 0,
    distinct_ids_in_use_list: [],
    distinct_ids_unchecked: 0,
    // null twice over: no deletion asked for, or (the empty 202 of older servers) not reported.
    events_queued: receipt.flags.delete_events ? (p.events_queued_for_deletion ?? null) : null,
    events_pending: 0,
    events_completed: 0,
    events_unseen: 0,
    events_remaining: null,
    events_remaining_distinct_ids: [],
    sweep_requests: null,
    sweep_requests_completed: 0,
    sweep_problem: null,
    events_after_erasure: null,
  };
}

/** The persons sent that exist again; false when the check could not be made. */
async function checkPersonsGone(status: ErasureStatus, p: ProjectRecord, c: StatusChecks): Promise<boolean> {
  if (!p.ids_sent.length) return true;
  const present = await c.persons(p.ids_sent, p.project);
  if (present === null) return false;
  status.persons_checked = p.ids_sent.length;
  const back: string[] = [];
  for (const id of p.ids_sent) if (present.has(id)) back.push(id);
  status.persons_present = back.length;
  status.persons_present_ids = back.slice(0, LIST_CAP);
  return true;
}

/** The distinct ids kept in clear that a person uses again; false when the check could not be made. */
async function checkDistinctIdsFree(status: ErasureStatus, p: ProjectRecord, clear: string[], c: StatusChecks): Promise<boolean> {
  if (!clear.length) return true;
  const inUse = await c.distinct(clear, p.project);
  if (inUse === null) return false;
  status.distinct_ids_checked = clear.length;
  const again = clear.filter((d) => inUse.has(d));
  status.distinct_ids_in_use = again.length;
  status.distinct_ids_in_use_list = again.slice(0, LIST_CAP);
  return true;
}

/** How far PostHog got with the event deletions queued; false when it could not be asked. */
async function checkEventDeletions(
  ctx: Context,
  client: ApiClient,
  status: ErasureStatus,
  p: ProjectRecord,
  since: number,
  asked: boolean,
): Promise<boolean> {
  if (!asked || status.events_queued === 0) return true;
  const rows = await eventDeletions(ctx, client, p.project, Array.from(p.ids_sent), since);
  if (rows === null) return false;
  for (const s of rows.values()) {
    if (s === 'completed') status.events_completed++;
    else status.events_pending++;
  }
  // Answers that did not say how many they queued: what deletion_status lists is all there is to
  // go on. A pending one is pending; done only when every person sent is listed completed.
  if (status.events_queued === null) return status.events_pending > 0 || status.events_completed >= p.ids_sent.length;
  status.events_unseen = Math.max(0, status.events_queued - status.events_pending - status.events_completed);
  return true;
}

/** The one word for the project, the gravest finding first. */
function verdictOf(status: ErasureStatus, unknown: boolean): ErasureStatus['status'] {
  return status.persons_present || status.distinct_ids_in_use
    ? 'reopened'
    : status.events_pending || (status.sweep_requests !== null && !status.sweep_problem && status.events_remaining === null)
      ? 'pending'
      : unknown || status.events_unseen
        ? 'unknown'
        : status.sweep_problem
          ? 'not_swept'
          : status.events_remaining
            ? 'events_remain'
            : 'complete';
}

/** What the sweep's requests say; false when they could not be read. */
async function applySweep(ctx: Context, client: ApiClient, project: string, sweep: SweepRecord, status: ErasureStatus, cap: WaitCap) {
  const s = await sweepStatus(ctx, client, project, sweep, cap);
  status.sweep_requests = s.requests;
  status.sweep_requests_completed = s.completed;
  status.sweep_problem = s.problem;
  status.events_remaining = s.remaining;
  status.events_after_erasure = s.after;
  return !s.unread;
}

/** Whether the erasure of a receipt was asked to erase an address, and whether it named anyone. */
export interface AddressCheck {
  asked: boolean;
  /** Some person had it, in a project the erasure searched; null when the receipt cannot say (it
   * lists the first 10,000 addresses that named no one). */
  matched: boolean | null;
}

/**
 * Looks an address up in a receipt by its name there: the keyed hash (with the evidence key the
 * receipt names, refused without it), or the address itself in a receipt that keeps them in clear.
 */
export function checkAddress(path: string, receipt: DeletionReceipt, address: string, env: NodeJS.ProcessEnv): AddressCheck {
  const ids = receipt.identifiers;
  if (!ids || (ids.kind !== 'emails' && ids.kind !== 'mixed')) {
    throw new UsageError(
      `${path} is the receipt of an erasure by ${receipt.input.id_kind.replace('_', ' ')}, not by e-mail address`,
      'pass the receipt of an erasure run with --emails, --email or a mixed file',
    );
  }
  const policy = ids.key_id ? keyedPolicy(requireEvidenceKey(env, ids.key_id, `the receipt ${path} names its addresses`)) : CLEAR;
  const lowered = lowerAscii(address.trim());
  // In a mixed file, an address is named with its column.
  const names = [lowered, `email:${lowered}`].map((value) => identifierKey(value, policy));
  const keys = new Set(ids.keys);
  const asked = names.some((k) => keys.has(k));
  const unmatched = new Set(receipt.unresolved);
  if (!asked) return { asked, matched: false };
  if (names.some((k) => unmatched.has(k))) return { asked, matched: false };
  return { asked, matched: receipt.unresolved.length < receipt.counts.unresolved ? null : true };
}
