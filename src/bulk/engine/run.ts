// The run of a bulk job, once it has been planned and agreed to: every request and every answer
// goes into the journal before anything else happens, ids whose answers were lost in an earlier
// run are checked before they are sent again, and the rate budget counts the earlier runs'
// requests that the server still counts. Ctrl-C (or SIGTERM) stops sending and waits for the
// requests in flight; a second one quits at once. Whatever happens, the journal says what was
// sent and answered, so the run can be continued with --resume.
import { stat, unlink } from 'node:fs/promises';
import type { Context } from '../../context.js';
import { VERSION } from '../../context.js';
import { ensurePrivateDir } from '../../config/paths.js';
import type { BulkAction, Resends } from './action.js';
import type { BoundJournal } from './bind-journal.js';
import { JournalFileError, JournalWriter } from './journal-write.js';
import { JournalState } from './journal-state.js';
import { JOURNAL_FORMAT, type JournalHeaderFields, type JournalRecord } from './journal-format.js';
import { ProgressView } from './progress-view.js';
import { RateBudget, type RateWindow } from './rate.js';
import { runChunks, type RunnerOptions, type RunResult } from './runner.js';
import { resendChunks, type ChunkList } from './chunk.js';
import { IdSet } from '../input/id-set.js';
import { counted } from '../../io/counts.js';
import { NotRecordedError } from '../../errors.js';

/** How long 429s may go on with no chunk getting through before the run gives up on chunks. */
const PATIENCE_MS = 60 * 60 * 1000;

/** What a run is given: the action, the journal, the chunks, and how fast and how patiently to send. */
export interface RunJobOptions {
  action: BulkAction;
  journal: BoundJournal;
  /** The journal's first line, written when the journal is new. */
  header: JournalHeaderFields;
  /** Ids the kind's answers ask to be sent again (a deletion's deletion_errors). */
  resends?: Resends;
  /** Ids a request carries at most (for the ids sent again). */
  chunkSize: number;
  resume: boolean;
  /** What was found in this run before anything is deleted (resolved integer ids, matched
   * identifiers, selected persons, their distinct ids), journaled so that a resume need not
   * look it up again. */
  findings: JournalRecord[];
  /** After the findings are journaled and before the first chunk: reads what the job must have
   * before it deletes (snapshot.ts). */
  beforeChunks?: (journal: JournalState, append: (record: JournalRecord) => Promise<void>) => Promise<void>;
  chunks: ChunkList;
  windows: RateWindow[];
  concurrency: number;
  perMinute: number;
  retries: number;
  maxWaitMs: number;
  requestTimeoutMs: number;
  /** What the ids are, in the progress bar ("ids", "persons"). */
  unit?: string;
  /** The command line that continues the run, for when it stops early. */
  resumeCommand: string;
}

export interface RunOutcome {
  result: RunResult;
  journal: JournalState;
  /** Requests this run was to send, after the lost answers were checked. */
  requests: number;
}

/** Appends a record to the journal file, then to the journal's state. */
type Append = (record: JournalRecord) => Promise<void>;

export async function runJob(ctx: Context, s: RunJobOptions): Promise<RunOutcome> {
  ensurePrivateDir(s.journal.dir);
  const writer = await JournalWriter.open(s.journal.path, s.journal.state ? 'append' : 'create');
  const journal = s.journal.state ?? new JournalState(s.resends?.find, s.journal.list);
  const append: Append = async (record) => {
    await writer.append(record);
    journal.apply(record);
  };
  const run = journal.lastRun + 1;
  let chunks = s.chunks;
  let view: ProgressView | undefined;
  let result: RunResult;
  try {
    chunks = await openRun(ctx, s, journal, append, run);
    const budget = new RateBudget(s.windows, ctx.clock);
    budget.seed(earlierRequests(journal, s.windows, ctx.clock.now()));
    // Set once the runner's options exist: the progress asks them what is in flight.
    let runner: RunnerOptions | undefined;
    const progress = newProgress(ctx, s, chunks, budget, () => runner);
    view = progress;
    budget.onWait = (w) => progress.windowWait(w);
    runner = runnerOptions(ctx, s, budget, progress, journaling(ctx, append, run, progress));
    result = await sendAll(ctx, s, chunks, runner, journal, progress);
    progress.finish();
    if (ctx.deps.quit?.aborted)
      ctx.warn('quit: requests still in flight were left without their answers; the next run checks their ids before sending them again');
    await append({ type: 'stopped', run, at: isoNow(ctx), reason: result.reason });
  } catch (err) {
    view?.finish();
    await writer.close().catch(() => {});
    return await stoppedEarly(ctx, s, journal.chunks.size > 0, err);
  }
  await writer.close();
  return { result, journal, requests: chunks.length };
}

function isoNow(ctx: Context): string {
  return new Date(ctx.clock.now()).toISOString();
}

/** Journals the run's start and what it found, reads what the job must have before it deletes,
 * and checks the ids of lost answers. The chunks to send: without what the checks found gone
 * (they left out what earlier runs answered already). */
async function openRun(ctx: Context, s: RunJobOptions, journal: JournalState, append: Append, run: number): Promise<ChunkList> {
  if (!journal.header) await append({ type: 'header', journal_format: JOURNAL_FORMAT, hogctl: VERSION, ...s.header });
  await append({ type: 'run', run, at: isoNow(ctx), resume: s.resume });
  for (const record of s.findings) await append(record);
  await s.beforeChunks?.(journal, append);
  await s.action.prepare?.(journal);
  const gone = await checkLostAnswers(ctx, s.action, journal, append);
  return gone ? withoutIds(s.chunks, gone) : s.chunks;
}

function newProgress(
  ctx: Context,
  s: RunJobOptions,
  chunks: ChunkList,
  budget: RateBudget,
  runner: () => RunnerOptions | undefined,
): ProgressView {
  return new ProgressView(ctx, {
    action: s.action,
    ids: chunks.ids,
    unit: s.unit,
    requests: chunks.length,
    budget,
    concurrency: s.concurrency,
    requestTimeoutMs: s.requestTimeoutMs,
    inFlight: () => ({ count: runner()?.inFlight?.() ?? 0, oldestAt: runner()?.oldestInFlight?.() }),
  });
}

/** The runner's callbacks that write the journal: each line is written before the progress shows it. */
type JournalingCallbacks = Pick<RunnerOptions, 'checked' | 'beforeSend' | 'answered' | 'failed'>;

function journaling(ctx: Context, append: Append, run: number, progress: ProgressView): JournalingCallbacks {
  const now = () => isoNow(ctx);
  return {
    checked: async (c, r) => {
      await append({ type: 'checked', chunk: c.index, at: now(), gone: r.gone, present: r.present });
      if (r.done) progress.chunkDone(c);
    },
    beforeSend: (c) =>
      append({
        type: 'sending',
        chunk: c.index,
        run,
        at: now(),
        ids: c.ids,
        ...(c.project ? { project: c.project } : {}),
        ...(c.resend ? { resend: true } : {}),
      }),
    answered: async (c, r) => {
      const unclear = r.unclear ? { unclear: r.unclear } : {};
      await append({ type: 'answered', chunk: c.index, at: now(), status: r.status, attempts: r.attempts, summary: r.summary, ...unclear });
      progress.chunkDone(c, r.ms);
    },
    failed: async (c, r) => {
      const unclear = r.unclear ? { unclear: r.unclear } : {};
      await append({ type: 'failed', chunk: c.index, at: now(), attempts: r.attempts, status: r.status, error: r.error, ...unclear });
      progress.chunkFailed(c, r.attempts, r.error);
    },
  };
}

function runnerOptions(
  ctx: Context,
  s: RunJobOptions,
  budget: RateBudget,
  progress: ProgressView,
  journalWrites: JournalingCallbacks,
): RunnerOptions {
  return {
    concurrency: s.concurrency,
    perMinute: s.perMinute,
    budget,
    retries: s.retries,
    patienceMs: PATIENCE_MS,
    maxWaitMs: s.maxWaitMs,
    quit: ctx.deps.quit,
    check: s.action.presence,
    clock: ctx.clock,
    random: ctx.deps.random ?? Math.random,
    signal: ctx.deps.signal,
    // A kind whose chunk takes long (an export's person) says how it goes, above the bar.
    attempt: (c) => s.action.attempt(c, (line) => progress.note(line)),
    ...journalWrites,
    notice: (message) => progress.note(message),
    retrying: (c, why, ms) => progress.retrying(c, why, ms),
    attempted: (c, a, attempt, ms) => progress.attempted(c, a, attempt, ms),
  };
}

/** Sends the chunks, then the ids answers asked to be sent again; Ctrl-C shows in the progress. */
async function sendAll(
  ctx: Context,
  s: RunJobOptions,
  chunks: ChunkList,
  options: RunnerOptions,
  journal: JournalState,
  progress: ProgressView,
): Promise<RunResult> {
  const onInterrupt = () => progress.interrupted(options.inFlight?.() ?? 0);
  ctx.deps.signal?.addEventListener('abort', onInterrupt, { once: true });
  if (ctx.deps.quit) ctx.deps.handlesQuit?.();
  try {
    let result = await runChunks(chunks, options);
    // Ids an answer asked to be sent again (persons the server found but could not delete,
    // deletion_errors) go again at once, under the same budget: at most --retries rounds; what
    // is left then, --resume sends.
    for (let round = 0; s.resends && round < s.retries && (result.reason === 'completed' || result.reason === 'partial'); round++) {
      const again = resendChunks(journal.toSendAgain(), s.chunkSize, journal.maxChunk + 1);
      if (again.length === 0) break;
      progress.note(s.resends.note(again.reduce((k, c) => k + c.ids.length, 0)));
      result = mergeResults(result, await runChunks(again, options));
    }
    return result;
  } finally {
    ctx.deps.signal?.removeEventListener('abort', onInterrupt);
  }
}

/** The journal could not be written (or something unexpected broke): says where things stand
 * and throws `err` on (or what it means for the journal). `sent`: the journal has requests. */
async function stoppedEarly(ctx: Context, s: RunJobOptions, sent: boolean, err: unknown): Promise<never> {
  const empty = await stat(s.journal.path).then(
    (i) => i.size === 0,
    () => false,
  );
  // Not one line could be written: nothing was sent, and an empty journal would only be in
  // the way of the next run.
  if (!sent && !s.resume && empty) await unlink(s.journal.path).catch(() => {});
  // A journal that failed after requests went out: exit 2 would say nothing was sent.
  else if (err instanceof JournalFileError) throw journalLost(err, s.resumeCommand);
  else
    ctx.warn(
      `the run stopped early; the journal ${s.journal.path} records every request sent and every answer received. Continue with:\n  ${s.resumeCommand}`,
    );
  throw err;
}

/** The journal stopped taking lines after requests had gone out (a full disk): what was sent was
 * done, or may have been, and the journal may lack the answers of the last requests. */
export function journalLost(err: JournalFileError, resume: string): NotRecordedError {
  return new NotRecordedError(
    `${err.message}, after requests were sent: the journal holds every request sent, but may lack the answers of the last ones, and no receipt was written`,
    `${err.hint}; the next run (${resume}) checks with the server the ids whose answers the journal lacks before sending them again, then writes the receipt`,
  );
}

/**
 * Ids sent in an earlier run whose answers were lost: asks the action which of them still need
 * it, journals the answer, and says what it found. The ids it found gone, when it checked any.
 * Requests it could not check are journaled as failed with a lost answer, as the runner journals
 * one within a run: their ids go out again, and the receipt says that they may have done the work
 * the later answers do not count (unclear_requests); the next run tries to check them again.
 */
async function checkLostAnswers(ctx: Context, action: BulkAction, journal: JournalState, append: (r: JournalRecord) => Promise<void>) {
  const check = action.presence;
  const lost = check ? journal.lostAnswerIds() : [];
  if (!check || lost.length === 0) return undefined;
  const count = lost.reduce((k, l) => k + l.ids.length, 0);
  ctx.info(`checking ${counted(count, 'id')} sent in ${counted(lost.length, 'request')} of an earlier run whose answers were lost…`);
  const gone = new IdSet();
  let checked = 0;
  for (const l of lost) {
    const present = await check(l.ids, l.project);
    if (present === null) break;
    const chunkGone = l.ids.filter((id) => !present.has(id));
    for (const id of chunkGone) gone.add(id);
    await append({
      type: 'checked',
      chunk: l.chunk,
      at: isoNow(ctx),
      gone: chunkGone,
      present: l.ids.length - chunkGone.length,
    });
    checked++;
  }
  if (checked < lost.length) await journalUnchecked(ctx, journal, append, lost.slice(checked));
  if (checked === 0) return undefined;
  ctx.info(action.checkedLost(gone.size));
  return gone;
}

/** Journals each request of an earlier run whose answer was lost and that could not be checked as
 * a failure (keeping a failure it had, and its attempts) with at least one unclear attempt. */
async function journalUnchecked(ctx: Context, journal: JournalState, append: Append, unchecked: { chunk: number; ids: string[] }[]) {
  for (const { chunk } of unchecked) {
    const failure = journal.chunks.get(chunk)?.failure;
    await append({
      type: 'failed',
      chunk,
      at: isoNow(ctx),
      attempts: failure?.attempts ?? 1,
      status: failure?.status ?? null,
      error: failure?.error ?? 'its answer was lost when an earlier run stopped, and its ids could not be checked afterwards',
      unclear: Math.max(1, failure?.unclear ?? 0),
    });
  }
  const ids = counted(
    unchecked.reduce((k, u) => k + u.ids.length, 0),
    'id',
  );
  const requests = unchecked.length === 1 ? 'request' : 'requests';
  ctx.info(`${ids} could not be checked: they are sent again, and the receipt names their earlier ${requests} as unclear`);
}

/** The chunks without these ids (and without those left empty), made as they are taken. */
function withoutIds(chunks: ChunkList, ids: IdSet): ChunkList {
  const kept = function* () {
    for (const c of chunks) {
      const left = c.ids.filter((id) => !ids.has(id));
      if (left.length) yield left.length === c.ids.length ? c : { ...c, ids: left };
    }
  };
  let length = 0;
  let count = 0;
  for (const c of kept()) {
    length++;
    count += c.ids.length;
  }
  return { length, ids: count, [Symbol.iterator]: kept };
}

/** A run followed by a round of resends, as one. */
function mergeResults(first: RunResult, then: RunResult): RunResult {
  return {
    ...then,
    reason: then.reason === 'completed' ? first.reason : then.reason,
    answered: first.answered + then.answered,
    failed: first.failed + then.failed,
    unsent: [...first.unsent, ...then.unsent],
  };
}

/** Requests of earlier runs the server still counts in its windows: one per attempt, at its answer. */
function earlierRequests(journal: JournalState, windows: RateWindow[], now: number): number[] {
  const longest = Math.max(...windows.map((w) => w.windowMs));
  const earlier: number[] = [];
  for (const c of journal.chunks.values()) {
    const last = c.answer ?? c.failure;
    const at = Date.parse(last?.at ?? c.sentAt);
    if (now - at < longest) for (let i = 0; i < Math.max(1, last?.attempts ?? 1); i++) earlier.push(at);
  }
  return earlier;
}
