// The one wait: Ctrl-C ends it at once, and no wait leaves its abort listener on the signal.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { sleep } from '../../src/sleep.js';

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
});
