// Virtual time for the tests of code that waits through a Clock (src/bulk/engine/rate.ts): nothing
// really sleeps, so a test of an hour-long window runs at once and its times are exact.
/** Virtual time: sleeps resolve in order of their wake-up time, only when everything else waits. */
export class FakeClock {
  t = 0;
  private timers: { at: number; seq: number; resolve: () => void }[] = [];
  private seq = 0;
  now = () => this.t;
  sleep = (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      // As src/sleep.ts does: the abort listener goes when the sleep ends, so a long test leaves
      // none behind on its signal (node warns past ten).
      const onAbort = () => {
        this.timers = this.timers.filter((x) => x !== timer);
        reject(signal!.reason);
      };
      const timer = {
        at: this.t + ms,
        seq: this.seq++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.timers.push(timer);
      signal?.addEventListener('abort', onAbort, { once: true });
    });

  /**
   * Runs `work` to its end: whenever everything else waits, wakes the earliest sleeper and moves
   * the time to its wake-up. Fails when nothing is asleep and the work still waits (a deadlock).
   */
  async drive<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    work.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let idle = 0; !settled;) {
      await new Promise((r) => setImmediate(r));
      if (settled) break;
      if (this.timers.length === 0) {
        if (++idle > 50) throw new Error('deadlock: nothing to wake and the work is not done');
        continue;
      }
      idle = 0;
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers.shift()!;
      this.t = Math.max(this.t, next.at);
      next.resolve();
    }
    return work;
  }
}
