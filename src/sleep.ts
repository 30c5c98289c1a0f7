// The one wait of the program: retries, the rate budget, countdowns and read-back rounds all sleep
// through it. Ctrl-C (the signal) ends a wait at once, and the wait removes its abort listener when
// it ends, because a long run sleeps thousands of times on the same signal and node warns, over the
// progress line, past ten listeners on one.
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

/** What reads the time and waits: the real clock and sleep, or virtual ones in tests. */
export interface Clock {
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}
