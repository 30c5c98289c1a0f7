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
import { open as openFile, type FileHandle } from 'node:fs/promises';
import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { basename, dirname, resolve as resolvePath } from 'node:path';
import { createHash } from 'node:crypto';
import { CliError, UsageError } from '../../errors.js';
import { openSecretFile } from '../../config/secret-file.js';
import type { IdsFormat } from '../input/read-ids.js';
import type { IdKind } from '../input/validate.js';
import { IdSet } from '../input/id-set.js';
import { PackedIds } from '../input/packed-ids.js';
import type { IdentifierNaming } from '../input/identifiers.js';
import { counted } from '../../io/counts.js';

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

/** Everything a journal says, rebuilt line by line; kept up to date while a run appends. */
export class JournalState {
  header?: JournalHeader;
  readonly runs: RunRecord[] = [];
  readonly resolved = new Map<string, string | null>();
  /** Per project: the persons each identifier (by its key) matched. */
  readonly matched = new Map<string, Map<string, string[]>>();
  /** Per project: the persons a selection chose, and whether the list is whole. */
  readonly selected = new Map<string, { ids: string[]; complete: boolean }>();
  /** Per project: the distinct ids of the persons, recorded before they were deleted. */
  readonly recorded = new Map<string, Map<string, string[]>>();
  /** Persons whose records are in the --backup file. */
  readonly backedUp = new Set<string>();
  readonly chunks = new Map<number, ChunkRecord>();
  maxChunk = 0;
  /** The last verification: the ids it found gone, and whether it finished. */
  verification?: { gone: Set<string>; finished: boolean };

  /** `sendAgain`: how the kind's answers name ids still to do; without it, every answered id is done.
   * `list`: the input's ids, which requests are kept as places in when cut from it (packed-ids.ts). */
  constructor(
    private readonly sendAgain?: SendAgain,
    private readonly list?: IdSet,
  ) {}

  apply(record: JournalRecord): void {
    switch (record.type) {
      case 'header':
        this.header = record;
        break;
      case 'run':
        this.runs.push({ run: record.run, at: record.at, resume: record.resume });
        break;
      case 'resolved':
        for (const [k, v] of Object.entries(record.ids)) this.resolved.set(k, v);
        break;
      case 'matched': {
        const found = mapOf(this.matched, record.project);
        for (const [k, v] of Object.entries(record.ids)) found.set(k, v);
        break;
      }
      case 'selected': {
        const sel = this.selected.get(record.project) ?? { ids: [], complete: false };
        sel.ids.push(...record.ids);
        if (record.complete) sel.complete = true;
        this.selected.set(record.project, sel);
        break;
      }
      case 'recorded': {
        const found = mapOf(this.recorded, record.project);
        for (const [k, v] of Object.entries(record.persons)) {
          found.set(k, v);
          if (record.backed_up) this.backedUp.add(k);
        }
        break;
      }
      case 'sending':
        this.chunks.set(record.chunk, {
          chunk: record.chunk,
          run: record.run,
          project: record.project ?? this.header?.project ?? '',
          ids: new PackedIds(record.ids, this.list),
          sentAt: record.at,
          ...(record.resend ? { resend: true } : {}),
        });
        this.maxChunk = Math.max(this.maxChunk, record.chunk);
        break;
      case 'answered': {
        const chunk = this.chunks.get(record.chunk);
        if (chunk) {
          chunk.answer = {
            at: record.at,
            status: record.status,
            attempts: record.attempts,
            summary: record.summary,
            ...(record.unclear ? { unclear: record.unclear } : {}),
          };
          chunk.failure = undefined;
        }
        break;
      }
      case 'failed': {
        const chunk = this.chunks.get(record.chunk);
        if (chunk && !chunk.answer)
          chunk.failure = {
            at: record.at,
            attempts: record.attempts,
            status: record.status,
            error: record.error,
            ...(record.unclear ? { unclear: record.unclear } : {}),
          };
        break;
      }
      case 'checked': {
        const chunk = this.chunks.get(record.chunk);
        if (chunk) {
          chunk.gone = [...(chunk.gone ?? []), ...record.gone];
        }
        break;
      }
      case 'stopped': {
        const run = this.runs.find((r) => r.run === record.run);
        if (run) run.stopped = { at: record.at, reason: record.reason };
        break;
      }
      case 'verification':
        if (record.stage === 'started') this.verification = { gone: new Set(), finished: false };
        else if (this.verification) this.verification.finished = true;
        break;
      case 'verified':
        for (const id of record.gone) this.verification?.gone.add(id);
        break;
    }
  }

  get lastRun(): number {
    return this.runs.length ? this.runs[this.runs.length - 1].run : 0;
  }

  /** Ids of every chunk the server answered with success, and ids found gone after a lost
   * answer: these are never sent again. */
  answeredIds(): IdSet {
    const done = new IdSet();
    this.eachAnswered((id) => done.add(id));
    return done;
  }

  /** The place in `list` of each id answeredIds() holds that is in it, once or more: by the
   * places a request keeps (packed-ids.ts) where it can, so that a resume of millions of ids makes
   * no string of each. */
  eachAnsweredIn(list: IdSet, take: (at: number) => void): void {
    const failed = this.toSendAgain();
    const byId = (id: string) => {
      if (failed.has(id)) return;
      const at = list.indexOf(id);
      if (at >= 0) take(at);
    };
    for (const chunk of this.chunks.values()) {
      if (chunk.answer)
        for (let i = 0; i < chunk.ids.length; i++) {
          const at = failed.size ? -1 : chunk.ids.placeIn(list, i);
          if (at >= 0) take(at);
          else byId(chunk.ids.at(i));
        }
      for (const id of chunk.gone ?? []) byId(id);
    }
  }

  /** Each id answeredIds() holds, once or more, without a set of them all. */
  eachAnswered(take: (id: string) => void): void {
    // Ids an answer asked to be sent again were not done: they go again (toSendAgain()).
    const failed = this.toSendAgain();
    for (const chunk of this.chunks.values()) {
      if (chunk.answer) for (const id of chunk.ids) if (!failed.has(id)) take(id);
      for (const id of chunk.gone ?? []) if (!failed.has(id)) take(id);
    }
  }

  /** Ids the kind's answers ask to be sent again and no later answer did, with their project. */
  toSendAgain(): Map<string, string> {
    return this.sendAgain ? this.sendAgain(this.chunks.values()) : new Map();
  }

  /** Ids sent in requests whose answer was lost (a run that stopped before their answer, or a
   * chunk that failed after an unclear attempt), and not settled since. Checking them again
   * is harmless: ids a check found gone, or a later chunk answered, are left out. */
  lostAnswerIds(): { chunk: number; project: string; ids: string[] }[] {
    const lost = [...this.chunks.values()].filter((c) => (!c.answer && !c.failure) || (c.failure && (c.failure.unclear ?? 0) > 0));
    // Most runs lost no answer: then no set of every id answered is built for nothing.
    if (lost.length === 0) return [];
    const done = this.answeredIds();
    const out: { chunk: number; project: string; ids: string[] }[] = [];
    for (const c of lost) {
      const ids = c.ids.filter((id) => !done.has(id));
      if (ids.length) out.push({ chunk: c.chunk, project: c.project, ids });
    }
    return out;
  }
}

function mapOf<V>(outer: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = outer.get(key);
  if (!inner) outer.set(key, (inner = new Map()));
  return inner;
}

/** The default journal: named after the input, in `<config dir>/journals/`. */
export function defaultJournalPath(journalsDir: string, input: { path?: string; idListSha256: string; stem?: string }): string {
  // Without a file to name it after (standard input, --email, a selection), the input's hash does.
  if (!input.path) return resolvePath(journalsDir, `${input.stem ?? 'stdin'}-${input.idListSha256.slice(0, 12)}.ndjson`);
  const absolute = resolvePath(input.path);
  const tag = createHash('sha256').update(absolute).digest('hex').slice(0, 8);
  const name = basename(absolute).replace(/[^A-Za-z0-9._-]/g, '_');
  return resolvePath(journalsDir, `${name}-${tag}.ndjson`);
}

export function journalExists(path: string): boolean {
  return existsSync(path);
}

/**
 * Reads a journal. A last line cut short by a crash is expected and ignored (its chunk is simply
 * not answered); a broken line anywhere else means the file was edited or damaged. The ids of
 * its requests are kept packed (packed-ids.ts), as places in `list` (the input's ids) where they
 * are in it, not as the strings of the lines.
 */
export async function readJournal(path: string, o: { list?: IdSet; sendAgain?: SendAgain } = {}): Promise<JournalState> {
  const state = new JournalState(o.sendAgain, o.list);
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let previous: { text: string; number: number } | undefined;
  let number = 0;
  const applyLine = (text: string, n: number, last: boolean) => {
    if (text.trim() === '') return;
    let record: JournalRecord;
    try {
      record = JSON.parse(text) as JournalRecord;
    } catch {
      if (last) return;
      throw new UsageError(
        `journal ${path} is damaged at line ${n}: not a JSON line`,
        'restore it, or start afresh with another --journal (the ids of answered chunks would then be sent again, which is harmless)',
      );
    }
    if (n === 1 && record.type !== 'header')
      throw new UsageError(
        `${path} is not a hogctl bulk job journal (no header line)`,
        'pass the journal a previous run wrote, or another --journal',
      );
    state.apply(record);
  };
  try {
    for await (const text of lines) {
      number++;
      if (previous) applyLine(previous.text, previous.number, false);
      previous = { text, number };
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read the journal ${path}: ${(err as Error).message}`);
  }
  if (previous) applyLine(previous.text, previous.number, true);
  if (!state.header)
    throw new UsageError(
      `${path} is not a hogctl bulk job journal (no header line)`,
      'pass the journal a previous run wrote, or another --journal',
    );
  checkJournalFormat(path, state.header);
  return state;
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

/** The first line of a journal, or undefined when it is not one (readJournal says why later). */
export async function readJournalHeader(path: string): Promise<JournalHeader | undefined> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8', end: 1 << 20 }), crlfDelay: Infinity });
  try {
    for await (const text of lines) {
      const record = JSON.parse(text) as JournalRecord;
      return record.type === 'header' ? record : undefined;
    }
  } catch {
    return undefined;
  } finally {
    lines.close();
  }
  return undefined;
}

const KIND_FLAGS: Record<IdKind, string> = {
  person_ids: 'person ids',
  distinct_ids: '--distinct-ids',
  emails: '--emails',
  mixed: 'a file of mixed identifiers',
  selection: 'a selection',
};

/** What a journal must match to be resumed by this run. */
export type Binding = Pick<JournalHeader, 'host' | 'id_kind'> & {
  command: string;
  projects: string[];
  input: Pick<JournalHeader['input'], 'id_list_sha256' | 'ids' | 'file'>;
  /** The kind's own fields, and how it names them. */
  kind: KindBinding;
};

/** The kind's fields of a journal's header: every field that is not the engine's. */
export function kindFieldsOf(header: JournalHeader): KindFields {
  return Object.fromEntries(Object.entries(header).filter(([k]) => !(ENGINE_HEADER_FIELDS as readonly string[]).includes(k)));
}

/** The command of a journal's job. */
export function journalCommand(header: JournalHeader): string {
  return header.command;
}

/** JSON with the keys of every object sorted: the same value gives the same text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The projects a journal is bound to. */
export function journalProjects(header: JournalHeader): string[] {
  return header.projects ?? [header.project];
}

/** "project 1", "projects 1, 2 and 4". */
export function describeProjects(projects: readonly string[]): string {
  if (projects.length === 1) return `project ${projects[0]}`;
  return `projects ${projects.slice(0, -1).join(', ')} and ${projects[projects.length - 1]}`;
}

/** Refuses to resume a journal written for other ids, other projects, another command or other flags. */
export function checkBinding(path: string, header: JournalHeader, now: Binding): void {
  const fresh = 'run with the same input and flags to resume it, or pass another --journal to start a new run';
  const then = journalProjects(header);
  if (header.host !== now.host || then.join(',') !== now.projects.join(',')) {
    throw new UsageError(
      `journal ${path} belongs to ${describeProjects(then)} on ${header.host}, not ${describeProjects(now.projects)} on ${now.host}`,
      fresh,
    );
  }
  if (header.input.id_list_sha256 !== now.input.id_list_sha256) {
    throw new UsageError(
      `journal ${path} was written for another input: ${header.input.file} with ${counted(header.input.ids, 'id')} (sha256 ${header.input.id_list_sha256.slice(0, 12)}…), ` +
        `but ${now.input.file} has ${counted(now.input.ids, 'id')} (sha256 ${now.input.id_list_sha256.slice(0, 12)}…)`,
      fresh,
    );
  }
  const commandThen = journalCommand(header);
  if (commandThen !== now.command)
    throw new UsageError(`journal ${path} is of \`hogctl ${commandThen}\`, not \`hogctl ${now.command}\``, fresh);
  const names = Object.keys(now.kind.fields);
  const recorded: KindFields = Object.fromEntries(names.map((k) => [k, header[k]]));
  if (header.id_kind !== now.id_kind || names.some((k) => canonical(recorded[k]) !== canonical(now.kind.fields[k]))) {
    const describe = (kind: IdKind, fields: KindFields) => [KIND_FLAGS[kind], now.kind.describe(fields)].filter(Boolean).join(' ');
    throw new UsageError(
      `journal ${path} was written with other flags (${describe(header.id_kind, recorded)}); this run has ${describe(now.id_kind, now.kind.fields)}`,
      fresh,
    );
  }
}

/** A journal that cannot be opened or written (journalError): exit 2 while nothing was sent; once
 * something was, the run says so instead (run.ts). */
export class JournalFileError extends UsageError {}

/**
 * A journal that cannot be opened or written: a problem of the machine (a full disk, a read-only
 * or foreign directory), exit 2 while nothing was sent (exit 9 after: run.ts), with what to free
 * or where to move it. Nothing is ever sent
 * without its journal line, so what the journal holds is still the whole truth.
 */
export function journalError(err: unknown, path: string, doing: 'open' | 'write'): CliError {
  const code = (err as NodeJS.ErrnoException).code;
  const dir = dirname(resolvePath(path));
  const move = `or move the journal to another disk (\`mv ${path} <new path>\`) and continue with --journal <new path> --resume`;
  const nothingLost = doing === 'write' ? '; no request was sent without its journal line' : '; nothing was sent';
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
    case 'EFBIG':
      return new JournalFileError(
        `cannot ${doing} the journal ${path}: ${code === 'EDQUOT' ? 'the disk quota is used up' : code === 'EFBIG' ? 'the file is larger than this system allows' : 'no space left on the device'}`,
        `free space on the disk of ${dir} (\`df -h ${dir}\`), ${move}${nothingLost}`,
      );
    case 'EROFS':
    case 'EACCES':
    case 'EPERM':
      return new JournalFileError(
        `cannot ${doing} the journal ${path}: ${code === 'EROFS' ? 'the file system is read-only' : 'permission denied'}`,
        `pass --journal with a path you can write to${nothingLost}`,
      );
    default:
      return new JournalFileError(
        `cannot ${doing} the journal ${path}: ${(err as Error).message}`,
        `check the disk and the directory ${dir}, ${move}${nothingLost}`,
      );
  }
}

/**
 * Where a journal whose last line is torn should be cut (just after its last newline, or 0), or
 * undefined when it ends whole. Reads the file backwards a block at a time: a journal of ten
 * million ids is hundreds of megabytes, and only its end matters here.
 */
async function lastLineEnd(path: string): Promise<number | undefined> {
  const file = await openFile(path, 'r');
  try {
    const size = (await file.stat()).size;
    const block = Buffer.alloc(64 * 1024);
    for (let end = size; end > 0;) {
      const start = Math.max(0, end - block.length);
      const { bytesRead } = await file.read(block, 0, end - start, start);
      const bytes = block.subarray(0, bytesRead);
      if (end === size && bytes[bytes.length - 1] === 0x0a) return undefined;
      const nl = bytes.lastIndexOf(0x0a);
      if (nl !== -1) return start + nl + 1;
      end = start;
    }
    return size === 0 ? undefined : 0;
  } finally {
    await file.close();
  }
}

/**
 * Appends records and makes them durable before the returned promise settles. Appends that
 * arrive while a write is on its way share the next write and fsync, so concurrent chunks do not
 * queue behind one fsync each.
 */
export class JournalWriter {
  private queue: { line: string; resolve: () => void; reject: (err: Error) => void }[] = [];
  private flushing = false;
  private failure: Error | undefined;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  /** `create` refuses an existing file; `append` first drops a last line torn by a crash (it
   * can only be the record of a write that never completed, so nothing depended on it). */
  static async open(path: string, mode: 'create' | 'append'): Promise<JournalWriter> {
    try {
      const handle = await openSecretFile(path, mode);
      const writer = new JournalWriter(path, handle);
      if (mode === 'append') {
        const end = await lastLineEnd(path);
        if (end !== undefined) {
          await handle.truncate(end);
          await handle.datasync();
        }
      }
      return writer;
    } catch (err) {
      if (err instanceof CliError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST')
        throw new UsageError(
          `journal ${path} already exists`,
          'pass --resume to continue that run, or --journal <path> to start a new one',
        );
      throw journalError(err, path, 'open');
    }
  }

  append(record: JournalRecord): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ line: `${JSON.stringify(record)}\n`, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0);
      try {
        await this.handle.appendFile(batch.map((b) => b.line).join(''));
        await this.handle.datasync();
        for (const b of batch) b.resolve();
      } catch (err) {
        this.failure = journalError(err, this.path, 'write');
        for (const b of batch) b.reject(this.failure);
      }
    }
    this.flushing = false;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}
