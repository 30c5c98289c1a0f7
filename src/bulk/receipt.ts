// The receipt of a bulk deletion: what was asked, what was sent, and what the server said, for
// the whole run however many times it was resumed (it is built from the journal). Counts the
// server did not report (older servers answer with an empty body) are named, never guessed.
import { rename, unlink, writeFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import type { BulkDeleteSummary, DeleteFlags, JournalState, StopReason } from './journal.js';
import type { BadValue, IdKind, IdList } from './validate.js';
import type { IdsFormat } from './read-ids.js';
import { identifierKey, type IdentifierPolicy } from './identifiers.js';
import type { EmailMatches } from './resolve.js';
import type { Verification } from './verify.js';

export type ReceiptStatus = StopReason | 'dry_run';

export interface ReceiptMeta {
  status: ReceiptStatus;
  version: string;
  startedAt: string;
  finishedAt: string;
  profile: string | null;
  host: string;
  project: string;
  file: string;
  format: IdsFormat;
  column: string | null;
  kind: IdKind;
  flags: DeleteFlags;
  skipInvalid: boolean;
  journal: string | null;
  receipt: string | null;
  /** The ids to send after resolving integer ids, deduplicated. */
  targets: number;
  /** Integer ids no person has. */
  unresolved: string[];
  /** Ids that resolved to a UUID already in the list. */
  resolvedDuplicates: number;
  /** With --emails: how the addresses are named, and what they matched. */
  identifiers?: { policy: IdentifierPolicy; matches: EmailMatches };
  /** What the server said afterwards; undefined when not verified. */
  verification?: Verification;
  error?: string;
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
  receipt_format: 1;
  command: 'persons bulk-delete';
  status: ReceiptStatus;
  hogctl_version: string;
  started_at: string;
  finished_at: string;
  profile: string | null;
  host: string;
  project: string;
  input: { file: string; format: IdsFormat; column: string | null; id_kind: IdKind };
  flags: DeleteFlags & { skip_invalid: boolean };
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
    persons_found: number | null;
    persons_deleted: number | null;
    persons_queued_for_deletion: number | null;
    events_queued_for_deletion: number | null;
    recordings_queued_for_deletion: number | null;
    deletion_errors: number | null;
    /** Ids sent in a request whose answer was lost, and found gone when checked afterwards;
     * included in persons_found and persons_deleted. */
    persons_gone_after_lost_answer: number;
    /** Ids sent in a request whose answer was lost and that no check has settled: persons
     * that request deleted are in no other count. */
    unconfirmed: number;
  };
  chunks: { answered: number; failed: number; answered_without_summary: number };
  not_reported: NotReported[];
  /** Chunks sent by a run that stopped before their final answer was journaled; their ids were
   * sent again, so persons a lost request deleted are missing from persons_found. */
  unanswered_requests: { chunks: number; ids: number; note: string } | null;
  /** Chunks with an attempt that timed out, lost its answer or met a server error before the
   * final one: that attempt may have deleted persons that later answers then did not find. */
  unclear_requests: { chunks: number; ids: number; note: string } | null;
  lost_answers: { gone: number; note: string } | null;
  failed_chunks: FailedChunk[];
  deletion_errors: Record<string, unknown>[];
  invalid: BadValue[];
  /** Integer ids, or e-mail addresses (by their name in `identifiers`), that name no person. */
  unresolved: string[];
  /** With --emails: the identifiers of the case, and how this receipt names them. */
  identifiers: {
    kind: 'emails';
    named_by: string;
    salt: string | null;
    matched: number;
    matching_several: number;
    persons: number;
    unmatched: number;
  } | null;
  /** Whether the persons were gone when checked after the run; null when not checked (--no-verify,
   * --keep-person, a run that did not complete). */
  verification: (Verification & { note: string }) | null;
  runs: { run: number; started_at: string; stopped_at: string | null; outcome: string | null }[];
  journal: string | null;
  error?: string;
}

const LIST_CAP = 10_000;
const VERIFICATION_NOTE =
  'every id answered was checked with batch_by_uuids or batch_by_distinct_ids after the run; still_present_ids still named a person then (a server that queues deletions may not have carried them out yet)';
const EMPTY_BODY = 'the server answered with an empty body, as older PostHog versions do';

export function buildReceipt(state: JournalState | undefined, ids: IdList, meta: ReceiptMeta): Receipt {
  const chunks = state ? [...state.chunks.values()].sort((a, b) => a.chunk - b.chunk) : [];
  const answered = chunks.filter((c) => c.answer);
  const sentIds = new Set<string>();
  for (const c of answered) for (const id of c.ids) sentIds.add(id);
  const gone = new Set<string>();
  for (const c of chunks) for (const id of c.gone ?? []) gone.add(id);
  for (const id of gone) sentIds.add(id);

  // A chunk that failed and whose ids were later sent again in a chunk that succeeded is no
  // longer a failure; of ids that failed more than once, the latest failure is the one shown.
  const failedChunks: FailedChunk[] = [];
  const listed = new Set<string>();
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
  const unclearIds = new Set(unclear.flatMap((c) => c.ids));
  // Ids whose only request is still without an answer: sent, but neither done nor failed.
  const inDoubt = new Set(unanswered.flatMap((c) => c.ids.filter((id) => !sentIds.has(id) && !listed.has(id))));
  const notSent = Math.max(0, meta.targets - sentIds.size - listed.size - inDoubt.size);
  const withoutSummary = answered.filter((c) => !c.answer!.summary);
  const notReported: NotReported[] = [];
  // Sums what the answers reported. A count no answer reported is null; when only some answers
  // lack it, the sum covers the others and not_reported says which.
  const count = (name: string, pick: (s: BulkDeleteSummary) => number | undefined): number | null => {
    let total = 0;
    let reported = 0;
    const missing: typeof answered = [];
    for (const c of answered) {
      const s = c.answer!.summary;
      const v = s ? pick(s) : undefined;
      if (v === undefined) missing.push(c);
      else {
        total += v;
        reported++;
      }
    }
    if (missing.length > 0) {
      const why = missing.every((c) => !c.answer!.summary) ? EMPTY_BODY : `the server's answer had no ${name}`;
      notReported.push({ count: name, chunks: missing.length, ids: missing.reduce((n, c) => n + c.ids.length, 0), why });
    }
    return reported === 0 && missing.length > 0 ? null : total;
  };
  const perFound = (flag: boolean | undefined, s: BulkDeleteSummary) =>
    flag === undefined ? undefined : flag ? (s.persons_found ?? 0) : 0;
  const counts: Receipt['counts'] = {
    requested: ids.requested,
    unique: ids.ids.length - meta.resolvedDuplicates,
    duplicates: ids.duplicates + meta.resolvedDuplicates,
    invalid: ids.invalidCount,
    unresolved: meta.unresolved.length,
    sent: sentIds.size,
    failed: listed.size,
    not_sent: notSent,
    persons_found: count('persons_found', (s) => s.persons_found),
    persons_deleted: count('persons_deleted', (s) => s.persons_deleted),
    // Only the newest servers queue persons (and say so); a summary without it queued none.
    persons_queued_for_deletion: count('persons_queued_for_deletion', (s) => s.persons_queued_for_deletion ?? 0),
    // Persons whose events (recordings) the server queued for deletion.
    events_queued_for_deletion: count('events_queued_for_deletion', (s) => perFound(s.events_queued_for_deletion, s)),
    recordings_queued_for_deletion: count('recordings_queued_for_deletion', (s) => perFound(s.recordings_queued_for_deletion, s)),
    deletion_errors: count('deletion_errors', (s) => s.deletion_errors?.length),
    persons_gone_after_lost_answer: gone.size,
    unconfirmed: new Set([...unclearIds, ...inDoubt]).size,
  };
  // Persons found gone after a lost answer were found and deleted by the request that lost it.
  if (gone.size > 0) {
    counts.persons_found = (counts.persons_found ?? 0) + gone.size;
    if (!meta.flags.keep_person) counts.persons_deleted = (counts.persons_deleted ?? 0) + gone.size;
  }
  const deletionErrors: Record<string, unknown>[] = [];
  for (const c of answered)
    for (const e of c.answer!.summary?.deletion_errors ?? []) if (deletionErrors.length < LIST_CAP) deletionErrors.push(e);

  const policy = meta.identifiers?.policy;
  const receipt: Receipt = {
    receipt_format: 1,
    command: 'persons bulk-delete',
    status: meta.status,
    hogctl_version: meta.version,
    started_at: meta.startedAt,
    finished_at: meta.finishedAt,
    profile: meta.profile,
    host: meta.host,
    project: meta.project,
    input: { file: meta.file, format: meta.format, column: meta.column, id_kind: meta.kind },
    flags: { ...meta.flags, skip_invalid: meta.skipInvalid },
    id_list_sha256: ids.sha256,
    id_list_hash: policy?.salt
      ? 'SHA-256 (hex) of the salt, ":" and the hex SHA-256 of the unique addresses (ASCII letters lowered), sorted, one per line, each ending in "\\n"'
      : 'SHA-256 of the unique valid ids (UUIDs in lower case), sorted, one per line, each ending in "\\n"',
    counts,
    chunks: {
      answered: answered.length,
      failed: failedChunks.length,
      answered_without_summary: withoutSummary.length,
    },
    not_reported: notReported,
    unanswered_requests: unanswered.length
      ? {
          chunks: unanswered.length,
          ids: unanswered.reduce((k, c) => k + c.ids.length, 0),
          note: 'sent by a run that stopped (a crash, a kill, or a second Ctrl-C) before their answer was journaled; the next run checks which of their ids still name a person before sending them again',
        }
      : null,
    unclear_requests: unclear.length
      ? {
          chunks: unclear.length,
          ids: unclearIds.size,
          note: 'an attempt at these requests timed out, lost its answer or met a server error, and its ids could not be checked afterwards: it may have deleted persons, who are then not counted in persons_found or persons_deleted',
        }
      : null,
    lost_answers: gone.size
      ? {
          gone: gone.size,
          note: 'sent in a request whose answer was lost (a timeout, a dropped connection, a 502/504, a killed run), then checked with batch_by_uuids/batch_by_distinct_ids: these ids no longer named a person, so that request deleted them (unless they never existed); counted in persons_found and persons_deleted, never sent again',
        }
      : null,
    failed_chunks: failedChunks,
    deletion_errors: deletionErrors,
    invalid: ids.invalid.slice(0, LIST_CAP).map((b) => (policy?.salt ? { ...b, value: identifierKey(b.value, policy) } : b)),
    unresolved: meta.unresolved.slice(0, LIST_CAP),
    identifiers: meta.identifiers
      ? {
          kind: 'emails',
          named_by: policy!.salt
            ? 'SHA-256 (hex) of the salt, ":" and the address with its ASCII letters lowered; --keep-identifiers names them in clear'
            : 'the address, with its ASCII letters lowered (--keep-identifiers)',
          salt: policy!.salt,
          matched: meta.identifiers.matches.matched,
          matching_several: meta.identifiers.matches.several,
          persons: meta.identifiers.matches.persons,
          unmatched: meta.identifiers.matches.unmatchedKeys.length,
        }
      : null,
    verification: meta.verification ? { ...meta.verification, note: VERIFICATION_NOTE } : null,
    runs: (state?.runs ?? []).map((r) => ({
      run: r.run,
      started_at: r.at,
      stopped_at: r.stopped?.at ?? null,
      outcome: r.stopped?.reason ?? null,
    })),
    journal: meta.journal,
  };
  if (meta.error) receipt.error = meta.error;
  return receipt;
}

/** Written beside and then renamed over, so a reader never sees half a receipt. */
export async function writeReceipt(path: string, receipt: Receipt): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    await writeFile(tmp, `${JSON.stringify(receipt, null, 2)}\n`, { mode: 0o600 });
    await rename(tmp, path);
  } catch (err) {
    // A full disk may have left part of it: never leave the temporary file behind.
    await unlink(tmp).catch(() => {});
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOSPC' || code === 'EDQUOT' ? 'no space left on the device' : (err as Error).message;
    throw new UsageError(
      `cannot write the receipt ${path}: ${why}`,
      'the journal still records every answer: free some space, or run again with --resume and --receipt <another path> to write it',
    );
  }
}

/** The flat record printed on stdout. */
export function summaryRecord(r: Receipt): Record<string, unknown> {
  return {
    status: r.status,
    profile: r.profile,
    host: r.host,
    project: r.project,
    file: r.input.file,
    id_kind: r.input.id_kind,
    ...r.counts,
    chunks_failed: r.chunks.failed,
    not_reported: r.not_reported.map((n) => n.count),
    id_list_sha256: r.id_list_sha256,
    started_at: r.started_at,
    finished_at: r.finished_at,
    receipt: null as string | null,
    journal: r.journal,
  };
}
