// The one wait: Ctrl-C ends it at once, and no wait leaves its abort listener on the signal.
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, sleep } from '../../src/sleep.js';

describe('sleep', () => {
  it('resolves, and rejects with the reason of an abort before or during it', async () => {
    await expect(sleep(0)).resolves.toBeUndefined();
    const before = new Error('before');
    await expect(sleep(60_000, AbortSignal.abort(before))).rejects.toBe(before);
    const controller = new AbortController();
    const during = new Error('during');
    const waiting = sleep(60_000, controller.signal);
    controller.abort(during);
    await expect(waiting).rejects.toBe(during);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('leaves no abort listener behind once a wait is over', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 12; i++) await sleep(1, controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('a wait longer than a node timer holds does not end at once (a timer of 2^31 ms or more fires at once)', async () => {
    const controller = new AbortController();
    let ended = false;
    const waiting = sleep(MAX_TIMER_MS + 1000, controller.signal).then(() => (ended = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(ended).toBe(false);
    controller.abort(new Error('done'));
    await expect(waiting).rejects.toThrow('done');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  describe('on a fake clock', () => {
    afterEach(() => void vi.useRealTimers());
    it('lasts as long as asked, in steps a timer can hold', async () => {
      vi.useFakeTimers();
      let ended = false;
      const waiting = sleep(2 * MAX_TIMER_MS + 5000).then(() => (ended = true));
      await vi.advanceTimersByTimeAsync(2 * MAX_TIMER_MS);
      expect(ended).toBe(false);
      await vi.advanceTimersByTimeAsync(5000);
      expect(ended).toBe(true);
      await waiting;
    });
  });
});
