// The journal of a bulk job: an append-only NDJSON file, flushed to disk before each chunk is
// sent and after its answer, so that a crash at any instant leaves a record of exactly which
// chunks the server answered. `--resume` rebuilds the state from it and sends only the ids no
// answered chunk covered. It holds ids, what binds the job and outcomes, never credentials.
// It knows no kind of job: a kind's own header fields (what binds it) and the summaries of its
// answers are stored as the kind gave them (action.ts).
//
// Lines: one `header` (what the journal is bound to: host, projects, kind of ids, the kind's own
// fields, and the SHA-256 of the sorted unique id list or of the selection), then per invocation a `run`, what was
// found before anything was deleted (`resolved` integer ids, `matched` identifiers, `selected`
// persons, `recorded` distinct ids, each for its project), a `sending` line with the ids of each
// chunk and its project, its `answered` or `failed` line, and `stopped`.
import { UsageError } from '../../errors.js';
import type { IdsFormat } from '../input/read-ids.js';
import type { IdKind } from '../input/validate.js';
import type { PackedIds } from '../input/packed-ids.js';
import type { IdentifierNaming } from '../input/identifiers.js';

/** 2: every header names its command, projects, settings and input flag, every `matched` and
 * `sending` line its project. Journals of format 1 came from development builds before the first
 * release, and are refused (checkJournalFormat) rather than read with guesses for what they lack. */
export const JOURNAL_FORMAT = 2;

/**
 * The header's fields that belong to the engine. Every other field of a header is the kind's own
 * (a deletion's `flags`, an update's `changes` and `capture_events`), written as the kind gave it.
 */
export const ENGINE_HEADER_FIELDS = [
  'type',
  'journal_format',
  'hogctl',
  'created_at',
  'profile',
  'host',
  'project',
  'projects',
  'id_kind',
  'command',
  'input',
  'selection',
  'settings',
  'identifiers',
] as const;

export interface JournalHeader extends JournalHeaderFields {
  type: 'header';
  journal_format: number;
  hogctl: string;
}

/** The header but the three fields every header starts with. */
export interface JournalHeaderFields {
  created_at: string;
  profile: string | null;
  host: string;
  /** The first project of the case. */
  project: string;
  /** Every project of the case, in order (absent when the case is of one project: `[project]`). */
  projects?: string[];
  id_kind: IdKind;
  /** The command of the job: "persons bulk-delete". */
  command: string;
  /** `file`: how messages name the input (input.ts, inputLabel); `given`: its kind and the flag
   * that gave it. */
  input: {
    file: string;
    format: IdsFormat;
    column: string | null;
    ids: number;
    id_list_sha256: string;
    given: { kind: string; flag: string };
  };
  /** With --where, --cohort or --query: what chose the persons. */
  selection?: SelectionSpec;
  /** How the run was made, so that `--resume` needs nothing else. */
  settings: RememberedSettings;
  /** With --emails: how each address is named (identifiers.ts). */
  identifiers?: IdentifierNaming;
  /** The kind's own fields (KindFields), read by the kind alone. */
  [kindField: string]: unknown;
}

/** Fields a kind of job keeps in the journal's header and the receipt, as JSON. */
export type KindFields = Record<string, unknown>;

/**
 * What a kind binds its journal to besides the input: its fields of the header, compared one by
 * one when a journal is resumed, and how to say what they are when they differ.
 */
export interface KindBinding {
  fields: KindFields;
  /** "--delete-events --keep-person", "set plan=starter": the fields as the command line gave them. */
  describe(fields: KindFields): string;
}

/**
 * Ids that answered requests carried but the server asked to be sent again (a deletion's
 * `deletion_errors`), with their project, as the kind reads its answers: these are not done.
 */
export type SendAgain = (chunks: Iterable<ChunkRecord>) => Map<string, string>;

/** A selection of persons, as the journal and the receipt name it. */
export interface SelectionSpec {
  where: string[];
  cohort: string | null;
  query: string | null;
}

export interface RememberedSettings {
  receipt: string | null;
  output: string | null;
  rate: { limit: number; window_ms: number }[];
  concurrency: number;
  retries: number;
  max_wait_ms: number;
  skip_invalid: boolean;
  /** --backup <file>: the records of the persons, written before the first deletion. */
  backup: string | null;
  /** How the projects were chosen: `all` (--all-projects) or the list given. */
  projects_flag: 'all' | 'list' | null;
  /** --read-rate. */
  read_rate: number;
  /** --reference <ticket>. */
  reference: string | null;
}

export type StopReason = 'completed' | 'partial' | 'interrupted' | 'auth' | 'rejected' | 'rate_limited';

export type JournalRecord =
  | JournalHeader
  | { type: 'run'; run: number; at: string; resume: boolean }
  | { type: 'resolved'; ids: Record<string, string | null> }
  // The persons each identifier matched in a project, by its key (identifiers.ts); one that
  // matched no one there has an empty list.
  | { type: 'matched'; project: string; ids: Record<string, string[]> }
  // The persons a selection chose in a project, in slices; `complete` on the last one.
  | { type: 'selected'; project: string; ids: string[]; complete?: boolean }
  // The distinct ids of persons about to be deleted, for erasure-status to check later (those
  // that look like an e-mail address by their keyed hash).
  // `backed_up`: the records were written to the --backup file first.
  | { type: 'recorded'; project: string; persons: Record<string, string[]>; backed_up?: boolean }
  // `resend`: persons an earlier answer listed in deletion_errors, sent again.
  // `project`: absent when the chunk went to the header's `project`.
  | { type: 'sending'; chunk: number; run: number; at: string; ids: string[]; project?: string; resend?: boolean }
  // `unclear`: attempts before this line that got no clear answer and may have deleted persons
  // (absent when there were none).
  // `summary`: what the answer said, as the kind reads it (bulk_delete's counts), or null.
  | { type: 'answered'; chunk: number; at: string; status: number; attempts: number; summary: unknown; unclear?: number }
  | { type: 'failed'; chunk: number; at: string; attempts: number; status: number | null; error: string; unclear?: number }
  // After an attempt whose answer was lost, these ids of the chunk no longer named a person
  // (lost-answers.ts); the chunk's later attempts carry only the others.
  | { type: 'checked'; chunk: number; at: string; gone: string[]; present: number }
  | { type: 'stopped'; run: number; at: string; reason: StopReason }
  // The verification after a run: when it started and finished, and the ids it found gone as it
  // went, so that one interrupted (Ctrl-C) goes on with --resume where it stopped.
  | { type: 'verification'; at: string; stage: 'started' | 'finished' }
  | { type: 'verified'; project: string; at: string; gone: string[] };

export interface ChunkRecord {
  chunk: number;
  run: number;
  /** The project the chunk went to. */
  project: string;
  /** 16 bytes a UUID (packed-ids.ts): every request of ten million ids stays in memory. */
  ids: PackedIds;
  sentAt: string;
  answer?: { at: string; status: number; attempts: number; summary: unknown; unclear?: number };
  failure?: { at: string; attempts: number; status: number | null; error: string; unclear?: number };
  /** Ids found gone when checked after a lost answer: done, never sent again. */
  gone?: string[];
  /** Persons an earlier answer listed in deletion_errors, sent again: found once already. */
  resend?: boolean;
}

export interface RunRecord {
  run: number;
  at: string;
  resume: boolean;
  stopped?: { at: string; reason: StopReason };
}

/** Refuses a journal of another format: an earlier one came from a development build before the
 * first release (nothing of it is read), a later one from a newer hogctl. */
export function checkJournalFormat(path: string, header: Pick<JournalHeader, 'journal_format'>): void {
  const format = header.journal_format;
  if (format === JOURNAL_FORMAT) return;
  if (typeof format === 'number' && format < JOURNAL_FORMAT)
    throw new UsageError(
      `journal ${path} has format ${format}: an earlier development build of hogctl wrote it, and this hogctl reads only format ${JOURNAL_FORMAT}`,
      `start over: run the same command without --resume, with --journal <new path> (or after removing ${path})`,
    );
  throw new UsageError(
    `journal ${path} has format ${format}, which this hogctl does not read`,
    'resume it with the hogctl version that wrote it',
  );
}
