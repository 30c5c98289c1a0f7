// The receipt of a bulk job: what was asked, what was sent, and what the server said, for the
// whole run however many times it was resumed (it is built from the journal), in total and for
// each project. Counts the server did not report are named, never guessed. It also keeps what
// `persons erasure-status` needs to check an erasure later: the ids sent to each project and the
// distinct ids their persons had.
//
// It knows no kind of job: the kind's part (ReceiptPart, supplied by its JobKind in action.ts)
// adds up what its answers said, adds its own fields (a deletion's flags and deletion_errors, an
// update's `update`) and its verification, and names what a lost or unclear request may have done.
import { UsageError } from '../../errors.js';
import type { ChunkRecord, KindFields, SelectionSpec, StopReason } from './journal-format.js';
import type { JournalState } from './journal-state.js';
import type { BadValue, IdKind, IdList } from '../input/validate.js';
import type { IdsFormat } from '../input/read-ids.js';
import { identifierKey, type IdentifierPolicy } from '../input/identifiers.js';
import type { IdentifierTotals } from '../input/targets.js';
import { IdSet, type Ids } from '../input/id-set.js';
import { IdSubset } from '../input/id-subset.js';

export type ReceiptStatus = StopReason | 'dry_run';

/** What a kind's verification found, as the receipt keeps it: its status, and its own fields. */
export interface ReceiptVerification {
  status: string;
}

/** A count of the receipt: null when no answer reported it. */
export type Count = number | null | undefined;

/** The chunks of a job (or of one of its projects), as the kind's part of the receipt reads them. */
export interface ChunkTally {
  /** Every chunk, in order. */
  chunks: ChunkRecord[];
  /** Those the server answered. */
  answered: ChunkRecord[];
  /** Ids found gone when checked after a lost answer. */
  gone: IdSet;
  /** Whether the persons were looked up before they were sent (else a plain file went out as it is). */
  lookedUp: boolean;
  /** Whether this is one project's entry, not the whole job: its counts go in that entry. */
  project: boolean;
  /** That project's id (with `project`). */
  projectId?: string;
  /** What the kind's verification found for the whole job (absent before it ran): work a kind
   * does there (an export's events of distinct ids of no person) counts in the same counts. */
  verification?: ReceiptVerification;
  /** A dry run: nothing was done, and the counts may be what the plan counted. */
  dryRun: boolean;
}

/** A kind's part of the receipt. */
export interface ReceiptPart<R extends Receipt = Receipt> {
  /** What its answers add up to: counts added to `counts` (and to each project's entry), and
   * the counts some answers did not report. */
  tally?(t: ChunkTally): { counts: Record<string, Count>; notReported: NotReported[] };
  /** Its fields of the receipt, after `counts` (a deletion's flags and deletion_errors, an update's `update`). */
  fields(f: {
    chunks: ChunkRecord[];
    answered: ChunkRecord[];
    counts: Receipt['counts'];
    verification?: ReceiptVerification;
    skipInvalid: boolean;
  }): KindFields;
  /** What the verification did, said in the receipt beside it. */
  verificationNote: string;
  /** The notes of requests whose answers were lost or unclear: what such a request may have done. */
  notes: { unanswered: string; unclear: string; lostAnswers(lookedUp: boolean): string };
  /** Whether the run did not do everything though every request was answered (persons the
   * server could not delete): its status is then partial. */
  incomplete?(receipt: R): boolean;
  /** The kind's fields of the summary printed on stdout. */
  summary?(receipt: R): Record<string, unknown>;
}

export interface ReceiptMeta<R extends Receipt = Receipt> {
  /** "persons bulk-delete", "persons bulk-update". */
  command: string;
  status: ReceiptStatus;
  version: string;
  startedAt: string;
  finishedAt: string;
  profile: string | null;
  host: string;
  project: string;
  /** --reference <ticket>, or null. */
  reference?: string | null;
  /** --plan: the reviewed plan applied (`file` is then the input the plan was made from). */
  plan?: string;
  /** The e-mail of the API key's user, or null when the server would not say. */
  runBy?: string | null;
  file: string;
  format: IdsFormat;
  column: string | null;
  kind: IdKind;
  /** What went out: the values as given (a plain file), or the persons' UUIDs. */
  sentIdKind: Receipt['sent_id_kind'];
  /** The kind's part. */
  part: ReceiptPart<R>;
  skipInvalid: boolean;
  journal: string | null;
  receipt: string | null;
  /** The ids to send after resolving integer ids, deduplicated. */
  targets: number;
  /** Integer ids no person has. */
  unresolved: string[];
  /** Ids that resolved to a UUID already in the list. */
  resolvedDuplicates: number;
  /** With identifiers looked up: how they are named, and what they matched. */
  identifiers?: { policy: IdentifierPolicy; totals: IdentifierTotals };
  /** What the server said afterwards; undefined when not verified. */
  verification?: ReceiptVerification;
  /** With --where, --cohort or --query. */
  selection?: SelectionSpec;
  /** The projects of the job (absent: `project` alone, with `targets`). */
  projects?: ReceiptProjectMeta[];
  /** With --backup: the file the records were written to. */
  backup?: string | null;
  error?: string;
}

export interface ReceiptProjectMeta {
  id: string;
  name: string | null;
  unreachable?: string;
  /** The persons (or ids) to act on in it. */
  targets: number;
  verification?: ReceiptVerification;
}

export interface ReceiptProject {
  project: string;
  name: string | null;
  /** searched, or unreachable: the key could not read it, and nothing in it was done. */
  status: 'searched' | 'unreachable';
  unreachable_reason: string | null;
  targets: number;
  sent: number;
  failed: number;
  not_sent: number;
  /** Every id sent to this project and answered (or found gone after a lost answer): what
   * erasure-status checks. In memory, compactly (id-set.ts); written as a JSON array. */
  ids_sent: Ids;
  /** The distinct ids of those persons, read before they were deleted, in clear: erasure-status
   * asks whether they name a person again. An e-mail-like one by its keyed hash (`hmac:…`),
   * which cannot be checked. Null when not read. */
  distinct_ids: string[] | null;
  verification: ReceiptVerification | null;
  /** The kind's counts for the project (a deletion's persons_found, persons_deleted, …). */
  [kindCount: string]: unknown;
}

export interface NotReported {
  count: string;
  chunks: number;
  ids: number;
  why: string;
}

export interface FailedChunk {
  chunk: number;
  ids: string[];
  attempts: number;
  status: number | null;
  last_error: string;
  at: string;
}

export interface Receipt {
  receipt_format: typeof RECEIPT_FORMAT;
  /** "persons bulk-delete" or "persons bulk-update". */
  command: string;
  status: ReceiptStatus;
  hogctl_version: string;
  started_at: string;
  finished_at: string;
  profile: string | null;
  host: string;
  project: string;
  /** The request the run answers, as --reference gave it (null: none given). */
  reference: string | null;
  /** Who ran it: the e-mail of the API key's user (GET /api/users/@me/), null when the key may
   * not read it (no user:read scope). */
  run_by: string | null;
  /** `plan`: the reviewed plan applied (--plan); `file` is then the input it was made from. */
  input: { file: string; format: IdsFormat; column: string | null; id_kind: IdKind; plan?: string };
  /** What was sent: person UUIDs (identifiers and selections are looked up), or distinct ids. */
  sent_id_kind: 'person_uuids' | 'distinct_ids' | 'person_ids';
  selection: SelectionSpec | null;
  id_list_sha256: string;
  id_list_hash: string;
  counts: {
    requested: number;
    unique: number;
    duplicates: number;
    invalid: number;
    unresolved: number;
    sent: number;
    failed: number;
    not_sent: number;
    /** Ids sent in a request whose answer was lost and that no check has settled: what that
     * request did is in no other count. */
    unconfirmed: number;
    /** The kind's counts (a deletion's persons_found, persons_deleted, deletion_errors, …). */
    [kindCount: string]: Count;
  };
  chunks: { answered: number; failed: number; answered_without_summary: number };
  not_reported: NotReported[];
  /** Chunks sent by a run that stopped before their final answer was journaled; their ids were
   * sent again. */
  unanswered_requests: { chunks: number; ids: number; note: string } | null;
  /** Chunks with an attempt that timed out, lost its answer or met a server error before the
   * final one: that attempt may have been carried out unseen. */
  unclear_requests: { chunks: number; ids: number; note: string } | null;
  lost_answers: { gone: number; note: string } | null;
  failed_chunks: FailedChunk[];
  invalid: BadValue[];
  /** Integer ids, or e-mail addresses (by their name in `identifiers`), that name no person. */
  unresolved: string[];
  /** With identifiers looked up: what they matched, and how this receipt names them. */
  identifiers: {
    kind: IdKind;
    named_by: string;
    /** The public id of the evidence key that names them; null in clear. */
    key_id: string | null;
    /** With addresses: every identifier of the request, by its name here, sorted, which is what
     * `--check-email` looks in. */
    keys?: string[];
    matched: number;
    matching_several: number;
    in_several_projects: number;
    persons: number;
    unmatched: number;
    /** Addresses found as the `email` property, as a distinct id, and as the distinct id of a
     * person revived after an earlier deletion (which HogQL does not show); null when some were
     * found in the journal of an earlier run. */
    found_by?: { email_property: number; distinct_id: number; revived: number } | null;
  } | null;
  /** Every project of the job, searched or not. */
  projects: ReceiptProject[];
  backup: string | null;
  /** What the kind's check after the run found; null when not checked (--no-verify, a run that
   * did not complete, nothing to check). */
  verification: (ReceiptVerification & { note: string }) | null;
  runs: { run: number; started_at: string; stopped_at: string | null; outcome: string | null }[];
  journal: string | null;
  error?: string;
  /** The kind's fields (a deletion's flags and deletion_errors, an update's `update`). */
  [kindField: string]: unknown;
}

/** 2: every receipt lists its projects and, with addresses, their keys. Receipts of format 1 came
 * from development builds before the first release, and are refused (earlierReceiptError). */
export const RECEIPT_FORMAT = 2;

/** Why a file that is a receipt of an earlier format is not read, or undefined when it is not one. */
export function earlierReceiptError(path: string, value: unknown): UsageError | undefined {
  if (typeof value !== 'object' || value === null || !('receipt_format' in value)) return undefined;
  const format = value.receipt_format;
  if (typeof format !== 'number' || format >= RECEIPT_FORMAT) return undefined;
  return new UsageError(
    `${path} has receipt format ${format}: an earlier development build of hogctl wrote it, and this hogctl reads only format ${RECEIPT_FORMAT}`,
    'run the job again with a new --journal to write a receipt of this format',
  );
}

const LIST_CAP = 10_000;
const NAMED_BY: Record<IdentifierPolicy['by'], string> = {
  key: 'HMAC-SHA256 (hex) of the identifier (an address with its ASCII letters lowered; in a mixed file, "<column>:<value>") under the identifier sub-key of the evidence key key_id, which this receipt does not hold: `hogctl persons erasure-status --check-email` tells whether an address is among them; --keep-identifiers names them in clear',
  clear: 'the identifier as given (an address with its ASCII letters lowered)',
};

/** What a set of chunks adds up to: the counts of the receipt, for a job or one of its projects,
 * with what the kind's answers add up to. `list`: the input's ids, which the ids sent are
 * counted as a bit each of (id-subset.ts). */
function tally(chunks: ChunkRecord[], targets: number, list?: IdSet) {
  const answered = chunks.filter((c) => c.answer);
  // `sentIds` is a bit per id of the input's list (and a compact set of any other, id-subset.ts),
  // and also the list of the ids sent, which the receipt writes out one at a time: a receipt of
  // ten million ids makes no string of each, and no second set of them.
  const sentIds = new IdSubset(list);
  for (const c of answered) sentIds.addAll(c.ids);
  const gone = new IdSet();
  for (const c of chunks) for (const id of c.gone ?? []) if (gone.add(id)) sentIds.add(id);
  const sentList: Ids = sentIds;

  // A chunk that failed and whose ids were later sent again in a chunk that succeeded is no
  // longer a failure; of ids that failed more than once, the latest failure is the one shown.
  const failedChunks: FailedChunk[] = [];
  const listed = new IdSet();
  for (const c of [...chunks].reverse()) {
    if (!c.failure) continue;
    const open = c.ids.filter((id) => !sentIds.has(id) && !listed.has(id));
    if (open.length === 0) continue;
    for (const id of open) listed.add(id);
    failedChunks.unshift({
      chunk: c.chunk,
      ids: open,
      attempts: c.failure.attempts,
      status: c.failure.status,
      last_error: c.failure.error,
      at: c.failure.at,
    });
  }

  const unanswered = chunks.filter((c) => !c.answer && !c.failure && c.ids.some((id) => !sentIds.has(id)));
  const unclear = chunks.filter((c) => (c.answer?.unclear ?? c.failure?.unclear ?? 0) > 0);
  const unclearIds = new IdSet();
  for (const c of unclear) for (const id of c.ids) unclearIds.add(id);
  // Ids whose only request is still without an answer: sent, but neither done nor failed.
  const inDoubt = new IdSet();
  for (const c of unanswered) for (const id of c.ids) if (!sentIds.has(id) && !listed.has(id)) inDoubt.add(id);
  const unconfirmed = new IdSet(unclearIds);
  for (const id of inDoubt) unconfirmed.add(id);
  const moved = {
    sent: sentIds.size,
    failed: listed.size,
    not_sent: Math.max(0, targets - sentIds.size - listed.size - inDoubt.size),
    unconfirmed: unconfirmed.size,
  };
  return {
    moved,
    answered,
    sentList,
    gone,
    failedChunks,
    unanswered,
    unclear,
    unclearIds,
  };
}

export function buildReceipt<R extends Receipt>(state: JournalState | undefined, ids: IdList, meta: ReceiptMeta<R>): R {
  const chunks = state ? [...state.chunks.values()].sort((a, b) => a.chunk - b.chunk) : [];
  const { part } = meta;
  const lookedUp = meta.sentIdKind === 'person_uuids';
  const list = ids.ids instanceof IdSet ? ids.ids : undefined;
  const total = tally(chunks, meta.targets, list);
  const { answered, failedChunks } = total;
  const own = part.tally?.({ chunks, answered, gone: total.gone, lookedUp, project: false, ...wholeJob(meta) }) ?? {
    counts: {},
    notReported: [],
  };
  const withoutSummary = answered.filter((c) => !c.answer!.summary);
  const counts: Receipt['counts'] = { ...inputCounts(ids, meta), ...total.moved, ...own.counts };
  // A job of one project names no list of them.
  const projectMetas = meta.projects ?? [{ id: meta.project, name: null, targets: meta.targets, verification: meta.verification }];
  const projects = projectMetas.map((p) => projectOf(p, { state, chunks, total, meta, lookedUp, list }));
  const policy = meta.identifiers?.policy;
  const fields = part.fields({ chunks, answered, counts, verification: meta.verification, skipInvalid: meta.skipInvalid });
  const receipt: Receipt = {
    receipt_format: RECEIPT_FORMAT,
    command: meta.command,
    status: meta.status,
    hogctl_version: meta.version,
    started_at: meta.startedAt,
    finished_at: meta.finishedAt,
    profile: meta.profile,
    host: meta.host,
    project: projectMetas.map((p) => p.id).join(','),
    reference: meta.reference ?? null,
    run_by: meta.runBy ?? null,
    input: { file: meta.file, format: meta.format, column: meta.column, id_kind: meta.kind, ...(meta.plan ? { plan: meta.plan } : {}) },
    sent_id_kind: meta.sentIdKind,
    selection: meta.selection ?? null,
    // A kind's flags right after the selection, where a reader of the receipt finds them.
    ...('flags' in fields ? { flags: fields.flags } : {}),
    id_list_sha256: ids.sha256,
    id_list_hash: idListHashText(policy, Boolean(meta.selection)),
    counts,
    chunks: { answered: answered.length, failed: failedChunks.length, answered_without_summary: withoutSummary.length },
    not_reported: own.notReported,
    ...requestNotes(total, part.notes, lookedUp),
    failed_chunks: failedChunks,
    ...fields,
    invalid: ids.invalid
      .slice(0, LIST_CAP)
      .map((b) => (policy && policy.by !== 'clear' ? { ...b, value: identifierKey(b.value, policy) } : b)),
    unresolved: meta.unresolved.slice(0, LIST_CAP),
    identifiers: identifiersOf(meta),
    verification: meta.verification ? { ...meta.verification, note: part.verificationNote } : null,
    projects,
    backup: meta.backup ?? null,
    runs: runsOf(state),
    journal: meta.journal,
  };
  if (meta.error) receipt.error = meta.error;
  // The one place a kind's receipt is put together: its counts came from its part's tally, its
  // fields from its part's `fields`, its verification from its check, so it is the kind's R.
  const typed = receipt as R;
  // Everything answered, and still not everything done (persons the server could not delete).
  if (typed.status === 'completed' && part.incomplete?.(typed)) typed.status = 'partial';
  return typed;
}

/** What the input held: the counts every receipt starts with. */
function inputCounts<R extends Receipt>(ids: IdList, meta: ReceiptMeta<R>) {
  return {
    requested: ids.requested,
    unique: ids.ids.length - meta.resolvedDuplicates,
    duplicates: ids.duplicates + meta.resolvedDuplicates,
    invalid: ids.invalidCount,
    unresolved: meta.unresolved.length,
  };
}

/** Every run of the journal: when it started and stopped, and why. */
function runsOf(state: JournalState | undefined): Receipt['runs'] {
  return (state?.runs ?? []).map((r) => ({
    run: r.run,
    started_at: r.at,
    stopped_at: r.stopped?.at ?? null,
    outcome: r.stopped?.reason ?? null,
  }));
}

/** What a kind's tally is told of the whole job, for the job's counts and each project's alike. */
function wholeJob(meta: ReceiptMeta<Receipt>): Pick<ChunkTally, 'verification' | 'dryRun'> {
  return { verification: meta.verification, dryRun: meta.status === 'dry_run' };
}

/** One project of the receipt: its counts, the ids sent to it and their distinct ids. */
function projectOf<R extends Receipt>(
  p: ReceiptProjectMeta,
  job: {
    state?: JournalState;
    chunks: ChunkRecord[];
    total: ReturnType<typeof tally>;
    meta: ReceiptMeta<R>;
    lookedUp: boolean;
    list?: IdSet;
  },
): ReceiptProject {
  const { state, chunks, total, meta, lookedUp, list } = job;
  const mine = chunks.filter((c) => c.project === p.id);
  // A job of one project is its project: the same sums, not a second tally over as many ids.
  const sums = mine.length === chunks.length && p.targets === meta.targets ? total : tally(mine, p.targets, list);
  const kindCounts = meta.part.tally?.({
    chunks: mine,
    answered: sums.answered,
    gone: sums.gone,
    lookedUp,
    project: true,
    projectId: p.id,
    ...wholeJob(meta),
  }).counts;
  const recorded = state?.recorded.get(p.id);
  const sent = sums.sentList;
  return {
    project: p.id,
    name: p.name,
    status: p.unreachable ? 'unreachable' : 'searched',
    unreachable_reason: p.unreachable ?? null,
    targets: p.targets,
    sent: sums.moved.sent,
    failed: sums.moved.failed,
    not_sent: sums.moved.not_sent,
    ...kindCounts,
    ids_sent: sent,
    distinct_ids: recorded ? distinctIdsOf(sent, recorded) : sent.length ? null : [],
    verification: p.verification ? { ...p.verification } : null,
  };
}

/** How the receipt's id_list_hash was made, in words. */
function idListHashText(policy: IdentifierPolicy | undefined, selection: boolean): string {
  if (policy?.by === 'key')
    return 'HMAC-SHA256 (hex), under the identifier sub-key of the evidence key, of "id list:" and the hex SHA-256 of the unique identifiers (ASCII letters of addresses lowered), sorted, one per line, each ending in "\\n"';
  if (selection) return 'SHA-256 of the selection (its --where, --cohort and --query, as JSON) and the projects it ran in';
  return 'SHA-256 of the unique valid ids (UUIDs in lower case), sorted, one per line, each ending in "\\n"';
}

/** The requests whose fate the counts alone do not tell: unanswered, unclear, or found gone after a lost answer. */
function requestNotes(
  total: ReturnType<typeof tally>,
  notes: ReceiptPart['notes'],
  lookedUp: boolean,
): Pick<Receipt, 'unanswered_requests' | 'unclear_requests' | 'lost_answers'> {
  const { unanswered, unclear, unclearIds, gone } = total;
  return {
    unanswered_requests: unanswered.length
      ? { chunks: unanswered.length, ids: unanswered.reduce((k, c) => k + c.ids.length, 0), note: notes.unanswered }
      : null,
    unclear_requests: unclear.length ? { chunks: unclear.length, ids: unclearIds.size, note: notes.unclear } : null,
    lost_answers: gone.size ? { gone: gone.size, note: notes.lostAnswers(lookedUp) } : null,
  };
}

/** With identifiers looked up: what they matched, and how the receipt names them. */
function identifiersOf<R extends Receipt>(meta: ReceiptMeta<R>): Receipt['identifiers'] {
  if (!meta.identifiers) return null;
  const { policy, totals } = meta.identifiers;
  const addresses = meta.kind === 'emails' || meta.kind === 'mixed';
  return {
    kind: meta.kind,
    named_by: NAMED_BY[policy.by],
    key_id: policy.by === 'key' ? policy.keyId : null,
    // Addresses only: other identifiers are in clear in ids_sent and distinct_ids already.
    ...(addresses ? { keys: [...totals.keys].sort() } : {}),
    matched: totals.matched,
    matching_several: totals.several,
    in_several_projects: totals.inSeveralProjects,
    persons: totals.persons,
    unmatched: totals.unmatchedKeys.length,
    ...(addresses ? { found_by: foundByOf(totals) } : {}),
  };
}

/** The distinct ids recorded for these persons, each once. */
function distinctIdsOf(persons: Ids, recorded: Map<string, string[]>): string[] {
  const out = new Set<string>();
  for (const id of persons) for (const d of recorded.get(id) ?? []) out.add(d);
  return [...out];
}

/** The flat record printed on stdout. */
export function summaryRecord<R extends Receipt>(r: R, part: Pick<ReceiptPart<R>, 'summary'>): Record<string, unknown> {
  return {
    status: r.status,
    profile: r.profile,
    host: r.host,
    project: r.project,
    file: r.input.file,
    id_kind: r.input.id_kind,
    ...r.counts,
    projects: r.projects.length,
    projects_unreachable: r.projects.filter((p) => p.status === 'unreachable').map((p) => p.project),
    unmatched_identifiers: r.identifiers?.unmatched ?? null,
    verification: r.verification?.status ?? null,
    ...part.summary?.(r),
    chunks_failed: r.chunks.failed,
    not_reported: r.not_reported.map((n) => n.count),
    id_list_sha256: r.id_list_sha256,
    started_at: r.started_at,
    finished_at: r.finished_at,
    receipt: null as string | null,
    journal: r.journal,
  };
}

function foundByOf(t: IdentifierTotals): { email_property: number; distinct_id: number; revived: number } | null {
  return t.foundBy ? { email_property: t.foundBy.emailProperty, distinct_id: t.foundBy.distinctId, revived: t.foundBy.revived } : null;
}
