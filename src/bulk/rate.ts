// The client-side request budget: requests are spaced evenly at `perMinute`, with no burst,
// because PostHog counts requests in a sliding window (480 per 60 s for deletes) and a burst at
// the start of a window is exactly what pushes the end of it over the limit. A 429 with
// Retry-After pauses every worker until then, since the budget belongs to the API key.

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** setTimeout as a promise that an abort cuts short; it removes its abort listener either way,
 * because a long run sleeps thousands of times on the same signal. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class RateBudget {
  private next = 0;
  private pausedUntil = 0;
  readonly intervalMs: number;

  constructor(
    perMinute: number,
    private readonly clock: Clock,
  ) {
    this.intervalMs = 60_000 / perMinute;
  }

  /** Waits for the next slot. Slots are handed out in order, so waiting callers never overtake. */
  async take(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const slot = Math.max(now, this.next, this.pausedUntil);
      this.next = slot + this.intervalMs;
      if (slot > now) await this.clock.sleep(slot - now, signal);
      // A pause that began while this caller slept moves it behind the pause.
      if (this.pausedUntil <= this.clock.now()) return;
    }
  }

  /** Nobody starts a request before `until` (a Retry-After from the server). */
  pause(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  get pausedUntilMs(): number {
    return this.pausedUntil;
  }
}

/** `--rate` as requests per minute: `480`, `480/min`, `8/s` or `20000/h`. */
export function parseRate(raw: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*(s|sec|second|m|min|minute|h|hour))?\s*$/i.exec(raw);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = (m[2] ?? 'min').toLowerCase();
  const perMinute = unit.startsWith('s') ? n * 60 : unit.startsWith('h') ? n / 60 : n;
  return perMinute > 0 && Number.isFinite(perMinute) ? perMinute : undefined;
}
