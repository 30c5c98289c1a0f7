// What a bulk run shows while it runs, on stderr: a bar redrawn in place on a terminal, a line
// every few seconds off one (none with --quiet or --debug), and notes above it: which rate window
// or server wait it is waiting for and until when, retries and why, failed chunks, and the answer
// to Ctrl-C. The run (run.ts) only reports events; the words are all here.
import type { Context } from '../../context.js';
import { formatClock, formatDuration, ProgressBar, ProgressLog, progressLogInterval } from '../../io/progress.js';
import type { BulkAction } from './action.js';
import { ASSUMED_REQUEST_MS } from './plan.js';
import { windowName, type RateBudget, type WindowWait } from './rate.js';
import type { Attempt, Chunk } from './runner.js';
import { counted, formatNumber } from '../../io/counts.js';
import { quitAgainHint } from '../../cli/stop-signal.js';

export interface ProgressViewSettings {
  action: BulkAction;
  /** Ids this run is to send, and in how many requests. */
  ids: number;
  /** What the ids are, in the bar: "ids", "persons". */
  unit?: string;
  requests: number;
  budget: RateBudget;
  concurrency: number;
  /** How long a request may take before Ctrl-C stops waiting for it. */
  requestTimeoutMs: number;
  /** The requests on the wire now, and when the oldest of them was sent (from the runner). */
  inFlight: () => { count: number; oldestAt?: number };
}

/** How often the bar is redrawn while nothing is answered. */
const TICK_MS = 1000;

export class ProgressView {
  private readonly bar?: ProgressBar | ProgressLog;
  private readonly started: number;
  private idsDone = 0;
  private requestsDone = 0;
  private requestMsTotal = 0;

  constructor(
    private readonly ctx: Context,
    private readonly s: ProgressViewSettings,
  ) {
    this.started = ctx.clock.now();
    if (ctx.globals.quiet || ctx.globals.debug) return;
    const progress = {
      total: s.ids,
      unit: s.unit ?? 'ids',
      now: ctx.clock.now,
      extra: () => {
        const minutes = (ctx.clock.now() - this.started) / 60_000;
        const rate = minutes > 0 && this.requestsDone > 0 ? `${formatNumber(Math.round(this.requestsDone / minutes))} req/min` : '';
        const flying = s.inFlight().count;
        return [rate, flying > 0 ? `${flying} in flight` : ''].filter(Boolean).join(' · ');
      },
      remainingMs: () => s.budget.finishEstimate(s.requests - this.requestsDone, s.concurrency, this.requestMs()),
      remainingIsFloor: () => this.requestsDone === 0 && this.requestMs() > ASSUMED_REQUEST_MS,
      waiting: () => this.waiting(),
      tickMs: TICK_MS,
    };
    if (ctx.io.stderr.isTTY) {
      this.bar = new ProgressBar({ ...progress, stream: ctx.io.stderr });
      ctx.drawingProgress(this.bar);
    } else {
      this.bar = new ProgressLog({ ...progress, sleep: ctx.clock.sleep, stream: ctx.io.stderr, intervalMs: progressLogInterval(ctx.env) });
    }
    this.bar.update(0);
  }

  /**
   * The time a request takes, for the ETA: the plan's guess until answers come, then their mean;
   * never less than the age of the oldest request still out, so that slow requests in flight
   * raise the ETA before the first of them is answered.
   */
  private requestMs(): number {
    const measured = this.requestsDone ? this.requestMsTotal / this.requestsDone : ASSUMED_REQUEST_MS;
    const oldest = this.s.inFlight().oldestAt;
    return Math.max(measured, oldest === undefined ? 0 : this.ctx.clock.now() - oldest);
  }

  /** A line above the bar (or on its own without one). */
  note(line: string): void {
    if (this.bar) this.bar.note(line);
    else this.ctx.info(line);
  }

  /** A chunk is done (answered, or its ids found gone): `ms` is its request's time, if sent. */
  chunkDone(chunk: Chunk, ms?: number): void {
    this.idsDone += chunk.ids.length;
    this.requestsDone++;
    if (ms !== undefined) this.requestMsTotal += ms;
    this.bar?.update(this.idsDone);
  }

  chunkFailed(chunk: Chunk, attempts: number, error: string): void {
    this.requestsDone++;
    const line = `${describe(chunk)} failed after ${counted(attempts, 'attempt')}: ${error}`;
    if (this.bar) this.bar.note(`warning: ${line}`);
    else this.ctx.warn(line);
  }

  retrying(chunk: Chunk, why: string, ms: number): void {
    const text = `chunk ${chunk.index}: ${why}, retrying in ${Math.max(1, Math.round(ms / 1000))} s`;
    if (this.bar) this.bar.status(text, this.ctx.clock.now() + ms);
    else this.ctx.debug(text);
  }

  /** The budget waits for a window: say so when the wait is long enough to wonder about. */
  windowWait(w: WindowWait): void {
    const ms = w.until - this.ctx.clock.now();
    if (ms < 10_000) return;
    this.note(
      `${formatNumber(w.window.limit)} requests sent within the ${windowName(w.window)}: waiting ${formatDuration(ms)}, until ${formatClock(w.until)} (Ctrl-C stops; --resume continues later)`,
    );
    if (this.bar instanceof ProgressBar) this.bar.refresh();
  }

  /** The answer to the first Ctrl-C (or SIGTERM). */
  interrupted(inFlight: number): void {
    this.note(
      inFlight > 0
        ? `stopping: waiting for ${counted(inFlight, 'request')} in flight, at most ${Math.ceil(this.s.requestTimeoutMs / 1000)}s; ${quitAgainHint(this.ctx.deps.signal)}`
        : 'stopping: no request in flight',
    );
  }

  /** Under --debug, a line for every attempt. */
  attempted(chunk: Chunk, a: Attempt, attempt: number, ms: number): void {
    if (!this.ctx.globals.debug) return;
    const said =
      a.kind === 'ok'
        ? this.s.action.describeAnswer(a)
        : a.kind === 'throttled'
          ? `throttled${a.retryAfterMs !== undefined ? `, Retry-After ${Math.ceil(a.retryAfterMs / 1000)}s` : ', no Retry-After'}`
          : typeof a.error === 'string'
            ? a.error
            : a.error.message;
    this.ctx.debug(`${describe(chunk)} attempt ${attempt}: ${a.status ?? 'no answer'} in ${ms}ms: ${said}`);
  }

  finish(): void {
    this.bar?.finish();
    this.ctx.drawingProgress(undefined);
  }

  /** What the run waits for: a window of the budget, or the server's Retry-After. */
  private waiting(): string | undefined {
    const now = this.ctx.clock.now();
    const w = this.s.budget.waiting;
    if (w) return `waiting for the ${windowName(w.window)} until ${formatClock(w.until)}`;
    if (this.s.budget.pausedUntilMs > now + 1000)
      return `rate-limited by the server: waiting until ${formatClock(this.s.budget.pausedUntilMs)}`;
    return undefined;
  }
}

function describe(c: Chunk): string {
  return `chunk ${c.index} (${counted(c.ids.length, 'id')})`;
}
