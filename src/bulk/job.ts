// `hogctl persons bulk-delete`, start to finish: read and check every value (nothing is sent if
// one is bad), resolve integer ids, bind to a journal, show the plan and ask, send the chunks,
// and leave a receipt. The order matters: nothing reaches the server before the input has been
// read whole and the person running it has agreed to exactly what the plan says.
import { createReadStream } from 'node:fs';
import { constants } from 'node:fs';
import { access, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve as resolvePath } from 'node:path';
import type { Context } from '../context.js';
import { VERSION } from '../context.js';
import {
  ApiError,
  AuthError,
  CancelledError,
  CliError,
  NotPostHogApiError,
  PartialFailureError,
  RateLimitedError,
  TlsError,
  UsageError,
} from '../errors.js';
import { confirmOrRefuse } from '../cli/confirm.js';
import { configDir, ensurePrivateDir } from '../config/paths.js';
import { writeRecord } from '../io/output.js';
import { formatClock, formatDuration, ProgressBar, ProgressLog, progressLogInterval } from '../io/progress.js';
import { getPerson } from '../api/persons.js';
import { NotFoundError } from '../errors.js';
import { chunkIds, CHUNK_SIZE } from './chunk.js';
import {
  checkBinding,
  defaultJournalPath,
  journalExists,
  JournalState,
  JournalWriter,
  JOURNAL_FORMAT,
  readJournal,
  readJournalHeader,
  type DeleteFlags,
  type JournalHeader,
} from './journal.js';
import { presenceCheck } from './lost-answers.js';
import { InputError, readIds, type IdsFormat } from './read-ids.js';
import { buildReceipt, summaryRecord, writeReceipt, type Receipt, type ReceiptStatus } from './receipt.js';
import { lockJournal } from './lock.js';
import { checkKeyScope } from './scope-check.js';
import { resolveIntegerIds } from './resolve.js';
import { runChunks, type Chunk, type RunnerOptions } from './runner.js';
import { DELETE_WINDOWS, RateBudget, sleep, windowName, type RateWindow } from './rate.js';
import { ASSUMED_REQUEST_MS, describeDeletion, describeEstimate, describeWindows } from './plan.js';
import { sender } from './send.js';
import { collectIds, invalidInputError, isIntegerId, listBadValues, type IdKind, type IdList } from './validate.js';

export interface BulkDeleteSettings {
  file: string;
  format?: IdsFormat;
  column?: string;
  distinctIds?: boolean;
  deleteEvents?: boolean;
  deleteRecordings?: boolean;
  keepPerson?: boolean;
  dryRun?: boolean;
  yes?: boolean;
  journal?: string;
  resume?: boolean;
  receipt?: string;
  /** Undefined when not given: --resume takes the journal's, a new run the default. */
  concurrency?: number;
  /** The delete windows (--rate); default PostHog's 480/minute and 4800/hour. */
  rate?: RateWindow[];
  retries?: number;
  /** The longest Retry-After waited out (--max-wait); a longer one stops the run. */
  maxWaitMs?: number;
  skipInvalid?: boolean;
}

/** The settings of this run, every one decided. */
type RunSettings = BulkDeleteSettings & { concurrency: number; rate: RateWindow[]; retries: number; maxWaitMs: number; perMinute: number };

const DEFAULT_CONCURRENCY = 4;
const DEFAULT_RETRIES = 8;
const DEFAULT_MAX_WAIT_MS = 15 * 60_000;

/** How long 429s may go on with no chunk getting through before the run gives up on chunks. */
const PATIENCE_MS = 60 * 60 * 1000;
/** PostHog's limit for reading persons with a personal key (ClickHouse burst, §5). */
const READ_PER_MINUTE = 240;
/** bulk_delete of 1000 persons can take a while on a busy server; --timeout overrides it. */
const BULK_TIMEOUT_MS = 120_000;

const n = (x: number) => x.toLocaleString('en-US');

function aborted(ctx: Context): boolean {
  return Boolean(ctx.deps.signal?.aborted);
}

async function openInput(ctx: Context, file: string): Promise<{ source: AsyncIterable<Buffer | string>; label: string; path?: string }> {
  if (file === '-') {
    if (ctx.io.stdin.isTTY) {
      throw new UsageError(
        '--file - reads the ids from standard input, which is a terminal',
        'pipe the ids in, e.g. `hogctl persons bulk-delete --file - < ids.txt`, or pass the file path',
      );
    }
    return { source: ctx.io.stdin as AsyncIterable<Buffer | string>, label: 'stdin' };
  }
  try {
    const info = await stat(file);
    if (info.isDirectory()) throw new UsageError(`${file} is a directory, not a file of ids`);
    // The stream below opens the file only when first read, where a refusal would be no usage error.
    await access(file, constants.R_OK);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (err as Error).message;
    throw new UsageError(
      code === 'ENOENT' ? `no such file: ${file}` : `cannot read ${file}: ${why}`,
      'check the path given to --file and its permissions; nothing was sent',
    );
  }
  return { source: createReadStream(file, { highWaterMark: 256 * 1024 }), label: file, path: file };
}

function describeFlags(f: DeleteFlags): string {
  const yn = (b: boolean) => (b ? 'yes' : 'no');
  return `delete events: ${yn(f.delete_events)} · delete recordings: ${yn(f.delete_recordings)} · keep person: ${yn(f.keep_person)}`;
}

/**
 * The shortest command line that continues this run: the journal remembers the rest, and is
 * found from the file's path unless it was named (standard input has no path to go by).
 */
function resumeCommand(ctx: Context, s: BulkDeleteSettings, journal: string): string {
  const q = (v: string) => (/^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);
  const parts = ['hogctl'];
  if (ctx.globals.profile) parts.push('--profile', q(ctx.globals.profile));
  if (ctx.globals.baseUrl) parts.push('--base-url', q(ctx.globals.baseUrl));
  if (ctx.globals.project) parts.push('--project', q(ctx.globals.project));
  parts.push('persons', 'bulk-delete', '--file', q(s.file));
  if (s.file === '-' || s.journal) parts.push('--journal', q(journal));
  parts.push('--resume');
  if (s.file === '-') parts.push('< <the same ids>');
  return parts.join(' ');
}

/** Where the journal of this input is, when that can be known before the input is read. */
function knownJournalPath(ctx: Context, s: BulkDeleteSettings): string | undefined {
  if (s.journal) return s.journal;
  if (s.file === '-') return undefined;
  return defaultJournalPath(join(configDir(ctx.env), 'journals'), { path: s.file, idListSha256: '' });
}

/**
 * --resume takes every setting not given on its command line from the journal: the kind of
 * ids, the flags, how the file is read, the receipt path, the output format, the rate, the
 * concurrency and the retries. Flags given that differ from the journal's are refused later.
 */
async function decideSettings(ctx: Context, s: BulkDeleteSettings): Promise<RunSettings> {
  const path = s.resume ? knownJournalPath(ctx, s) : undefined;
  const header = path && journalExists(path) ? await readJournalHeader(path) : undefined;
  const r = header?.settings;
  const merged: BulkDeleteSettings = { ...s };
  if (header) {
    merged.distinctIds ||= header.id_kind === 'distinct_ids';
    merged.deleteEvents ||= header.flags.delete_events;
    merged.deleteRecordings ||= header.flags.delete_recordings;
    merged.keepPerson ||= header.flags.keep_person;
    if (merged.format === undefined && s.file !== '-' && header.input.file === s.file) merged.format = header.input.format;
    if (merged.column === undefined && header.input.column !== null) merged.column = header.input.column;
  }
  if (r) {
    merged.skipInvalid ||= r.skip_invalid;
    if (merged.receipt === undefined && r.receipt !== null) merged.receipt = r.receipt;
    if (ctx.globals.output === undefined && ctx.env.HOGCTL_OUTPUT === undefined && r.output !== null) ctx.globals.output = r.output;
  }
  const rate = merged.rate ?? r?.rate.map((w) => ({ limit: w.limit, windowMs: w.window_ms })) ?? [...DELETE_WINDOWS];
  return {
    ...merged,
    rate,
    concurrency: merged.concurrency ?? r?.concurrency ?? DEFAULT_CONCURRENCY,
    retries: merged.retries ?? r?.retries ?? DEFAULT_RETRIES,
    maxWaitMs: merged.maxWaitMs ?? r?.max_wait_ms ?? DEFAULT_MAX_WAIT_MS,
    // The shortest window's pace, for the reads that resolve integer ids.
    perMinute: (rate[0].limit / rate[0].windowMs) * 60_000,
  };
}

/** A receipt or journal that cannot be written must fail before anything is deleted, not after. */
async function checkWritableDir(path: string, flag: string): Promise<void> {
  const dir = dirname(resolvePath(path));
  try {
    await access(dir, constants.W_OK);
  } catch {
    throw new UsageError(
      `cannot write ${path}: the directory ${dir} does not exist or is not writable`,
      `pass a writable path to ${flag}; nothing was sent`,
    );
  }
}

interface Targets {
  ids: string[];
  unresolved: string[];
  resolvedDuplicates: number;
  newlyResolved: Map<string, string | null>;
}

/** The values to send: UUIDs as they are, integer ids through their UUID, each once. */
async function resolveTargets(
  ctx: Context,
  list: IdList,
  known: Map<string, string | null>,
  lookup: ((id: string) => Promise<string | null>) | undefined,
  s: RunSettings,
): Promise<Targets> {
  const newlyResolved = new Map<string, string | null>();
  if (list.kind === 'person_ids' && list.integerCount > 0) {
    const todo = list.ids.filter((id) => isIntegerId(id) && !known.has(id));
    if (todo.length > 0 && lookup) {
      const tty = Boolean(ctx.io.stderr.isTTY) && !ctx.globals.quiet;
      // Reads have their own, lower limit; staying under it spares a storm of 429s.
      const perMinute = Math.min(s.perMinute, READ_PER_MINUTE);
      ctx.info(
        `resolving ${n(todo.length)} integer person ids to UUIDs (bulk_delete matches UUIDs only), up to ${n(perMinute)} requests/min…`,
      );
      const budget = new RateBudget(perMinute, { now: ctx.deps.now, sleep: ctx.deps.sleep ?? sleep });
      let last = 0;
      const resolved = await resolveIntegerIds(todo, lookup, {
        concurrency: s.concurrency,
        // Reads are spaced evenly only; each slot is released as soon as it is taken.
        pace: async (signal) => (await budget.take(signal))(),
        signal: ctx.deps.signal,
        onProgress: (done, total) => {
          const now = ctx.deps.now();
          if (tty && (now - last > 100 || done === total)) {
            last = now;
            ctx.io.stderr.write(`\r\u001b[2K  resolved ${n(done)}/${n(total)}`);
          }
        },
      }).catch((err: unknown) => {
        // A lookup that failed after its retries stops the run before any deletion: say so.
        if (err instanceof CliError && !(err instanceof CancelledError))
          err.message = `could not resolve the integer ids to UUIDs, so nothing was deleted in this run: ${err.message}`;
        throw err;
      });
      if (tty) ctx.io.stderr.write('\r\u001b[2K');
      for (const [k, v] of resolved) newlyResolved.set(k, v);
      const missing = [...resolved.values()].filter((v) => v === null).length;
      ctx.info(
        `resolved ${n(todo.length - missing)} of ${n(todo.length)} integer ids${missing ? `; ${n(missing)} match no person and will not be sent` : ''}`,
      );
    }
  }
  const seen = new Set<string>();
  const ids: string[] = [];
  const unresolved: string[] = [];
  let resolvedDuplicates = 0;
  for (const id of list.ids) {
    let target = id;
    if (list.kind === 'person_ids' && isIntegerId(id)) {
      const uuid = newlyResolved.has(id) ? newlyResolved.get(id) : known.get(id);
      if (uuid === undefined) {
        // Dry run: not resolved, shown as it is.
        target = id;
      } else if (uuid === null) {
        unresolved.push(id);
        continue;
      } else target = uuid.toLowerCase();
    }
    if (seen.has(target)) {
      resolvedDuplicates++;
      continue;
    }
    seen.add(target);
    ids.push(target);
  }
  return { ids, unresolved, resolvedDuplicates, newlyResolved };
}

export async function bulkDelete(ctx: Context, given: BulkDeleteSettings): Promise<void> {
  const settings = await ctx.settings();
  const projectId = await ctx.projectId();
  const host = settings.baseUrl;
  const profile = settings.profileName ?? null;
  const s = await decideSettings(ctx, given);
  const output = await ctx.output();
  const kind: IdKind = s.distinctIds ? 'distinct_ids' : 'person_ids';
  const windows = s.rate;
  const flags: DeleteFlags = {
    delete_events: Boolean(s.deleteEvents),
    delete_recordings: Boolean(s.deleteRecordings),
    keep_person: Boolean(s.keepPerson),
  };
  const startedAt = new Date(ctx.deps.now()).toISOString();

  // 1. Read and check every value before anything else.
  const input = await openInput(ctx, s.file);
  // hogctl's own `persons list -o csv` has `id` (the UUID in lists) and, with --fields, `uuid`.
  const defaultColumns = kind === 'person_ids' ? ['uuid', 'id'] : ['distinct_id'];
  const onColumn = (name: string) => ctx.info(`reading the ids from the "${name}" column of the CSV header (--column picks another)`);
  const list = await collectIds(
    readIds(input.source, { label: input.label, path: input.path, format: s.format, column: s.column, defaultColumns, onColumn }),
    { kind, label: input.label },
  );
  if (aborted(ctx)) throw new CancelledError('cancelled; nothing was sent');
  if (list.ids.length === 0 && list.invalidCount === 0) {
    throw new InputError(
      input.label,
      1,
      'no ids in the input (it is empty, or holds only blank lines and comments)',
      'pass the file that holds the ids; nothing was sent',
    );
  }
  if (list.invalidCount > 0) {
    if (!s.skipInvalid) throw invalidInputError(list, input.label);
    if (list.ids.length === 0)
      throw new UsageError(
        `no valid ids in ${input.label}: all ${n(list.invalidCount)} values are invalid; nothing was sent:\n${listBadValues(list)}`,
      );
    ctx.warn(
      `skipping ${n(list.invalidCount)} invalid ${list.invalidCount === 1 ? 'value' : 'values'} (--skip-invalid); the receipt lists them:\n${listBadValues(list)}`,
    );
  }

  const client = s.dryRun ? undefined : await ctx.api();
  // 2. The journal: a new one, or the one to resume, which must be for these ids and flags.
  const journalsDir = join(configDir(ctx.env), 'journals');
  const journalPath = s.journal ?? defaultJournalPath(journalsDir, { path: input.path, idListSha256: list.sha256 });
  const binding = {
    host,
    project: projectId,
    id_kind: kind,
    flags,
    input: { file: input.label, ids: list.ids.length, id_list_sha256: list.sha256 },
  };
  let state: JournalState | undefined;
  if (!s.dryRun) {
    // Taken before the journal is read, so that two runs can never both act on what it says.
    if (s.journal) await checkWritableDir(s.journal, '--journal');
    else ensurePrivateDir(journalsDir);
    const lock = await lockJournal(journalPath, ctx.deps.now);
    ctx.onClose(() => lock.release());
  }
  if (s.resume) {
    if (!journalExists(journalPath)) {
      throw new UsageError(
        `nothing to resume: there is no journal at ${journalPath}`,
        s.journal ? 'check the --journal path' : 'run without --resume to start, or pass the --journal of the run to continue',
      );
    }
    state = await readJournal(journalPath);
    checkBinding(journalPath, state.header!, binding);
  } else if (journalExists(journalPath) && !s.dryRun) {
    let what = '';
    let old: JournalState | undefined;
    try {
      old = await readJournal(journalPath);
      const answered = [...old.chunks.values()].filter((c) => c.answer).length;
      what = ` (a run started ${old.header!.created_at}; ${n(answered)} requests answered)`;
    } catch {
      // Described without details; the refusal is what matters.
    }
    // Started again after it completed: say so, rather than refuse or send anything.
    const last = old?.runs[old.runs.length - 1];
    if (!old || last?.stopped?.reason !== 'completed') {
      throw new UsageError(
        `a journal already exists at ${journalPath}${what}`,
        'pass --resume to continue that run, or --journal <new path> to start a new one',
      );
    }
    checkBinding(journalPath, old.header!, binding);
    state = old;
  }
  const completedAt =
    state?.runs[state.runs.length - 1]?.stopped?.reason === 'completed' ? state.runs[state.runs.length - 1].stopped!.at : undefined;

  // 3. Integer ids become UUIDs (not in a dry run: that would send requests).
  const lookup = client
    ? async (id: string) => {
        try {
          return (await getPerson(client, projectId, id)).uuid;
        } catch (err) {
          if (err instanceof NotFoundError) return null;
          throw err;
        }
      }
    : undefined;
  const targets = await resolveTargets(ctx, list, state?.resolved ?? new Map(), lookup, s);
  if (aborted(ctx)) throw new CancelledError('cancelled; nothing was deleted');

  const done = state?.answeredIds() ?? new Set<string>();
  const remaining = done.size ? targets.ids.filter((id) => !done.has(id)) : targets.ids;
  let chunks = chunkIds(remaining, (state?.maxChunk ?? 0) + 1);
  const receiptPath = s.receipt ?? (s.dryRun ? undefined : journalPath.replace(/\.ndjson$/, '') + '.receipt.json');
  if (s.receipt) await checkWritableDir(s.receipt, '--receipt');
  if (s.journal) await checkWritableDir(s.journal, '--journal');

  // 4. The plan, then the question.
  const what = kind === 'distinct_ids' ? 'distinct ids' : 'person ids';
  const integerNote = list.integerCount > 0 && !client ? ` (${n(list.integerCount)} integer ids would be resolved to UUIDs first)` : '';
  const lines = [
    `Plan: ${flags.keep_person ? 'delete the data of' : 'delete'} persons by ${kind === 'distinct_ids' ? 'distinct id' : 'person id'}${s.dryRun ? ' (dry run: nothing will be sent)' : ''}`,
    `  profile   ${profile ?? '(none: settings from flags and environment)'}`,
    `  host      ${host}`,
    `  project   ${projectId}`,
    `  input     ${input.label} (${list.format}): ${n(list.requested)} values, ${n(list.ids.length)} unique ${what}, ${n(list.duplicates)} duplicates dropped, ${n(list.invalidCount)} invalid${integerNote}`,
  ];
  if (targets.resolvedDuplicates)
    lines.push(`  dupes     ${n(targets.resolvedDuplicates)} integer ids name a person already in the list by UUID; sent once`);
  if (targets.unresolved.length) lines.push(`  missing   ${n(targets.unresolved.length)} integer ids match no person and will not be sent`);
  if (state) lines.push(`  resume    ${n(done.size)} ids already answered in earlier runs (journal); ${n(remaining.length)} left`);
  lines.push(
    `  requests  ${n(chunks.length)} of at most ${n(CHUNK_SIZE)} ids (POST /api/projects/${projectId}/persons/bulk_delete/)`,
    `  flags     ${describeFlags(flags)}`,
    `  budget    ${describeWindows(windows)} requests, ${s.concurrency} in flight; ${chunks.length ? `estimated time ${describeEstimate(chunks.length, windows, s.concurrency)}` : 'nothing to send'}`,
  );
  if (!s.dryRun) lines.push(`  journal   ${journalPath}`);
  if (receiptPath) lines.push(`  receipt   ${receiptPath}`);
  ctx.info(lines.join('\n'));

  const finish = async (status: ReceiptStatus, journalState: JournalState | undefined, error?: string, print = true): Promise<Receipt> => {
    const receipt = buildReceipt(journalState, list, {
      status,
      version: VERSION,
      startedAt: journalState?.header?.created_at ?? startedAt,
      finishedAt: new Date(ctx.deps.now()).toISOString(),
      profile,
      host,
      project: projectId,
      file: input.label,
      format: list.format,
      column: s.column ?? null,
      kind,
      flags,
      skipInvalid: Boolean(s.skipInvalid),
      journal: journalState?.header ? journalPath : null,
      receipt: receiptPath ?? null,
      targets: targets.ids.length,
      unresolved: targets.unresolved,
      resolvedDuplicates: targets.resolvedDuplicates,
      error,
    });
    // Persons the server could not delete make the run partial, even if every request succeeded.
    if (receipt.status === 'completed' && (receipt.counts.deletion_errors ?? 0) > 0) receipt.status = 'partial';
    if (receiptPath) await writeReceipt(receiptPath, receipt);
    if (!print) return receipt;
    const record = summaryRecord(receipt);
    record.receipt = receiptPath ?? null;
    await writeRecord(output, record, { columns: Object.keys(record) });
    return receipt;
  };

  if (s.dryRun) {
    ctx.info('dry run: nothing was sent');
    // The plan is the answer; a summary of zeros would only bury it. Scripts that asked for
    // JSON still get the record.
    await finish('dry_run', state, undefined, output.format === 'json' || output.format === 'ndjson');
    return;
  }
  if (chunks.length === 0) {
    if (completedAt) ctx.info(`this erasure already completed at ${completedAt} (journal ${journalPath}); nothing was sent`);
    else ctx.info(state ? 'every id was already answered in earlier runs; nothing left to send' : 'nothing to send');
    await finish('completed', state);
    return;
  }

  const action = `This deletes ${describeDeletion(kind, remaining.length, flags)}`;
  await confirmOrRefuse(ctx, {
    yes: s.yes,
    summary: `${action} in project ${projectId} on ${host}${profile ? ` (profile ${profile})` : ''}.`,
    question: 'Go ahead? This cannot be undone.',
  });
  if (aborted(ctx)) throw new CancelledError('cancelled; nothing was sent');

  // Before anything is journaled or deleted: may this key delete persons in this project?
  await checkKeyScope(ctx, client!, projectId, 'person:write');

  // 5. The run.
  ensurePrivateDir(journalsDir);
  const writer = await JournalWriter.open(journalPath, state ? 'append' : 'create');
  state ??= new JournalState();
  const journal = state;
  const append = async (record: Parameters<JournalWriter['append']>[0]) => {
    await writer.append(record);
    journal.apply(record);
  };
  const run = journal.lastRun + 1;
  let result;
  let bar: ProgressBar | ProgressLog | undefined;
  try {
    if (!journal.header) {
      const header: JournalHeader = {
        type: 'header',
        journal_format: JOURNAL_FORMAT,
        hogctl: VERSION,
        created_at: startedAt,
        profile,
        host,
        project: projectId,
        id_kind: kind,
        flags,
        input: { file: input.label, format: list.format, column: s.column ?? null, ids: list.ids.length, id_list_sha256: list.sha256 },
        settings: {
          receipt: receiptPath ? resolvePath(receiptPath) : null,
          output: ctx.globals.output ?? ctx.env.HOGCTL_OUTPUT ?? null,
          rate: windows.map((w) => ({ limit: w.limit, window_ms: w.windowMs })),
          concurrency: s.concurrency,
          retries: s.retries,
          max_wait_ms: s.maxWaitMs,
          skip_invalid: Boolean(s.skipInvalid),
        },
      };
      await append(header);
    }
    await append({ type: 'run', run, at: new Date(ctx.deps.now()).toISOString(), resume: Boolean(s.resume) });
    const fresh = [...targets.newlyResolved];
    for (let i = 0; i < fresh.length; i += 10_000) await append({ type: 'resolved', ids: Object.fromEntries(fresh.slice(i, i + 10_000)) });

    const clock = { now: ctx.deps.now, sleep: ctx.deps.sleep ?? sleep };
    // Ids whose answers were lost are checked before they go out again (lost-answers.ts). A
    // kept person is no sign of anything, so with --keep-person they are simply sent again.
    const note = (line: string) => (bar ? bar.note(line) : ctx.info(line));
    const check = flags.keep_person
      ? undefined
      : presenceCheck({
          client: client!,
          projectId,
          kind,
          budget: new RateBudget(READ_PER_MINUTE, clock),
          signal: ctx.deps.signal,
          unavailable: (why) =>
            ctx.warn(
              `cannot check the ids of requests whose answers were lost: ${why}; they are sent again, and persons a lost request deleted are not counted (the receipt says so)`,
            ),
        });
    const lost = check ? journal.lostAnswerIds() : [];
    if (lost.length > 0 && check) {
      const count = lost.reduce((k, l) => k + l.ids.length, 0);
      ctx.info(
        `checking ${n(count)} ids sent in ${n(lost.length)} ${lost.length === 1 ? 'request' : 'requests'} of an earlier run whose answers were lost…`,
      );
      let gone = 0;
      for (const l of lost) {
        const present = await check(l.ids);
        if (present === null) break;
        const chunkGone = l.ids.filter((id) => !present.has(id));
        gone += chunkGone.length;
        await append({
          type: 'checked',
          chunk: l.chunk,
          at: new Date(ctx.deps.now()).toISOString(),
          gone: chunkGone,
          present: l.ids.length - chunkGone.length,
        });
      }
      ctx.info(`${n(gone)} of them no longer name a person (the earlier request deleted them); the others are sent again`);
      const done = journal.answeredIds();
      chunks = chunks.map((c) => ({ index: c.index, ids: c.ids.filter((id) => !done.has(id)) })).filter((c) => c.ids.length > 0);
    }

    const totalIds = chunks.reduce((k, c) => k + c.ids.length, 0);
    let idsDone = 0;
    let requestsDone = 0;
    let requestMsTotal = 0;
    const runStarted = ctx.deps.now();
    const budget = new RateBudget(windows, clock);
    // Requests of earlier runs still count on the server: one entry per attempt, at its answer.
    const longest = Math.max(...windows.map((w) => w.windowMs));
    const earlier: number[] = [];
    for (const c of journal.chunks.values()) {
      const last = c.answer ?? c.failure;
      const at = Date.parse(last?.at ?? c.sentAt);
      if (runStarted - at < longest) for (let i = 0; i < Math.max(1, last?.attempts ?? 1); i++) earlier.push(at);
    }
    budget.seed(earlier);
    // What the run waits for: a window of the budget, or the server's Retry-After.
    const waiting = (): string | undefined => {
      const now = ctx.deps.now();
      const w = budget.waiting;
      if (w) return `waiting for the ${windowName(w.window)} until ${formatClock(w.until)}`;
      if (budget.pausedUntilMs > now + 1000) return `rate-limited by the server: waiting until ${formatClock(budget.pausedUntilMs)}`;
      return undefined;
    };
    const progress = {
      total: totalIds,
      unit: 'ids',
      now: ctx.deps.now,
      extra: () => {
        const minutes = (ctx.deps.now() - runStarted) / 60_000;
        return minutes > 0 && requestsDone > 0 ? `${n(Math.round(requestsDone / minutes))} req/min` : '';
      },
      remainingMs: () =>
        budget.finishEstimate(
          chunks.length - requestsDone,
          s.concurrency,
          requestsDone ? requestMsTotal / requestsDone : ASSUMED_REQUEST_MS,
        ),
      waiting,
    };
    if (!ctx.globals.quiet && !ctx.globals.debug) {
      bar = ctx.io.stderr.isTTY
        ? new ProgressBar({ ...progress, stream: ctx.io.stderr })
        : new ProgressLog({ ...progress, stream: ctx.io.stderr, intervalMs: progressLogInterval(ctx.env) });
      bar.update(0);
    }
    budget.onWait = (w) => {
      const ms = w.until - ctx.deps.now();
      if (ms < 10_000) return;
      const line = `${n(w.window.limit)} requests sent within the ${windowName(w.window)}: waiting ${formatDuration(ms)}, until ${formatClock(w.until)} (Ctrl-C stops; --resume continues later)`;
      if (bar) bar.note(line);
      else ctx.info(line);
      if (bar instanceof ProgressBar) bar.refresh();
    };
    const explicitTimeout = ctx.globals.timeout !== undefined || ctx.env.HOGCTL_TIMEOUT !== undefined;
    const describe = (c: Chunk) => `chunk ${c.index} (${n(c.ids.length)} ids)`;
    // Ctrl-C (or SIGTERM) is answered at once; a second one quits without waiting.
    const requestTimeoutMs = explicitTimeout ? ctx.timeoutMs() : BULK_TIMEOUT_MS;
    const onInterrupt = () => {
      const flying = options.inFlight?.() ?? 0;
      note(
        flying > 0
          ? `stopping: waiting for ${flying} ${flying === 1 ? 'request' : 'requests'} in flight, at most ${Math.ceil(requestTimeoutMs / 1000)}s; Ctrl-C again to quit now`
          : 'stopping: no request in flight',
      );
    };
    const options: RunnerOptions = {
      concurrency: s.concurrency,
      perMinute: s.perMinute,
      budget,
      retries: s.retries,
      patienceMs: PATIENCE_MS,
      maxWaitMs: s.maxWaitMs,
      quit: ctx.deps.quit,
      check,
      checked: async (c, r) => {
        await append({ type: 'checked', chunk: c.index, at: new Date(ctx.deps.now()).toISOString(), gone: r.gone, present: r.present });
        if (r.done) {
          idsDone += c.ids.length;
          requestsDone++;
          bar?.update(idsDone);
        }
      },
      clock,
      random: ctx.deps.random ?? Math.random,
      signal: ctx.deps.signal,
      attempt: sender({ client: client!, projectId, kind, flags, timeoutMs: requestTimeoutMs, now: ctx.deps.now }),
      beforeSend: (c) => append({ type: 'sending', chunk: c.index, run, at: new Date(ctx.deps.now()).toISOString(), ids: c.ids }),
      answered: async (c, r) => {
        await append({
          type: 'answered',
          chunk: c.index,
          at: new Date(ctx.deps.now()).toISOString(),
          status: r.status,
          attempts: r.attempts,
          summary: r.summary,
          ...(r.unclear ? { unclear: r.unclear } : {}),
        });
        idsDone += c.ids.length;
        requestsDone++;
        requestMsTotal += r.ms;
        bar?.update(idsDone);
      },
      failed: async (c, r) => {
        await append({
          type: 'failed',
          chunk: c.index,
          at: new Date(ctx.deps.now()).toISOString(),
          attempts: r.attempts,
          status: r.status,
          error: r.error,
          ...(r.unclear ? { unclear: r.unclear } : {}),
        });
        requestsDone++;
        const line = `${describe(c)} failed after ${r.attempts} ${r.attempts === 1 ? 'attempt' : 'attempts'}: ${r.error}`;
        if (bar) bar.note(`warning: ${line}`);
        else ctx.warn(line);
      },
      notice: (message) => (bar ? bar.note(message) : ctx.info(message)),
      retrying: (c, why, ms) => {
        const text = `chunk ${c.index}: ${why}, retrying in ${Math.max(1, Math.round(ms / 1000))} s`;
        if (bar) bar.status(text, ctx.deps.now() + ms);
        else ctx.debug(text);
      },
      attempted: (c, a, attempt, ms) => {
        if (!ctx.globals.debug) return;
        const said =
          a.kind === 'ok'
            ? a.summary
              ? `found ${a.summary.persons_found ?? '?'}, deleted ${a.summary.persons_deleted ?? '?'}${a.summary.persons_queued_for_deletion !== undefined ? `, queued ${a.summary.persons_queued_for_deletion}` : ''}`
              : 'empty answer'
            : a.kind === 'throttled'
              ? `throttled${a.retryAfterMs !== undefined ? `, Retry-After ${Math.ceil(a.retryAfterMs / 1000)}s` : ', no Retry-After'}`
              : typeof a.error === 'string'
                ? a.error
                : a.error.message;
        ctx.debug(`${describe(c)} attempt ${attempt}: ${a.status ?? 'no answer'} in ${ms}ms: ${said}`);
      },
    };
    ctx.deps.signal?.addEventListener('abort', onInterrupt, { once: true });
    if (ctx.deps.quit) ctx.deps.handlesQuit?.();
    try {
      result = await runChunks(chunks, options);
    } finally {
      ctx.deps.signal?.removeEventListener('abort', onInterrupt);
    }
    bar?.finish();
    if (ctx.deps.quit?.aborted)
      ctx.warn('quit: requests still in flight were left without their answers; the next run checks their ids before sending them again');
    await append({ type: 'stopped', run, at: new Date(ctx.deps.now()).toISOString(), reason: result.reason });
  } catch (err) {
    bar?.finish();
    // The journal could not be written (or something unexpected broke): say where things stand.
    await writer.close().catch(() => {});
    const sent = [...journal.chunks.values()].length > 0;
    if (
      !sent &&
      !s.resume &&
      (await stat(journalPath).then(
        (i) => i.size === 0,
        () => false,
      ))
    ) {
      // Not one line could be written: nothing was sent, and an empty journal would only be in
      // the way of the next run.
      await unlink(journalPath).catch(() => {});
    } else {
      ctx.warn(
        `the run stopped early; the journal ${journalPath} records every request sent and every answer received. Continue with:\n  ${resumeCommand(ctx, s, journalPath)}`,
      );
    }
    throw err;
  }
  await writer.close();

  // 6. The receipt, the summary, and the exit code.
  const receipt = await finish(result.reason, journal, result.error?.message);
  const c = receipt.counts;
  const goneNote = c.persons_gone_after_lost_answer
    ? `, ${n(c.persons_gone_after_lost_answer)} of them found gone when checked after a lost answer`
    : '';
  const deletedNote =
    c.persons_deleted === null
      ? `${n(c.sent)} ids sent and acknowledged (the server did not report how many persons it deleted)`
      : `${n(c.persons_deleted)} persons deleted${goneNote}${c.persons_queued_for_deletion ? `, ${n(c.persons_queued_for_deletion)} queued for deletion` : ''} (${n(c.persons_found ?? 0)} found) from ${n(c.sent)} ids sent`;
  if (receipt.unclear_requests) {
    ctx.warn(
      `${n(receipt.unclear_requests.ids)} ids went out in requests that had an attempt without a clear answer (a timeout, a lost connection or a server error) and could not be checked afterwards: persons such an attempt deleted are not counted as deleted or found; the receipt says so`,
    );
  }
  if (receipt.not_reported.length) {
    ctx.warn(
      `the server did not report ${receipt.not_reported.map((r) => `${r.count} (${n(r.chunks)} requests)`).join(', ')}: ${receipt.not_reported[0].why}; the receipt says so`,
    );
  }
  const resume = `continue with:\n  ${resumeCommand(ctx, s, journalPath)}`;
  switch (result.reason) {
    case 'auth':
      throw new AuthError(
        `${result.error!.message}; stopped at once, nothing more was sent (${deletedNote} before that)`,
        `${result.error!.hint ?? 'check the API key'}; then ${resume}`,
      );
    case 'rejected': {
      const e = result.error!;
      const message = `${e.message}; stopped, nothing more was sent (${deletedNote} before that)`;
      const hint = `${e.hint ? `${e.hint}; then ` : ''}${resume}`;
      if (e instanceof ApiError) throw new ApiError(message, e.status, e.server, hint, e.exitCode);
      if (e instanceof NotPostHogApiError) throw new NotPostHogApiError(message, hint);
      throw e instanceof TlsError ? new TlsError(message, hint) : new UsageError(message, hint);
    }
    case 'interrupted':
      throw new CancelledError(
        `interrupted: ${deletedNote}; ${n(c.not_sent + c.failed + c.unconfirmed)} ids not done yet${c.unconfirmed ? ` (${n(c.unconfirmed)} of them sent in requests whose answers were lost: the next run checks them first)` : ''}`,
        resume,
      );
    case 'rate_limited': {
      const until = result.until ?? ctx.deps.now();
      throw new RateLimitedError(
        `the server asks to wait until ${formatClock(until)} (${formatDuration(until - ctx.deps.now())}), longer than --max-wait ${formatDuration(s.maxWaitMs)}; stopped, nothing more was sent (${deletedNote} before that)`,
        `resume then (or pass a longer --max-wait):\n  ${resumeCommand(ctx, s, journalPath)}`,
      );
    }
    default:
      break;
  }
  if (c.failed > 0) {
    throw new PartialFailureError(
      `${n(receipt.failed_chunks.length)} of ${n(chunks.length)} requests failed after retries (${n(c.failed)} ids): ${deletedNote}; the receipt ${receiptPath} lists them`,
      `retry them with:\n  ${resumeCommand(ctx, s, journalPath)}`,
    );
  }
  if ((c.deletion_errors ?? 0) > 0) {
    throw new PartialFailureError(
      `the server reported ${n(c.deletion_errors!)} deletion errors: ${deletedNote}; the receipt ${receiptPath} lists them`,
      'check those persons with `hogctl persons get <uuid>`; their other data may need deleting one by one',
    );
  }
  ctx.info(`✔ ${deletedNote}; receipt: ${receiptPath}`);
}
