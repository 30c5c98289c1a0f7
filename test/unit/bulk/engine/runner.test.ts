// The rate-aware runner on a virtual clock: pacing, concurrency, 429s with and without
// Retry-After, retries, failures, the stop on 401/403, Ctrl-C, and journal ordering. The budget
// itself is tested in rate.test.ts.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/errors.js';
import { chunkIds } from '../../../../src/bulk/engine/chunk.js';
import { runChunks, type Attempt, type Chunk, type RunnerOptions } from '../../../../src/bulk/engine/runner.js';
import { FakeClock } from '../fake-clock.js';

const ok: Attempt = { kind: 'ok', status: 202, summary: { persons_found: 1, persons_deleted: 1 } };

interface Log {
  events: string[];
  starts: number[];
  inFlightMax: number;
}

function setup(chunks: Chunk[], script: (chunk: Chunk, n: number) => Attempt | Promise<Attempt>, over: Partial<RunnerOptions> = {}) {
  const clock = new FakeClock();
  const log: Log = { events: [], starts: [], inFlightMax: 0 };
  const tries = new Map<number, number>();
  let inFlight = 0;
  const options: RunnerOptions = {
    concurrency: 4,
    perMinute: 600,
    retries: 3,
    patienceMs: 60 * 60_000,
    clock,
    random: () => 0.5,
    attempt: async (chunk) => {
      const n = (tries.get(chunk.index) ?? 0) + 1;
      tries.set(chunk.index, n);
      log.starts.push(clock.t);
      log.events.push(`attempt ${chunk.index}#${n}@${clock.t}`);
      inFlight++;
      log.inFlightMax = Math.max(log.inFlightMax, inFlight);
      await clock.sleep(50); // latency
      inFlight--;
      return script(chunk, n);
    },
    beforeSend: async (chunk) => {
      log.events.push(`journal sending ${chunk.index}`);
    },
    answered: async (chunk, r) => {
      log.events.push(`journal answered ${chunk.index} after ${r.attempts}`);
    },
    failed: async (chunk, r) => {
      log.events.push(`journal failed ${chunk.index} after ${r.attempts}: ${r.error}`);
    },
    ...over,
  };
  return { clock, log, tries, options, run: () => clock.drive(runChunks(chunks, options)) };
}

const tenChunks = () =>
  chunkIds(
    Array.from({ length: 10_000 }, (_, i) => `id-${i}`),
    1000,
  );

describe('runChunks', () => {
  it('answers every chunk, journals "sending" before each first attempt, and paces requests at the rate', async () => {
    const { log, run } = setup(tenChunks(), () => ok);
    const result = await run();
    expect(result).toMatchObject({ reason: 'completed', answered: 10, failed: 0, unsent: [] });
    for (let i = 1; i <= 10; i++) {
      const sending = log.events.indexOf(`journal sending ${i}`);
      const attempt = log.events.findIndex((e) => e.startsWith(`attempt ${i}#1`));
      expect(sending).toBeGreaterThanOrEqual(0);
      expect(sending).toBeLessThan(attempt);
      expect(log.events.indexOf(`journal answered ${i} after 1`)).toBeGreaterThan(attempt);
    }
    // 600/min = one request every 100 ms of virtual time, no burst.
    expect(log.starts).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
  });

  it('never has more than --concurrency requests in flight', async () => {
    const { log, run } = setup(tenChunks(), () => ok, { perMinute: 1e9, concurrency: 3 });
    await run();
    expect(log.inFlightMax).toBe(3);
  });

  it('counts a chunk as in flight from the moment it is journaled as sending (what Ctrl-C says it waits for)', async () => {
    const seen: number[] = [];
    const { options, run } = setup(
      chunkIds(
        Array.from({ length: 2000 }, (_, i) => `id-${i}`),
        1000,
      ),
      () => ok,
      {
        perMinute: 1e9,
        concurrency: 2,
        // A slow journal write: the runner's in-flight count is read while it is still going on.
        beforeSend: async () => {
          await new Promise((r) => setImmediate(r));
          seen.push(options.inFlight!());
        },
      },
    );
    await run();
    // Each read counts at least the chunk being journaled.
    expect(seen).toHaveLength(2);
    expect(Math.min(...seen)).toBeGreaterThanOrEqual(1);
  });

  it('pauses every worker for Retry-After on a 429, then carries on', async () => {
    const { log, run } = setup(tenChunks(), (c, n) =>
      c.index === 2 && n === 1 ? { kind: 'throttled', status: 429, retryAfterMs: 5000, error: 'throttled' } : ok,
    );
    const result = await run();
    expect(result.reason).toBe('completed');
    // Chunk 2's 429 came back at 150 ms: nothing started again before 5150 ms.
    const after = log.starts.filter((t) => t > 150);
    expect(after.every((t) => t >= 5150)).toBe(true);
    expect(log.events).toContain('journal answered 2 after 2');
  });

  it('backs off with jitter on a 429 without Retry-After, without using up retries', async () => {
    const { tries, run } = setup(chunkIds(['a'], 1000), (_c, n) => (n <= 6 ? { kind: 'throttled', status: 429, error: 'throttled' } : ok), {
      retries: 1,
    });
    const result = await run();
    expect(result.reason).toBe('completed');
    expect(tries.get(1)).toBe(7);
  });

  it('retries 5xx and dropped connections, then fails the chunk after --retries', async () => {
    const { log, run } = setup(chunkIds(['a', 'b', 'c'], 1, 1), (c, n) =>
      c.index === 2
        ? { kind: 'retry', status: 500, error: 'POST failed with 500' }
        : n === 1
          ? { kind: 'retry', status: null, error: 'the connection was closed' }
          : ok,
    );
    const result = await run();
    expect(result).toMatchObject({ reason: 'partial', answered: 2, failed: 1 });
    expect(log.events).toContain('journal failed 2 after 4: POST failed with 500');
    expect(log.events).toContain('journal answered 1 after 2');
  });

  it('counts, per chunk, the attempts that may have been carried out without saying so', async () => {
    const seen: string[] = [];
    const { run } = setup(
      chunkIds(['a', 'b', 'c'], 1, 1),
      (c, n) =>
        c.index === 1 && n === 1
          ? { kind: 'retry', status: null, error: 'timed out', unclear: true }
          : c.index === 1 && n === 2
            ? { kind: 'retry', status: 503, error: 'database unavailable', unclear: false }
            : c.index === 2 && n === 1
              ? { kind: 'throttled', status: 429, error: 'throttled' }
              : c.index === 3
                ? { kind: 'retry', status: 502, error: 'bad gateway', unclear: true }
                : ok,
      {
        retries: 2,
        answered: async (chunk, r) => void seen.push(`answered ${chunk.index} unclear ${r.unclear}`),
        failed: async (chunk, r) => void seen.push(`failed ${chunk.index} unclear ${r.unclear}`),
      },
    );
    await run();
    expect(seen.sort()).toEqual(['answered 1 unclear 1', 'answered 2 unclear 0', 'failed 3 unclear 3']);
  });

  it('stops at once on 401/403: nothing more is sent', async () => {
    const auth = new ApiError('POST /bulk_delete/ failed with 401', 401, {}, 'check the key', 4);
    const { log, run } = setup(tenChunks(), () => ({ kind: 'auth', status: 401, error: auth }), { perMinute: 60 });
    const result = await run();
    expect(result.reason).toBe('auth');
    expect(result.error).toBe(auth);
    expect(log.starts).toEqual([0]);
    expect(result.unsent).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('stops on another 4xx too, since every chunk would get the same answer', async () => {
    const rejected = new ApiError('POST failed with 415', 415, {});
    const { log, run } = setup(tenChunks(), () => ({ kind: 'rejected', status: 415, error: rejected }), { perMinute: 60 });
    const result = await run();
    expect(result.reason).toBe('rejected');
    expect(log.starts).toHaveLength(1);
  });

  it('on Ctrl-C lets requests in flight finish and journal them, and sends nothing more', async () => {
    const controller = new AbortController();
    const { log, run } = setup(
      tenChunks(),
      (c) => {
        if (c.index === 3) controller.abort();
        return ok;
      },
      { signal: controller.signal, perMinute: 1e9, concurrency: 2 },
    );
    const result = await run();
    expect(result.reason).toBe('interrupted');
    expect(log.events.filter((e) => e.startsWith('attempt'))).toHaveLength(4);
    expect(log.events).toContain('journal answered 3 after 1');
    expect(log.events).toContain('journal answered 4 after 1');
    expect(result.unsent).toEqual([5, 6, 7, 8, 9, 10]);
  });

  it('leaves a chunk waiting for a retry to --resume when interrupted', async () => {
    const controller = new AbortController();
    const { log, run } = setup(
      chunkIds(['a'], 1000),
      () => {
        controller.abort();
        return { kind: 'retry', status: 503, error: 'unavailable' };
      },
      { signal: controller.signal },
    );
    const result = await run();
    expect(result).toMatchObject({ reason: 'interrupted', failed: 0 });
    expect(result.unsent).toEqual([1]);
    expect(log.events.some((e) => e.startsWith('journal failed'))).toBe(false);
  });

  it('stops the whole run at once on a Retry-After longer than maxWaitMs: that chunk failed, the others unsent', async () => {
    const { tries, run } = setup(
      tenChunks(),
      (c) => (c.index === 3 ? { kind: 'throttled', status: 429, retryAfterMs: 3_600_000, error: 'throttled' } : ok),
      { concurrency: 1, maxWaitMs: 15 * 60_000 },
    );
    const result = await run();
    expect(result.reason).toBe('rate_limited');
    expect(result.until).toBe(250 + 3_600_000);
    expect(result).toMatchObject({ answered: 2, failed: 1 });
    expect(result.unsent).toEqual([4, 5, 6, 7, 8, 9, 10]);
    expect(tries.get(3)).toBe(1);
  });

  it('stopping, journals requests in flight that the rate limit refused as failed (not done), not as sent with their answer lost', async () => {
    const throttled = (retryAfterMs: number): Attempt => ({ kind: 'throttled', status: 429, retryAfterMs, error: 'throttled' });
    const { log, run } = setup(
      tenChunks(),
      // Four on their way at once; the first answer stops the run, the other three come after.
      (c) => (c.index === 1 ? throttled(3_600_000) : c.index <= 4 ? throttled(60_000) : ok),
      { concurrency: 4, perMinute: 1e9, maxWaitMs: 15 * 60_000 },
    );
    const result = await run();
    expect(result.reason).toBe('rate_limited');
    expect(result).toMatchObject({ answered: 0, failed: 4 });
    for (const i of [2, 3, 4]) expect(log.events).toContain(`journal failed ${i} after 1: rate-limited as the run stopped (throttled)`);
    expect(result.unsent).toEqual([5, 6, 7, 8, 9, 10]);
  });

  it('after a lost answer checks the ids: gone ones are journaled and never sent again; all gone settles the chunk', async () => {
    const sent: string[][] = [];
    const checked: string[] = [];
    const { run } = setup(
      chunkIds(['a', 'b', 'c', 'd'], 2, 1),
      (c, n) => {
        sent.push(c.ids);
        return n === 1 ? { kind: 'retry', status: null, error: 'the connection was closed', unclear: true } : ok;
      },
      {
        concurrency: 1,
        // Chunk 1 (a, b): b is gone; chunk 2 (c, d): both gone.
        check: async (ids) => new Set(ids.filter((id) => id === 'a')),
        checked: async (c, r) => {
          checked.push(`${c.index}: gone ${r.gone.join(',')}, ${r.present} left${r.done ? ', done' : ''}`);
        },
      },
    );
    const result = await run();
    expect(result).toMatchObject({ reason: 'completed', answered: 2, failed: 0 });
    expect(sent).toEqual([['a', 'b'], ['a'], ['c', 'd']]);
    expect(checked).toEqual(['1: gone b, 1 left', '2: gone c,d, 0 left, done']);
  });

  it('gives up on a chunk once 429s have gone on longer than the patience, with no progress', async () => {
    const { log, run } = setup(
      chunkIds(['a'], 1000),
      () => ({ kind: 'throttled', status: 429, retryAfterMs: 60_000, error: 'throttled' }),
      {
        patienceMs: 5 * 60_000,
      },
    );
    const result = await run();
    expect(result).toMatchObject({ reason: 'partial', failed: 1 });
    expect(log.events.at(-1)).toMatch(/^journal failed 1 after 5: still rate-limited after \d+s without progress/);
  });

  it('a journal that cannot be written stops the run before the chunk is sent', async () => {
    const { log, run } = setup(tenChunks(), () => ok, {
      beforeSend: async (c) => {
        if (c.index === 2) throw new Error('ENOSPC');
      },
    });
    await expect(run()).rejects.toThrow('ENOSPC');
    expect(log.events.some((e) => e.startsWith('attempt 2#'))).toBe(false);
  });
});
