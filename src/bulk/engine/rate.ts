// The client-side request budget. PostHog counts requests per key in sliding windows (DRF's
// SimpleRateThrottle keeps each request's time and refuses once `limit` fall within the last
// `duration`), and deletes have two: PersonsDeleteBurstThrottle 480/minute and
// PersonsDeleteSustainedThrottle 4800/hour (PostHog/posthog posthog/api/person.py, on top of
// PersonalApiKeyRateThrottle in posthog/rate_limit.py). So the budget:
//   - spaces requests evenly at the shortest window's rate. A budget may allow a small burst
//     first (`burst` requests back to back, as a generic cell-rate algorithm does: the credit
//     comes back only while the budget is idle), which spares a short phase of reads, 50 lookups
//     say, the even spacing; it never lets more than `limit` into a window, by the next rule;
//   - for every window, starts request k+limit only once request k has been answered and a whole
//     window has passed since: the server saw request k no later than its answer, so by then it
//     has left the server's window too, and no 429 is ever provoked, whatever the latency;
//   - pauses every worker on a 429's Retry-After, since the budget belongs to the API key.
// DRF's wait() is the time until the oldest request leaves the window divided by the requests
// still available, and PostHog's Retry-After is that rounded up (docs/server-contract.md §5); when the
// hourly window is spent it approaches 50 minutes, which the budget knows without asking.
import { formatNumber } from '../../io/counts.js';

import type { Clock } from '../../sleep.js';

export type { Clock };

/** At most `limit` requests in any `windowMs`. */
export interface RateWindow {
  limit: number;
  windowMs: number;
}

/**
 * One request within the budget: waits for a token, sends, and gives the token back when the
 * answer (or failure) is in, which times the next request. A wait cut short by the signal throws
 * `cancelled()` when given (what was and was not done by then), else the abort itself.
 */
export async function withinBudget<T>(
  budget: RateBudget,
  signal: AbortSignal | undefined,
  send: () => Promise<T>,
  cancelled?: () => Error,
): Promise<T> {
  let release: () => void;
  try {
    release = await budget.take(signal);
  } catch (err) {
    throw cancelled ? cancelled() : err;
  }
  try {
    return await send();
  } finally {
    release();
  }
}

/**
 * The burst of the job's reads (lookups, snapshots, the verification): a quarter of a minute's
 * reads. PostHog counts reads in a minute window and an hour window (docs/server-contract.md §5),
 * never their spacing, so a short phase of reads (the 50 lookups of 10,000 addresses) may go at
 * once; a long one still runs at the rate.
 */
export function readBurst(perMinute: number): number {
  return Math.max(1, Math.floor(perMinute / 4));
}

/** Resolves with `promise`, or rejects when `signal` aborts first. */
function untilOrAbort(promise: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

interface Sent {
  start: number;
  /** When the answer came; null while the request is on its way. */
  end: number | null;
  answered: Promise<void>;
  release: () => void;
}

/** A wait on a window longer than the spacing, for the progress display. */
export interface WindowWait {
  window: RateWindow;
  until: number;
}

export class RateBudget {
  private next = 0;
  private pausedUntil = 0;
  /** The most recent requests, oldest first; as many as the largest window counts. */
  private sent: Sent[] = [];
  private waitingOn: WindowWait | undefined;
  readonly windows: readonly RateWindow[];
  readonly intervalMs: number;
  /** Called when a window (not the even spacing) makes the budget wait. */
  onWait?: (wait: WindowWait) => void;

  /** `rate`: requests per minute (one window), or the windows. `burst`: how many requests an idle
   * budget lets start back to back before the spacing holds (1: none). */
  constructor(
    rate: number | readonly RateWindow[],
    private readonly clock: Clock,
    private readonly burst = 1,
  ) {
    this.windows = typeof rate === 'number' ? [{ limit: rate, windowMs: 60_000 }] : [...rate].sort((a, b) => a.windowMs - b.windowMs);
    if (this.windows.length === 0) throw new RangeError('a rate budget needs at least one window');
    this.intervalMs = this.windows[0].windowMs / this.windows[0].limit;
  }

  /**
   * Waits until a request may start, and counts it. Call the returned function when its answer
   * (any answer, or none) has come: later requests are timed from it.
   */
  async take(signal?: AbortSignal): Promise<() => void> {
    for (;;) {
      const now = this.clock.now();
      // `next` is when the spacing alone would start the next request; an idle budget has the
      // credit of `burst - 1` spacings before it.
      let slot = Math.max(now, this.next - (this.burst - 1) * this.intervalMs, this.pausedUntil);
      let binding: RateWindow | undefined;
      let onTheWay: Sent | undefined;
      for (const w of this.windows) {
        if (this.sent.length < w.limit) continue;
        const kth = this.sent[this.sent.length - w.limit];
        if (kth.end === null) {
          onTheWay = kth;
          break;
        }
        if (kth.end + w.windowMs > slot) {
          slot = kth.end + w.windowMs;
          binding = w;
        }
      }
      if (onTheWay) {
        // The window is full until that request is answered: only then is its time known.
        await untilOrAbort(onTheWay.answered, signal);
        continue;
      }
      if (slot > now) {
        if (binding && binding !== this.windows[0] && this.waitingOn?.until !== slot) {
          this.waitingOn = { window: binding, until: slot };
          this.onWait?.(this.waitingOn);
        }
        await this.clock.sleep(slot - now, signal);
        // Others may have taken slots, or a pause begun, meanwhile: look again.
        continue;
      }
      this.waitingOn = undefined;
      this.next = Math.max(this.next, now) + this.intervalMs;
      let release!: () => void;
      const answered = new Promise<void>((resolve) => (release = resolve));
      const entry: Sent = { start: now, end: null, answered, release: () => {} };
      entry.release = () => {
        if (entry.end !== null) return;
        entry.end = this.clock.now();
        release();
      };
      this.sent.push(entry);
      const keep = Math.max(...this.windows.map((w) => w.limit));
      if (this.sent.length > keep * 2) this.sent = this.sent.slice(-keep);
      return entry.release;
    }
  }

  /**
   * Requests an earlier run sent with the same key (from its journal), each counted at its
   * answer: a run resumed within the hour then waits for the windows they filled instead of
   * running into the server's 429.
   */
  seed(answeredAt: number[]): void {
    const done = Promise.resolve();
    const earlier = [...answeredAt].sort((a, b) => a - b).map((t) => ({ start: t, end: t, answered: done, release: () => {} }));
    this.sent = [...earlier, ...this.sent];
  }

  /** Nobody starts a request before `until` (a Retry-After from the server). */
  pause(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  get pausedUntilMs(): number {
    return this.pausedUntil;
  }

  /** The window the budget is waiting on now, if any (not the even spacing). */
  get waiting(): WindowWait | undefined {
    return this.waitingOn && this.waitingOn.until > this.clock.now() ? this.waitingOn : undefined;
  }

  /** How long until `requests` more are done, each taking `requestMs`, after what has been sent. */
  finishEstimate(requests: number, concurrency: number, requestMs: number): number {
    const now = this.clock.now();
    const history = this.sent.map((s) => s.end ?? Math.max(now, s.start + requestMs));
    const from = Math.max(now, this.pausedUntil);
    return from - now + simulate(requests, this.windows, concurrency, requestMs, history, from, { next: this.next, burst: this.burst });
  }
}

/**
 * The time the budget needs for `requests` requests that each take `requestMs` with
 * `concurrency` in flight, after requests that were answered at `history` (oldest first),
 * starting no earlier than `from`; `pace` is the spacing's state (RateBudget's `next` and `burst`;
 * by default a budget that has sent nothing and allows no burst). The same rules as RateBudget.take.
 */
export function simulate(
  requests: number,
  windows: readonly RateWindow[],
  concurrency: number,
  requestMs: number,
  history: number[] = [],
  from = 0,
  pace: { next?: number; burst?: number } = {},
): number {
  const sorted = [...windows].sort((a, b) => a.windowMs - b.windowMs);
  const interval = sorted[0].windowMs / sorted[0].limit;
  const credit = ((pace.burst ?? 1) - 1) * interval;
  const ends = history.slice();
  const base = ends.length;
  let next = pace.next ?? from;
  let last = from;
  for (let i = 0; i < requests; i++) {
    let t = Math.max(from, next - credit);
    if (i >= concurrency) t = Math.max(t, ends[base + i - concurrency]);
    for (const w of sorted) {
      const k = ends.length - w.limit;
      if (k >= 0) t = Math.max(t, ends[k] + w.windowMs);
    }
    next = Math.max(next, t) + interval;
    ends.push(t + requestMs);
    last = t + requestMs;
  }
  return last - from;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function unitMs(unit: string): number | undefined {
  const u = unit.toLowerCase();
  if (/^(s|secs?|seconds?)$/.test(u)) return UNIT_MS.s;
  if (/^(m|mins?|minutes?)$/.test(u)) return UNIT_MS.m;
  if (/^(h|hrs?|hours?)$/.test(u)) return UNIT_MS.h;
  if (/^(d|days?)$/.test(u)) return UNIT_MS.d;
  return undefined;
}

/**
 * `--rate`: one or more windows joined by commas, each `N` (per minute), `N/<unit>` or
 * `N/<k><unit>` with unit s, min, h or day: `480`, `8/s`, `480/min,4800/h`, `80/10s`.
 */
export function parseRateWindows(raw: string): RateWindow[] | undefined {
  const parts = raw.split(',').map((p) => p.trim());
  const windows: RateWindow[] = [];
  for (const part of parts) {
    const m = /^(\d+(?:\.\d+)?)\s*(?:\/\s*(\d+(?:\.\d+)?)?\s*([a-z]+))?$/i.exec(part);
    if (!m) return undefined;
    const limit = Number(m[1]);
    const per = m[3] === undefined ? 60_000 : unitMs(m[3]);
    const times = m[2] === undefined ? 1 : Number(m[2]);
    if (per === undefined || !(limit > 0) || !(times > 0) || !Number.isFinite(limit)) return undefined;
    windows.push({ limit, windowMs: per * times });
  }
  return windows.sort((a, b) => a.windowMs - b.windowMs);
}

/** `--rate` as requests per minute of its shortest window: `480`, `480/min`, `8/s` or `20000/h`. */
export function parseRate(raw: string): number | undefined {
  const windows = parseRateWindows(raw);
  if (!windows || windows.length !== 1) return undefined;
  return (windows[0].limit / windows[0].windowMs) * 60_000;
}

/** `480/min`, `4,800/h`, `80/10s`. */
export function formatWindow(w: RateWindow): string {
  const n = formatNumber(w.limit);
  for (const [unit, ms] of [
    ['day', UNIT_MS.d],
    ['h', UNIT_MS.h],
    ['min', UNIT_MS.m],
    ['s', UNIT_MS.s],
  ] as const) {
    if (w.windowMs % ms === 0) return w.windowMs === ms ? `${n}/${unit}` : `${n}/${w.windowMs / ms}${unit}`;
  }
  return `${n}/${w.windowMs}ms`;
}

/** "hourly window (4,800/h)", "per-minute window (480/min)", or "80/10s window". */
export function windowName(w: RateWindow): string {
  const name =
    w.windowMs === UNIT_MS.h ? 'hourly' : w.windowMs === UNIT_MS.m ? 'per-minute' : w.windowMs === UNIT_MS.d ? 'daily' : undefined;
  return name ? `${name} window (${formatWindow(w)})` : `${formatWindow(w)} window`;
}
