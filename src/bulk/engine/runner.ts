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

class Stop extends Error {}

/** `chunks` may be made as they are taken (chunk.ts, lazyChunks): each is taken once. */
export async function runChunks(chunks: Iterable<Chunk> & { readonly length: number }, o: RunnerOptions): Promise<RunResult> {
  const budget = o.budget ?? new RateBudget(o.perMinute, o.clock);
  const queue = chunks[Symbol.iterator]();
  const unsent: number[] = [];
  let answered = 0;
  let failed = 0;
  let stop: { reason: StopReason; error?: CliError; until?: number } | undefined;
  let inFlight = 0;
  // When each request on the wire was sent: a slow one shows in the ETA before it is answered.
  const sentAt = new Set<{ at: number }>();
  let lastProgress = o.clock.now();
  // Aborted on Ctrl-C or when the run must stop, to cut every wait short.
  const halt = new AbortController();
  // Every worker (up to --concurrency) waits on it at once: many listeners, not a leak.
  setMaxListeners(256, halt.signal);
  const onAbort = () => {
    stop ??= { reason: 'interrupted' };
    halt.abort();
  };
  if (o.signal?.aborted) onAbort();
  o.signal?.addEventListener('abort', onAbort, { once: true });

  const wait = async (ms: number) => {
    try {
      await o.clock.sleep(ms, halt.signal);
    } catch {
      throw new Stop();
    }
  };

  async function runOne(chunk: Chunk): Promise<void> {
    let tries = 0;
    let throttles = 0;
    let attempts = 0;
    let unclear = 0;
    let journaled = false;
    // What the next attempt carries: ids a check found gone are left out.
    let ids = chunk.ids;
    /** Checks the ids after a lost answer; true when none is left to send. */
    const settle = async (): Promise<boolean> => {
      if (!o.check || stop) return false;
      let present: Set<string> | null;
      try {
        present = await o.check(ids, chunk.project);
      } catch (err) {
        if (stop) throw new Stop();
        throw err;
      }
      if (present === null) return false;
      const gone = ids.filter((id) => !present.has(id));
      ids = ids.filter((id) => present.has(id));
      // The lost attempts are accounted for now: whatever they deleted is in `gone`.
      unclear = 0;
      const done = ids.length === 0;
      await o.checked?.(chunk, { gone, present: ids.length, done });
      if (done) {
        lastProgress = o.clock.now();
        answered++;
      }
      return done;
    };
    for (;;) {
      let answeredNow: () => void;
      try {
        answeredNow = await budget.take(halt.signal);
      } catch {
        throw new Stop();
      }
      if (stop) {
        answeredNow();
        throw new Stop();
      }
      let result: Attempt;
      const started = o.clock.now();
      // In flight from the moment it is journaled as sending: once that line is written the
      // request goes out, so a Ctrl-C meanwhile must wait for it (and say so).
      inFlight++;
      const flying = { at: started };
      sentAt.add(flying);
      try {
        if (!journaled) {
          await o.beforeSend(chunk);
          journaled = true;
        }
        attempts++;
        result = await o.attempt(ids === chunk.ids ? chunk : { ...chunk, ids });
      } finally {
        inFlight--;
        sentAt.delete(flying);
        // The budget times later requests from this answer (or failure).
        answeredNow();
      }
      // After a second Ctrl-C nothing more is journaled: the run has been written up already.
      if (o.quit?.aborted) throw new Stop();
      const ms = o.clock.now() - started;
      o.attempted?.(chunk, result, attempts, ms);
      if (result.kind === 'retry' && result.unclear) unclear++;

      if (result.kind === 'ok') {
        lastProgress = o.clock.now();
        answered++;
        await o.answered(chunk, { status: result.status, summary: result.summary, attempts, ms, unclear });
        return;
      }
      if (result.kind === 'auth' || result.kind === 'rejected') {
        stop ??= { reason: result.kind, error: result.error };
        halt.abort();
        failed++;
        await o.failed(chunk, { status: result.status, error: result.error.message, attempts, unclear });
        return;
      }
      if (stop && result.kind === 'throttled') {
        // Stopping, and refused by the rate limit: certainly not done. Journaled as such, not
        // left unanswered as if its answer had been lost; --resume sends it again.
        failed++;
        await o.failed(chunk, { status: 429, error: `rate-limited as the run stopped (${result.error})`, attempts, unclear });
        return;
      }
      if (stop) {
        // Interrupted while this attempt was on its way, and its answer unclear or lost: the
        // chunk is left unanswered, for --resume to check before sending it again.
        throw new Stop();
      }
      if (result.kind === 'throttled') {
        const now = o.clock.now();
        const delay = result.retryAfterMs ?? backoffDelay(throttles, THROTTLE_BACKOFF, o.random);
        throttles++;
        if (result.retryAfterMs !== undefined && o.maxWaitMs !== undefined && delay > o.maxWaitMs) {
          stop ??= { reason: 'rate_limited', until: now + delay };
          halt.abort();
          failed++;
          await o.failed(chunk, {
            status: 429,
            error: `rate-limited: the server asked to wait ${Math.ceil(delay / 1000)}s (${result.error})`,
            attempts,
            unclear,
          });
          return;
        }
        if (now + delay - lastProgress > o.patienceMs) {
          failed++;
          const waited = Math.round((now - lastProgress) / 1000);
          await o.failed(chunk, {
            status: 429,
            error: `still rate-limited after ${waited}s without progress (${result.error})`,
            attempts,
            unclear,
          });
          return;
        }
        if (result.retryAfterMs !== undefined) budget.pause(now + delay);
        o.retrying?.(chunk, '429', delay);
        if (delay >= 10_000)
          o.notice?.(
            `rate-limited by the server: waiting ${Math.ceil(delay / 1000)}s before sending more (Ctrl-C stops; --resume continues later)`,
          );
        await wait(delay);
        continue;
      }
      const lost = result.kind === 'retry' && result.unclear === true;
      if (tries >= o.retries) {
        if (lost && (await settle())) return;
        failed++;
        await o.failed(chunk, { status: result.status, error: result.error, attempts, unclear });
        return;
      }
      const delay = backoffDelay(tries, SERVER_BACKOFF, o.random);
      o.retrying?.(chunk, result.status !== null ? String(result.status) : result.error, delay);
      await wait(delay);
      tries++;
      // Checked after the backoff, which gives a slow attempt time to finish on the server.
      if (lost && (await settle())) return;
    }
  }

  async function worker(): Promise<void> {
    for (;;) {
      if (stop) return;
      const next = queue.next();
      if (next.done) return;
      const chunk = next.value;
      try {
        await runOne(chunk);
      } catch (err) {
        unsent.push(chunk.index);
        if (!(err instanceof Stop)) {
          // The journal cannot be written (or worse): nothing more may be sent.
          stop ??= { reason: 'interrupted' };
          halt.abort();
          throw err;
        }
      }
    }
  }

  const workers = Array.from({ length: Math.max(1, Math.min(o.concurrency, chunks.length)) }, () => worker());
  // A second Ctrl-C: stop waiting for the workers; chunks still in flight stay unanswered.
  const quit = new Promise<'quit'>((resolve) => {
    if (o.quit?.aborted) resolve('quit');
    o.quit?.addEventListener('abort', () => resolve('quit'), { once: true });
  });
  o.inFlight = () => inFlight;
  o.oldestInFlight = () => (sentAt.size ? Math.min(...[...sentAt].map((f) => f.at)) : undefined);
  try {
    const settled = await Promise.race([Promise.allSettled(workers), quit]);
    if (settled !== 'quit') {
      const crash = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (crash) throw crash.reason;
    }
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
  }
  for (let rest = queue.next(); !rest.done; rest = queue.next()) unsent.push(rest.value.index);
  unsent.sort((a, b) => a - b);
  const reason: StopReason = stop?.reason ?? (failed > 0 ? 'partial' : 'completed');
  return { reason, error: stop?.error, until: stop?.until, answered, failed, unsent };
}
