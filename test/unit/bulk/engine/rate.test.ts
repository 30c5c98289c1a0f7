// The client-side request budget on a virtual clock: even spacing, every window counted from the
// answers, requests still on their way, pauses, aborts, seeding from an earlier run, estimates,
// and the --rate syntax.
import { describe, expect, it } from 'vitest';
import {
  RateBudget,
  formatWindow,
  parseRate,
  parseRateWindows,
  simulate,
  windowName,
  type WindowWait,
} from '../../../../src/bulk/engine/rate.js';
import { DELETE_WINDOWS } from '../../../../src/bulk/kinds/delete/limits.js';
import { FakeClock } from '../fake-clock.js';

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

  it('lets an idle budget start a burst back to back, then spaces; the credit comes back only while idle', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget(60, clock, 4);
    const times: number[] = [];
    const work = (async () => {
      for (let i = 0; i < 6; i++) ((await budget.take())(), times.push(clock.t));
      await clock.sleep(60_000);
      for (let i = 0; i < 5; i++) ((await budget.take())(), times.push(clock.t));
    })();
    await clock.drive(work);
    expect(times).toEqual([0, 0, 0, 0, 1_000, 2_000, 62_000, 62_000, 62_000, 62_000, 63_000]);
    expect(budget.finishEstimate(1, 1, 0)).toBe(1_000);
  });

  it('a burst never lets more than a window holds into it', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget([{ limit: 4, windowMs: 60_000 }], clock, 4);
    const times: number[] = [];
    const work = (async () => {
      for (let i = 0; i < 6; i++) ((await budget.take())(), times.push(clock.t));
    })();
    await clock.drive(work);
    expect(times).toEqual([0, 0, 0, 0, 60_000, 60_000]);
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

describe('RateBudget: pauses, answers and aborts', () => {
  it('a pause only lengthens: an earlier Retry-After does not cut a later one short', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget(60, clock);
    budget.pause(10_000);
    budget.pause(5000);
    expect(budget.pausedUntilMs).toBe(10_000);
    const work = (async () => {
      await budget.take();
      return clock.t;
    })();
    expect(await clock.drive(work)).toBe(10_000);
  });

  it('a pause that begins while a request waits for its slot pushes that request back', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget(60, clock);
    const work = (async () => {
      (await budget.take())();
      // The next slot is at 1 s; a 429 at 0.5 s asks everyone to wait until 3 s.
      void clock.sleep(500).then(() => budget.pause(3000));
      await budget.take();
      return clock.t;
    })();
    expect(await clock.drive(work)).toBe(3000);
  });

  it('counts an answer once, when it first comes, however often it is reported', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget([{ limit: 1, windowMs: 1000 }], clock);
    const work = (async () => {
      const answered = await budget.take();
      await clock.sleep(200);
      answered();
      await clock.sleep(500);
      answered();
      await budget.take();
      return clock.t;
    })();
    // A window after the first answer (0.2 s), not after the second report (0.7 s).
    expect(await clock.drive(work)).toBe(1200);
  });

  it('an abort ends a wait for a slot, and a wait for a request still on its way', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget([{ limit: 1, windowMs: 1000 }], clock);
    const stop = new Error('stopped');
    const work = (async () => {
      const answered = await budget.take();
      const unanswered = new AbortController();
      void clock.sleep(300).then(() => unanswered.abort(stop));
      // The window holds one request and that one has no answer yet.
      const first = await budget.take(unanswered.signal).catch((err: unknown) => err);
      answered();
      const sleeping = new AbortController();
      void clock.sleep(300).then(() => sleeping.abort(stop));
      // Now the window frees a whole window after that answer: a sleep, cut short.
      const second = await budget.take(sleeping.signal).catch((err: unknown) => err);
      await budget.take();
      return { first, second, t: clock.t };
    })();
    expect(await clock.drive(work)).toEqual({ first: stop, second: stop, t: 1300 });
  });

  it('tells which long window it waits on while it waits, and nothing once past it', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget(
      [
        { limit: 4, windowMs: 1000 },
        { limit: 2, windowMs: 10_000 },
      ],
      clock,
    );
    const seen: (WindowWait | undefined)[] = [];
    const work = (async () => {
      (await budget.take())();
      (await budget.take())();
      void clock.sleep(5000).then(() => seen.push(budget.waiting));
      (await budget.take())();
      seen.push(budget.waiting);
      return clock.t;
    })();
    expect(await clock.drive(work)).toBe(10_000);
    expect(seen).toEqual([{ window: { limit: 2, windowMs: 10_000 }, until: 10_000 }, undefined]);
  });

  it('estimates the time left from now, after a pause, at the spacing', () => {
    const clock = new FakeClock();
    const budget = new RateBudget(60, clock);
    expect(budget.finishEstimate(3, 1, 0)).toBe(2000);
    budget.pause(5000);
    expect(budget.finishEstimate(3, 1, 0)).toBe(7000);
  });

  it('needs at least one window', () => {
    expect(() => new RateBudget([], new FakeClock())).toThrow(RangeError);
  });
});
