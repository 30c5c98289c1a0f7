// The rate-aware runner on a virtual clock: pacing, concurrency, 429s with and without
// Retry-After, retries, failures, the stop on 401/403, Ctrl-C, and journal ordering.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/errors.js';
import { chunkIds } from '../../../src/bulk/chunk.js';
import {
  DELETE_WINDOWS,
  RateBudget,
  formatWindow,
  parseRate,
  parseRateWindows,
  simulate,
  windowName,
  type WindowWait,
} from '../../../src/bulk/rate.js';
import { runChunks, type Attempt, type Chunk, type RunnerOptions } from '../../../src/bulk/runner.js';

/** Virtual time: sleeps resolve in order of their wake-up time, only when everything else waits. */
class FakeClock {
  t = 0;
  private timers: { at: number; seq: number; resolve: () => void }[] = [];
  private seq = 0;
  now = () => this.t;
  sleep = (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = { at: this.t + ms, seq: this.seq++, resolve };
      this.timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          this.timers = this.timers.filter((x) => x !== timer);
          reject(signal.reason);
        },
        { once: true },
      );
    });

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

const tenChunks = () => chunkIds(Array.from({ length: 10_000 }, (_, i) => `id-${i}`));

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
    const { options, run } = setup(chunkIds(Array.from({ length: 2000 }, (_, i) => `id-${i}`)), () => ok, {
      perMinute: 1e9,
      concurrency: 2,
      // A slow journal write: the runner's in-flight count is read while it is still going on.
      beforeSend: async () => {
        await new Promise((r) => setImmediate(r));
        seen.push(options.inFlight!());
      },
    });
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
    const { tries, run } = setup(chunkIds(['a']), (_c, n) => (n <= 6 ? { kind: 'throttled', status: 429, error: 'throttled' } : ok), {
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
    expect(result.unsent.map((c) => c.index)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
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
    expect(result.unsent.map((c) => c.index)).toEqual([5, 6, 7, 8, 9, 10]);
  });

  it('leaves a chunk waiting for a retry to --resume when interrupted', async () => {
    const controller = new AbortController();
    const { log, run } = setup(
      chunkIds(['a']),
      () => {
        controller.abort();
        return { kind: 'retry', status: 503, error: 'unavailable' };
      },
      { signal: controller.signal },
    );
    const result = await run();
    expect(result).toMatchObject({ reason: 'interrupted', failed: 0 });
    expect(result.unsent.map((c) => c.index)).toEqual([1]);
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
    expect(result.unsent.map((c) => c.index)).toEqual([4, 5, 6, 7, 8, 9, 10]);
    expect(tries.get(3)).toBe(1);
  });

  it('after a lost answer checks the ids: gone ones are journaled and never sent again; all gone settles the chunk', async () => {
    const sent: string[][] = [];
    const checked: string[] = [];
    const { run } = setup(
      chunkIds(['a', 'b', 'c', 'd'], 1, 2),
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
    const { log, run } = setup(chunkIds(['a']), () => ({ kind: 'throttled', status: 429, retryAfterMs: 60_000, error: 'throttled' }), {
      patienceMs: 5 * 60_000,
    });
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

describe('RateBudget and --rate', () => {
  it('hands out evenly spaced slots and honours a pause', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget(120, clock);
    const times: number[] = [];
    const work = (async () => {
      for (let i = 0; i < 3; i++) {
        await budget.take();
        times.push(clock.t);
        if (i === 0) budget.pause(clock.t + 10_000);
      }
    })();
    await clock.drive(work);
    expect(times).toEqual([0, 10_000, 10_500]);
  });

  it('keeps to every window: the short one by spacing, the long one by answers a window ago', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget(
      [
        { limit: 8, windowMs: 10_000 },
        { limit: 4, windowMs: 1000 },
      ],
      clock,
    );
    const waits: WindowWait[] = [];
    budget.onWait = (w) => waits.push(w);
    const times: number[] = [];
    const work = (async () => {
      for (let i = 0; i < 12; i++) {
        const answered = await budget.take();
        times.push(clock.t);
        // Each answer takes 100 ms: the next window counts from it, not from the start.
        await clock.sleep(100);
        answered();
      }
    })();
    await clock.drive(work);
    expect(budget.intervalMs).toBe(250);
    expect(times.slice(0, 8)).toEqual([0, 250, 500, 750, 1100, 1350, 1600, 1850]);
    // The 9th request waits until the 1st was answered 10 s ago: the long window binds.
    expect(times.slice(8)).toEqual([10_100, 10_350, 10_600, 10_850]);
    expect(waits).toEqual([{ window: { limit: 8, windowMs: 10_000 }, until: 10_100 }]);
  });

  it('waits for a request still on its way before starting one a window later', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget([{ limit: 2, windowMs: 1000 }], clock);
    const work = (async () => {
      const first = await budget.take();
      await budget.take();
      // The first answer comes at 5.5 s; the third request must wait for it, plus a window.
      void clock.sleep(5000).then(first);
      await budget.take();
      return clock.t;
    })();
    expect(await clock.drive(work)).toBe(6500);
  });

  it('counts requests of an earlier run that it is told of', async () => {
    const clock = new FakeClock();
    clock.t = 5000;
    const budget = new RateBudget(
      [
        { limit: 2, windowMs: 1000 },
        { limit: 4, windowMs: 10_000 },
      ],
      clock,
    );
    budget.seed([1000, 2000, 3000, 4000]);
    const work = (async () => {
      await budget.take();
      return clock.t;
    })();
    // The oldest of the four was answered at 1 s: the long window frees at 11 s.
    expect(await clock.drive(work)).toBe(11_000);
  });

  it('parses several windows, of any length; a bare number is per minute', () => {
    expect(parseRateWindows('480/min,4800/h')).toEqual([...DELETE_WINDOWS]);
    expect(parseRateWindows('4800/hour, 480')).toEqual([...DELETE_WINDOWS]);
    expect(parseRateWindows('8/1s,80/10s')).toEqual([
      { limit: 8, windowMs: 1000 },
      { limit: 80, windowMs: 10_000 },
    ]);
    expect(parseRateWindows('8/s')).toEqual([{ limit: 8, windowMs: 1000 }]);
    expect(parseRateWindows('480/min,')).toBeUndefined();
    expect(parseRateWindows('480/fortnight')).toBeUndefined();
    expect(parseRateWindows('0/h')).toBeUndefined();
    expect(formatWindow({ limit: 4800, windowMs: 3_600_000 })).toBe('4,800/h');
    expect(formatWindow({ limit: 80, windowMs: 10_000 })).toBe('80/10s');
    expect(windowName(DELETE_WINDOWS[1])).toBe('hourly window (4,800/h)');
    expect(windowName({ limit: 80, windowMs: 10_000 })).toBe('80/10s window');
  });

  it('estimates a 10,000-request erasure at about two hours under both windows, not 21 minutes', () => {
    const ms = simulate(10_000, DELETE_WINDOWS, 4, 500);
    // Two hourly windows spent in 10 minutes each, then the last 400 requests.
    expect(ms).toBeGreaterThan(2 * 3_600_000);
    expect(ms).toBeLessThan(2 * 3_600_000 + 5 * 60_000);
    expect(simulate(10_000, [DELETE_WINDOWS[0]], 4, 0)).toBeLessThan(21 * 60_000);
  });

  it('parses requests per minute in several spellings', () => {
    expect(parseRate('480')).toBe(480);
    expect(parseRate('480/min')).toBe(480);
    expect(parseRate('8/s')).toBe(480);
    expect(parseRate('4800/h')).toBe(80);
    expect(parseRate('0')).toBeUndefined();
    expect(parseRate('fast')).toBeUndefined();
  });
});

describe('chunkIds', () => {
  it('cuts at 1000 and numbers on from the journal', () => {
    const chunks = chunkIds(
      Array.from({ length: 2500 }, (_, i) => String(i)),
      8,
    );
    expect(chunks.map((c) => [c.index, c.ids.length])).toEqual([
      [8, 1000],
      [9, 1000],
      [10, 500],
    ]);
    expect(chunks[2].ids[0]).toBe('2000');
    expect(() => chunkIds(['a'], 1, 1001)).toThrow(RangeError);
    expect(chunkIds([])).toEqual([]);
  });
});
