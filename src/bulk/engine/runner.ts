// Sends chunks with up to `concurrency` requests in flight, inside the client-side rate budget,
// and keeps trying until each chunk is answered, it fails for good, or the run must stop.
//
//   2xx              answered; the journal gets the summary the kind read from it (or null)
//   429              refused before any work: wait for Retry-After (every worker, the budget is
//                    the key's) or back off with jitter; these waits do not use up --retries but
//                    stop once nothing has succeeded for `patienceMs`. A Retry-After longer than
//                    `maxWaitMs` stops the whole run at once: waiting would outlast the run, and
//                    sending the other chunks would only collect more 429s
//   5xx, network,    retried with jittered backoff up to `retries` times (re-sending a chunk is
//   timeout, 408     harmless: unknown ids are ignored), then the chunk is failed
//   401, 403         stop at once: nothing more is sent (in-flight requests still finish)
//   other 4xx        stop: every other chunk would be refused the same way
//
// After an attempt whose answer was lost (`unclear`), the chunk's ids are checked before they go
// out again (`check`, lost-answers.ts): ids gone are journaled as such and not sent again.
//
// Ctrl-C (the signal) stops handing out chunks and cuts waits short; requests already on the
// wire finish and are journaled, because their answer is the only way to know what was deleted.
// A second one (`quit`) stops waiting for them: their chunks are left unanswered in the journal,
// and the next run checks their ids.
import { setMaxListeners } from 'node:events';
import type { CliError } from '../../errors.js';
import { backoffDelay, type RetryPolicy } from '../../http/retry.js';
import type { StopReason } from './journal-format.js';
import { RateBudget, type Clock } from './rate.js';

export interface Chunk {
  index: number;
  ids: string[];
  /** The project the ids belong to; absent: the job's only project. */
  project?: string;
  /** Ids an earlier answer asked to be sent again (a deletion's deletion_errors). */
  resend?: boolean;
}

/** The outcome of one attempt, as the kind's action classifies the answer. `summary`: what the
 * answer said, as the kind reads it (bulk_delete's counts), journaled as it is; null: nothing. */
export type Attempt =
  | { kind: 'ok'; status: number; summary: unknown }
  | { kind: 'throttled'; status: 429; retryAfterMs?: number; error: string }
  /** unclear: the attempt may have been carried out (a timeout, a lost answer, a server error). */
  | { kind: 'retry'; status: number | null; error: string; unclear?: boolean }
  | { kind: 'auth'; status: number; error: CliError }
  | { kind: 'rejected'; status: number; error: CliError };

export interface RunnerOptions {
  concurrency: number;
  perMinute: number;
  /** The rate budget to use (its windows win over perMinute), e.g. one the progress display watches. */
  budget?: RateBudget;
  /** Retries per chunk for 5xx, dropped connections and timeouts. */
  retries: number;
  /** How long 429s may go on without any chunk succeeding before chunks are failed. */
  patienceMs: number;
  /** The longest Retry-After the run waits out; a longer one stops the run. */
  maxWaitMs?: number;
  /** Which of these ids (of the chunk's project) still need the action (null: cannot tell); asked after a lost answer. */
  check?(ids: string[], project?: string): Promise<Set<string> | null>;
  /** Awaited after a check: `gone` are done; `done` when no id of the chunk is left to send. */
  checked?(chunk: Chunk, result: { gone: string[]; present: number; done: boolean }): Promise<void>;
  /** Aborted on a second Ctrl-C: stop waiting for requests in flight. */
  quit?: AbortSignal;
  clock: Clock;
  random: () => number;
  signal?: AbortSignal;
  attempt(chunk: Chunk): Promise<Attempt>;
  /** Awaited before the first attempt: the chunk is journaled as being sent. */
  beforeSend(chunk: Chunk): Promise<void>;
  /** Awaited after the final answer of a chunk. */
  /** `unclear`: how many attempts of the chunk may have deleted persons without saying so. */
  answered(chunk: Chunk, result: { status: number; summary: unknown; attempts: number; ms: number; unclear: number }): Promise<void>;
  failed(chunk: Chunk, result: { status: number | null; error: string; attempts: number; unclear: number }): Promise<void>;
  /** A chunk is about to wait `delayMs` before its next attempt; `why` is the status or error. */
  retrying?(chunk: Chunk, why: string, delayMs: number): void;
  /** A note for the user (long waits); not journaled. */
  notice?(message: string): void;
  /** Set by the runner: how many requests are on the wire now (for the Ctrl-C message). */
  inFlight?: () => number;
  /** Set by the runner: when the oldest request on the wire was sent (for the progress's ETA). */
  oldestInFlight?: () => number | undefined;
  /** Every attempt's outcome, for --debug. */
  attempted?(chunk: Chunk, attempt: Attempt, n: number, ms: number): void;
}

export interface RunResult {
  reason: StopReason;
  /** The 401/403 or other 4xx that stopped the run. */
  error?: CliError;
  /** reason 'rate_limited': when the server said it would take requests again. */
  until?: number;
  answered: number;
  failed: number;
  /** Chunks never sent (stopped before) or given up mid-wait (interrupted). */
  /** The indexes of the chunks left unsent or unfinished (their ids are in the journal's
   * sources, not kept here). */
  unsent: number[];
}

/** Backoff for 5xx and network failures: 1 s doubling to 30 s, with jitter. */
export const SERVER_BACKOFF: RetryPolicy = { maxRetries: 0, baseDelayMs: 1000, maxDelayMs: 30_000, maxRetryAfterMs: Infinity };
/** Backoff for a 429 without Retry-After. */
export const THROTTLE_BACKOFF: RetryPolicy = { maxRetries: 0, baseDelayMs: 1000, maxDelayMs: 60_000, maxRetryAfterMs: Infinity };

/** Thrown out of a chunk's attempts when the run stops with the chunk unfinished. */
class Stop extends Error {}

type StopInfo = { reason: StopReason; error?: CliError; until?: number };

/** What the workers share: the counts, why the run stops, and what is on the wire. */
interface RunState {
  o: RunnerOptions;
  budget: RateBudget;
  /** Aborted on Ctrl-C or when the run must stop, to cut every wait short. */
  halt: AbortController;
  stop?: StopInfo;
  answered: number;
  failed: number;
  unsent: number[];
  inFlight: number;
  /** When each request on the wire was sent: a slow one shows in the ETA before it is answered. */
  sentAt: Set<{ at: number }>;
  /** When a chunk last succeeded: 429s stop being waited out `patienceMs` after it. */
  lastProgress: number;
}

/** One chunk's way through its attempts. */
interface ChunkTries {
  chunk: Chunk;
  /** What the next attempt carries: ids a check found gone are left out. */
  ids: string[];
  /** Retries used (5xx, network, timeouts); 429s are counted apart in `throttles`. */
  tries: number;
  throttles: number;
  attempts: number;
  /** Attempts whose answer was lost since the last check. */
  unclear: number;
  journaled: boolean;
}

/** `chunks` may be made as they are taken (chunk.ts, lazyChunks): each is taken once. */
export async function runChunks(chunks: Iterable<Chunk> & { readonly length: number }, o: RunnerOptions): Promise<RunResult> {
  const run = newRun(o);
  const onAbort = () => stopRun(run, { reason: 'interrupted' });
  if (o.signal?.aborted) onAbort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const queue = chunks[Symbol.iterator]();
  const workers = Array.from({ length: Math.max(1, Math.min(o.concurrency, chunks.length)) }, () => worker(run, queue));
  o.inFlight = () => run.inFlight;
  o.oldestInFlight = () => (run.sentAt.size ? Math.min(...[...run.sentAt].map((f) => f.at)) : undefined);
  try {
    await untilWorkersEnd(workers, o.quit);
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
  }
  for (let rest = queue.next(); !rest.done; rest = queue.next()) run.unsent.push(rest.value.index);
  run.unsent.sort((a, b) => a - b);
  const reason: StopReason = run.stop?.reason ?? (run.failed > 0 ? 'partial' : 'completed');
  return { reason, error: run.stop?.error, until: run.stop?.until, answered: run.answered, failed: run.failed, unsent: run.unsent };
}

function newRun(o: RunnerOptions): RunState {
  const halt = new AbortController();
  // Every worker (up to --concurrency) waits on it at once: many listeners, not a leak.
  setMaxListeners(256, halt.signal);
  return {
    o,
    budget: o.budget ?? new RateBudget(o.perMinute, o.clock),
    halt,
    answered: 0,
    failed: 0,
    unsent: [],
    inFlight: 0,
    sentAt: new Set(),
    lastProgress: o.clock.now(),
  };
}

/** The first reason to stop wins; every wait is cut short. */
function stopRun(run: RunState, why: StopInfo): void {
  run.stop ??= why;
  run.halt.abort();
}

/** Waits for every worker, or only until a second Ctrl-C (`quit`): chunks still in flight then
 * stay unanswered. A worker's crash (the journal cannot be written) is thrown on. */
async function untilWorkersEnd(workers: Promise<void>[], quitSignal: AbortSignal | undefined): Promise<void> {
  const quit = new Promise<'quit'>((resolve) => {
    if (quitSignal?.aborted) resolve('quit');
    quitSignal?.addEventListener('abort', () => resolve('quit'), { once: true });
  });
  const settled = await Promise.race([Promise.allSettled(workers), quit]);
  if (settled === 'quit') return;
  const crash = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (crash) throw crash.reason;
}

/** Takes chunks one at a time until none is left or the run stops. */
async function worker(run: RunState, queue: Iterator<Chunk>): Promise<void> {
  for (;;) {
    if (run.stop) return;
    const next = queue.next();
    if (next.done) return;
    const chunk = next.value;
    try {
      await runOne(run, chunk);
    } catch (err) {
      run.unsent.push(chunk.index);
      if (!(err instanceof Stop)) {
        // The journal cannot be written (or worse): nothing more may be sent.
        stopRun(run, { reason: 'interrupted' });
        throw err;
      }
    }
  }
}

/** Sends one chunk until it is answered or failed for good; throws Stop when left unfinished. */
async function runOne(run: RunState, chunk: Chunk): Promise<void> {
  const c: ChunkTries = { chunk, ids: chunk.ids, tries: 0, throttles: 0, attempts: 0, unclear: 0, journaled: false };
  for (;;) {
    const { result, ms } = await attemptOnce(run, c);
    if (result.kind === 'ok') return recordAnswer(run, c, result, ms);
    if (result.kind === 'auth' || result.kind === 'rejected') {
      stopRun(run, { reason: result.kind, error: result.error });
      return recordFailure(run, c, result.status, result.error.message);
    }
    if (run.stop) return leaveAsStopping(run, c, result);
    if (result.kind === 'throttled') {
      if (await waitOutThrottle(run, c, result)) return;
      continue;
    }
    if (await retryAfterBackoff(run, c, result)) return;
  }
}

/** Sends the chunk once, inside the rate budget, and says what came back and how long it took. */
async function attemptOnce(run: RunState, c: ChunkTries): Promise<{ result: Attempt; ms: number }> {
  const { o } = run;
  const answeredNow = await takeTurn(run);
  let result: Attempt;
  const started = o.clock.now();
  // In flight from the moment it is journaled as sending: once that line is written the
  // request goes out, so a Ctrl-C meanwhile must wait for it (and say so).
  run.inFlight++;
  const flying = { at: started };
  run.sentAt.add(flying);
  try {
    if (!c.journaled) {
      await o.beforeSend(c.chunk);
      c.journaled = true;
    }
    c.attempts++;
    result = await o.attempt(c.ids === c.chunk.ids ? c.chunk : { ...c.chunk, ids: c.ids });
  } finally {
    run.inFlight--;
    run.sentAt.delete(flying);
    // The budget times later requests from this answer (or failure).
    answeredNow();
  }
  // After a second Ctrl-C nothing more is journaled: the run has been written up already.
  if (o.quit?.aborted) throw new Stop();
  const ms = o.clock.now() - started;
  o.attempted?.(c.chunk, result, c.attempts, ms);
  if (result.kind === 'retry' && result.unclear) c.unclear++;
  return { result, ms };
}

/** Waits for the rate budget to allow one more request; returns the call that says it was answered. */
async function takeTurn(run: RunState): Promise<() => void> {
  let answeredNow: () => void;
  try {
    answeredNow = await run.budget.take(run.halt.signal);
  } catch {
    throw new Stop();
  }
  if (run.stop) {
    answeredNow();
    throw new Stop();
  }
  return answeredNow;
}

async function recordAnswer(run: RunState, c: ChunkTries, result: { status: number; summary: unknown }, ms: number): Promise<void> {
  countProgress(run);
  await run.o.answered(c.chunk, { status: result.status, summary: result.summary, attempts: c.attempts, ms, unclear: c.unclear });
}

async function recordFailure(run: RunState, c: ChunkTries, status: number | null, error: string): Promise<void> {
  run.failed++;
  await run.o.failed(c.chunk, { status, error, attempts: c.attempts, unclear: c.unclear });
}

/** A chunk is done: 429s are waited out `patienceMs` from now. */
function countProgress(run: RunState): void {
  run.lastProgress = run.o.clock.now();
  run.answered++;
}

/** The run is stopping and this attempt did not get the chunk done. */
async function leaveAsStopping(run: RunState, c: ChunkTries, result: Attempt): Promise<void> {
  if (result.kind === 'throttled') {
    // Refused by the rate limit: certainly not done. Journaled as such, not left unanswered as
    // if its answer had been lost; --resume sends it again.
    return recordFailure(run, c, 429, `rate-limited as the run stopped (${result.error})`);
  }
  // Interrupted while this attempt was on its way, and its answer unclear or lost: the chunk is
  // left unanswered, for --resume to check before sending it again.
  throw new Stop();
}

/** A 429: waits as asked (or backs off) and says false, or fails the chunk and says true when
 * the wait would outlast the run (`maxWaitMs`) or `patienceMs` without progress. */
async function waitOutThrottle(run: RunState, c: ChunkTries, result: Extract<Attempt, { kind: 'throttled' }>): Promise<boolean> {
  const { o } = run;
  const now = o.clock.now();
  const delay = result.retryAfterMs ?? backoffDelay(c.throttles, THROTTLE_BACKOFF, o.random);
  c.throttles++;
  if (result.retryAfterMs !== undefined && o.maxWaitMs !== undefined && delay > o.maxWaitMs) {
    stopRun(run, { reason: 'rate_limited', until: now + delay });
    const error = `rate-limited: the server asked to wait ${Math.ceil(delay / 1000)}s (${result.error})`;
    await recordFailure(run, c, 429, error);
    return true;
  }
  if (now + delay - run.lastProgress > o.patienceMs) {
    const waited = Math.round((now - run.lastProgress) / 1000);
    await recordFailure(run, c, 429, `still rate-limited after ${waited}s without progress (${result.error})`);
    return true;
  }
  // A Retry-After is the key's: every worker waits it out.
  if (result.retryAfterMs !== undefined) run.budget.pause(now + delay);
  o.retrying?.(c.chunk, '429', delay);
  if (delay >= 10_000)
    o.notice?.(
      `rate-limited by the server: waiting ${Math.ceil(delay / 1000)}s before sending more (Ctrl-C stops; --resume continues later)`,
    );
  await wait(run, delay);
  return false;
}

/** A 5xx, timeout or lost answer: backs off and says false, or fails the chunk once `retries`
 * are used up. True when the chunk is finished (failed, or a check found it done). */
async function retryAfterBackoff(run: RunState, c: ChunkTries, result: Extract<Attempt, { kind: 'retry' }>): Promise<boolean> {
  const { o } = run;
  const lost = result.unclear === true;
  if (c.tries >= o.retries) {
    if (lost && (await settle(run, c))) return true;
    await recordFailure(run, c, result.status, result.error);
    return true;
  }
  const delay = backoffDelay(c.tries, SERVER_BACKOFF, o.random);
  o.retrying?.(c.chunk, result.status !== null ? String(result.status) : result.error, delay);
  await wait(run, delay);
  c.tries++;
  // Checked after the backoff, which gives a slow attempt time to finish on the server.
  return lost && (await settle(run, c));
}

/** Checks the ids after a lost answer; true when none is left to send. */
async function settle(run: RunState, c: ChunkTries): Promise<boolean> {
  const { o } = run;
  if (!o.check || run.stop) return false;
  let present: Set<string> | null;
  try {
    present = await o.check(c.ids, c.chunk.project);
  } catch (err) {
    if (run.stop) throw new Stop();
    throw err;
  }
  if (present === null) return false;
  const gone = c.ids.filter((id) => !present.has(id));
  c.ids = c.ids.filter((id) => present.has(id));
  // The lost attempts are accounted for now: whatever they deleted is in `gone`.
  c.unclear = 0;
  const done = c.ids.length === 0;
  await o.checked?.(c.chunk, { gone, present: c.ids.length, done });
  if (done) countProgress(run);
  return done;
}

/** Sleeps, unless the run stops meanwhile. */
async function wait(run: RunState, ms: number): Promise<void> {
  try {
    await run.o.clock.sleep(ms, run.halt.signal);
  } catch {
    throw new Stop();
  }
}
