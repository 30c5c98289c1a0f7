// The one wait of the program: retries, the rate budget, countdowns and read-back rounds all sleep
// through it. Ctrl-C (the signal) ends a wait at once, and the wait removes its abort listener when
// it ends, because a long run sleeps thousands of times on the same signal and node warns, over the
// progress line, past ten listeners on one. A wait longer than a node timer can hold is slept in
// steps instead of firing at once.

/** The longest delay a node timer keeps (2^31 - 1 ms, about 24.8 days): a longer one fires at
 * once, with a TimeoutOverflowWarning. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return ms > MAX_TIMER_MS ? sleepInSteps(ms, signal) : sleepOnce(ms, signal);
}

/** A legitimate wait longer than a timer can hold (a server's Retry-After under a --max-wait of
 * months) is slept in steps a timer can hold, so that it lasts as long as asked. */
async function sleepInSteps(ms: number, signal?: AbortSignal): Promise<void> {
  for (let left = ms; left > 0; left -= MAX_TIMER_MS) await sleepOnce(Math.min(left, MAX_TIMER_MS), signal);
}

function sleepOnce(ms: number, signal?: AbortSignal): Promise<void> {
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

/**
 * The waits between rounds of asking whether something asynchronous has happened (a query done,
 * a change applied, a merge read back): from a quarter of a second, doubling up to a longest wait,
 * so that what is quick is seen quickly and what is slow is not asked after too often:
 * `for (let delay = FIRST_POLL_MS; ; delay = nextPollDelay(delay, lastMs))`.
 */
export const FIRST_POLL_MS = 250;

export function nextPollDelay(delay: number, lastMs: number): number {
  return Math.min(delay * 2, lastMs);
}

/** What reads the time and waits: the real clock and sleep, or virtual ones in tests. */
export interface Clock {
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}
