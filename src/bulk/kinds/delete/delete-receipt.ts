// The deletion's part of the receipt (receipt.ts knows no kind): what bulk_delete's answers add up
// to (persons found, deleted, queued; deletion errors), the flags, the persons the server could not
// delete, and what a lost or unclear request may have deleted.
import type { BulkDeleteSummary } from '../../../api/bulk-delete.js';
import type { ChunkRecord } from '../../engine/journal-format.js';
import type { ChunkTally, Count, NotReported, Receipt, ReceiptPart } from '../../engine/receipt.js';
import type { Verification } from './verify.js';
import { PERSON_DELETION_SURVIVORS } from './what-remains.js';

/** The flags of bulk_delete (its request body but the ids), which bind a deletion's journal. */
export interface BulkDeleteFlags {
  delete_events: boolean;
  delete_recordings: boolean;
  keep_person: boolean;
}

/** The counts a deletion adds to the receipt's, and to each of its projects. */
export interface DeletionCounts {
  persons_found?: number | null;
  persons_deleted?: number | null;
  persons_queued_for_deletion?: number | null;
  events_queued_for_deletion?: number | null;
  recordings_queued_for_deletion?: number | null;
}

/** A receipt of `persons bulk-delete`: the receipt and the deletion's fields. */
export type DeletionReceipt = Receipt & {
  flags: BulkDeleteFlags & { skip_invalid: boolean };
  counts: Receipt['counts'] &
    DeletionCounts & {
      deletion_errors?: number | null;
      /** Ids sent in a request whose answer was lost, and found gone when checked afterwards:
       * included in persons_found and persons_deleted when they were looked up first (so they
       * existed); from a plain file, counted here alone (the lost request deleted them, or they
       * never named anyone). */
      persons_gone_after_lost_answer?: number;
    };
  deletion_errors: Record<string, unknown>[];
  projects: (Receipt['projects'][number] & DeletionCounts)[];
  verification: (Verification & { note: string }) | null;
};

const LIST_CAP = 10_000;
const EMPTY_BODY = 'the server answered with an empty body, as older PostHog versions do';
const VERIFICATION_NOTE =
  'the ids of every request whose answer found persons (or gave no count), and those a lost answer left uncertain, were checked with batch_by_uuids or batch_by_distinct_ids after the run; not_read_back: ids of requests the server answered with no person found, which deleted no one; still_present_ids still named a person then (a server that queues deletions may not have carried them out yet). events: the event deletions deletion_status listed for the persons found (PostHog runs them in a weekly batch; `hogctl persons erasure-status` checks again)';

const summaryOf = (c: ChunkRecord) => c.answer?.summary as BulkDeleteSummary | null | undefined;

/**
 * Persons an answer listed in `deletion_errors` ("not deleted, retry these", PostHog/posthog#103144)
 * that no later answer deleted, and no check after a later request's lost answer found gone, with
 * their project. They are sent again, by UUID.
 */
export function openDeletionErrors(chunks: Iterable<ChunkRecord>): Map<string, string> {
  const open = new Map<string, string>();
  const all = [...chunks];
  if (!all.some((c) => summaryOf(c)?.deletion_errors?.length)) return open;
  for (const c of all.sort((a, b) => a.chunk - b.chunk)) {
    if (open.size) for (const id of c.gone ?? []) open.delete(id);
    if (!c.answer) continue;
    const failed = new Set<string>();
    for (const e of summaryOf(c)?.deletion_errors ?? []) if (typeof e.person_uuid === 'string') failed.add(e.person_uuid.toLowerCase());
    if (open.size) for (const id of c.ids) if (!failed.has(id)) open.delete(id);
    for (const uuid of failed) open.set(uuid, c.project);
  }
  return open;
}

/** How many of the ids found gone after a lost answer were in requests that sent them again. */
function goneFromResends(t: ChunkTally): number {
  const resent = new Set<string>();
  for (const c of t.chunks) if (c.resend) for (const id of c.gone ?? []) if (t.gone.has(id)) resent.add(id);
  return resent.size;
}

const unlessUnreported = (v: number | null, f: (v: number) => number) => (v === null ? null : f(v));

/** What bulk_delete's answers add up to, for the job or one of its projects. */
function deletionTally(t: ChunkTally, flags: BulkDeleteFlags): { counts: Record<string, Count>; notReported: NotReported[] } {
  const { answered, gone, lookedUp } = t;
  const notReported: NotReported[] = [];
  // Sums what the answers reported. A count no answer reported is null; when only some answers
  // lack it, the sum covers the others and not_reported says which.
  // Persons sent again after a deletion error were found (and counted) the first time.
  const count = (name: string, pick: (s: BulkDeleteSummary) => number | undefined, resends = true): number | null => {
    let total = 0;
    let reported = 0;
    const missing: ChunkRecord[] = [];
    for (const c of answered) {
      const s = summaryOf(c);
      const v = s ? (c.resend && !resends ? 0 : pick(s)) : undefined;
      if (v === undefined) missing.push(c);
      else {
        total += v;
        reported++;
      }
    }
    if (missing.length > 0) {
      const why = missing.every((c) => !summaryOf(c)) ? EMPTY_BODY : `the server's answer had no ${name}`;
      notReported.push({ count: name, chunks: missing.length, ids: missing.reduce((n, c) => n + c.ids.length, 0), why });
    }
    return reported === 0 && missing.length > 0 ? null : total;
  };
  const perFound = (flag: boolean | undefined, s: BulkDeleteSummary) =>
    flag === undefined ? undefined : flag ? (s.persons_found ?? 0) : 0;
  const counts: DeletionCounts = {
    persons_found: count('persons_found', (s) => s.persons_found, false),
    persons_deleted: count('persons_deleted', (s) => s.persons_deleted),
    // Only the newest servers queue persons (and say so); a summary without it queued none.
    persons_queued_for_deletion: count('persons_queued_for_deletion', (s) => s.persons_queued_for_deletion ?? 0),
    // Persons whose events (recordings) the server queued for deletion.
    events_queued_for_deletion: count('events_queued_for_deletion', (s) => perFound(s.events_queued_for_deletion, s), false),
    recordings_queued_for_deletion: count('recordings_queued_for_deletion', (s) => perFound(s.recordings_queued_for_deletion, s), false),
  };
  // Persons looked up just before (so they existed) and found gone after a lost answer were
  // deleted by the request that lost it; those sent again after a deletion error were found (and
  // counted) by the answer that reported it. Ids of a plain file may never have named anyone: they
  // are counted apart (persons_gone_after_lost_answer), never as deleted.
  if (gone.size > 0 && lookedUp) {
    counts.persons_found = (counts.persons_found ?? 0) + gone.size - goneFromResends(t);
    if (!flags.keep_person) counts.persons_deleted = (counts.persons_deleted ?? 0) + gone.size;
  }
  if (t.project) return { counts: { ...counts }, notReported };
  // Persons the server could not delete and no later answer deleted (they are sent again), and
  // entries that name no person_uuid, which cannot be sent again.
  const open = openDeletionErrors(t.chunks);
  const deletionErrors = unlessUnreported(
    count('deletion_errors', (s) => s.deletion_errors?.filter((e) => typeof e.person_uuid !== 'string').length),
    (unnamed) => open.size + unnamed,
  );
  return {
    counts: {
      persons_found: counts.persons_found,
      persons_deleted: counts.persons_deleted,
      persons_queued_for_deletion: counts.persons_queued_for_deletion,
      events_queued_for_deletion: counts.events_queued_for_deletion,
      recordings_queued_for_deletion: counts.recordings_queued_for_deletion,
      deletion_errors: deletionErrors,
      persons_gone_after_lost_answer: gone.size,
    },
    notReported,
  };
}

/** The last report of each person the server could not delete and that is still not deleted. */
function deletionErrorsOf(chunks: ChunkRecord[], answered: ChunkRecord[]): Record<string, unknown>[] {
  const open = openDeletionErrors(chunks);
  const out: Record<string, unknown>[] = [];
  for (const c of [...answered].reverse())
    for (const e of summaryOf(c)?.deletion_errors ?? []) {
      const uuid = typeof e.person_uuid === 'string' ? e.person_uuid.toLowerCase() : undefined;
      if (out.length >= LIST_CAP || (uuid && !open.has(uuid))) continue;
      out.push(e);
      if (uuid) open.delete(uuid);
    }
  return out;
}

/** The deletion's part of the receipt. */
/**
 * A dry run's persons_found: the persons its lookup found, which its plan names (a CI gate reads
 * this, not the plan on stderr); null when the ids of a plain file go out as given, unlooked-up.
 */
function plannedPersons(r: Receipt): number | null {
  if (r.sent_id_kind !== 'person_uuids') return null;
  return r.projects.reduce((k, p) => k + p.targets, 0);
}

export function deletionReceipt(flags: BulkDeleteFlags): ReceiptPart<DeletionReceipt> {
  return {
    tally: (t) => deletionTally(t, flags),
    fields: ({ chunks, answered, skipInvalid }) => ({
      flags: { ...flags, skip_invalid: skipInvalid },
      deletion_errors: deletionErrorsOf(chunks, answered),
      ...(flags.delete_events ? { what_posthog_keeps: PERSON_DELETION_SURVIVORS } : {}),
    }),
    verificationNote: VERIFICATION_NOTE,
    notes: {
      unanswered:
        'sent by a run that stopped before their answer was journaled (it was lost as the run stopped, or the run crashed, was killed or got a second Ctrl-C); the next run checks which of their ids still name a person before sending them again',
      unclear:
        'an attempt at these requests timed out, lost its answer or met a server error, and its ids could not be checked afterwards: it may have deleted persons, who are then not counted in persons_found or persons_deleted',
      lostAnswers: (lookedUp) =>
        lookedUp
          ? 'sent in a request whose answer was lost (a timeout, a dropped connection, a 502/504, a killed run), then checked with batch_by_uuids: these persons, found just before the run, no longer existed, so that request deleted them; counted in persons_found and persons_deleted, never sent again'
          : 'sent in a request whose answer was lost (a timeout, a dropped connection, a 502/504, a killed run), then checked with batch_by_uuids/batch_by_distinct_ids: these ids no longer named a person, so that request deleted them or they never named anyone (a plain file of ids is not looked up first); not counted in persons_found or persons_deleted, never sent again',
    },
    // Persons the server could not delete make the run partial, even if every request succeeded.
    incomplete: (r) => (r.counts.deletion_errors ?? 0) > 0,
    summary: (r) => {
      const v = r.verification;
      return { events_verification: v?.events?.status ?? null, ...(r.status === 'dry_run' ? { persons_found: plannedPersons(r) } : {}) };
    },
  };
}
