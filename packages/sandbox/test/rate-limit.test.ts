import { describe, expect, it } from 'vitest';
import { CLOUD_RATES, parseRateLimitSpec, RateLimiter } from '../src/rate-limit.js';
import { call, errorBody, withSandbox } from './helpers.js';

const MIN = 60_000;
const HOUR = 3_600_000;

describe('parseRateLimitSpec', () => {
  it('is off by default and for "off"', () => {
    expect(parseRateLimitSpec(undefined)).toBeNull();
    expect(parseRateLimitSpec('off')).toBeNull();
  });

  it('has the Cloud limits of docs/server-contract.md §5', () => {
    const cloud = parseRateLimitSpec('cloud')!;
    expect(cloud.get('delete')).toEqual([
      { scope: 'persons_delete_burst', limit: 480, windowMs: MIN },
      { scope: 'persons_delete_sustained', limit: 4800, windowMs: HOUR },
    ]);
    expect(cloud.get('read')).toEqual([{ scope: 'clickhouse_burst', limit: 240, windowMs: MIN }]);
    expect(cloud.get('default')).toEqual(CLOUD_RATES.default);
    expect(cloud.get('query')!.map((r) => [r.limit, r.windowMs])).toEqual([
      [240, MIN],
      [2400, HOUR],
    ]);
  });

  it('sets every per-minute limit from a bare number and drops hourly ones', () => {
    const config = parseRateLimitSpec('600')!;
    for (const rates of config.values()) {
      expect(rates).toHaveLength(1);
      expect(rates[0]).toMatchObject({ limit: 600, windowMs: MIN });
    }
  });

  it('overrides classes and keeps Cloud limits for the rest', () => {
    const config = parseRateLimitSpec('delete=600,read=1200,query=10/s+100/hour,web=off')!;
    expect(config.get('delete')).toEqual([{ scope: 'persons_delete_burst', limit: 600, windowMs: MIN }]);
    expect(config.get('read')).toEqual([{ scope: 'clickhouse_burst', limit: 1200, windowMs: MIN }]);
    expect(config.get('query')).toEqual([
      { scope: 'api_queries_burst', limit: 10, windowMs: 1000 },
      { scope: 'api_queries_sustained', limit: 100, windowMs: HOUR },
    ]);
    expect(config.get('web')).toEqual([]);
    expect(config.get('default')).toEqual(CLOUD_RATES.default);
  });

  it('rejects bad specs with a helpful message', () => {
    expect(() => parseRateLimitSpec('reads=5')).toThrow(/unknown class "reads"/);
    expect(() => parseRateLimitSpec('read=fast')).toThrow(/"fast" is not a rate/);
    expect(() => parseRateLimitSpec('read=0')).toThrow(/not a rate/);
    expect(() => parseRateLimitSpec('cloud,600')).toThrow(/must come first/);
    expect(() => parseRateLimitSpec('delete=8/0s')).toThrow(/not a rate/);
  });

  it('takes windows of any length, several per class, so an hour can be scaled to seconds', () => {
    const config = parseRateLimitSpec('delete=8/1s,80/10s,query=120/20s')!;
    expect(config.get('delete')).toEqual([
      { scope: 'persons_delete_burst', limit: 8, windowMs: 1000 },
      { scope: 'persons_delete_sustained', limit: 80, windowMs: 10_000 },
    ]);
    expect(config.get('query')).toEqual([{ scope: 'api_queries_burst', limit: 120, windowMs: 20_000 }]);
    expect(
      parseRateLimitSpec('delete=8/s+80/2min')!
        .get('delete')!
        .map((r) => r.windowMs),
    ).toEqual([1000, 2 * MIN]);
    expect(
      parseRateLimitSpec('read=5,600')!
        .get('read')!
        .map((r) => r.limit),
    ).toEqual([5, 600]);
  });
});

describe('RateLimiter (DRF sliding window)', () => {
  it('computes the wait from the oldest request and reports the longest failing window', () => {
    let now = 0;
    const limiter = new RateLimiter(parseRateLimitSpec('default=2/min+3/hour'), () => now);
    const check = () => {
      try {
        limiter.check('default', 'k');
        return 'ok';
      } catch (e: any) {
        return [e.status, e.body.detail, e.headers['Retry-After']];
      }
    };
    expect(check()).toBe('ok');
    now = 1000;
    expect(check()).toBe('ok');
    now = 2000;
    // Minute window full (oldest at 0 s): 58 s. The hour window passes and records this one.
    expect(check()).toEqual([429, 'Request was throttled. Expected available in 58 seconds.', '58']);
    now = 3000;
    // Both full now: 57 s versus 3597 s; the longest wins.
    expect(check()).toEqual([429, 'Request was throttled. Expected available in 3597 seconds.', '3597']);
  });

  it('throttles on a scaled-down long window with its own Retry-After', () => {
    let now = 0;
    const limiter = new RateLimiter(parseRateLimitSpec('delete=2/1s,4/10s'), () => now);
    const statuses: (string | number)[] = [];
    for (let i = 0; i < 5; i++) {
      try {
        limiter.check('delete', 'k');
        statuses.push('ok');
      } catch (e: any) {
        statuses.push(e.headers['Retry-After']);
      }
      now += 600;
    }
    // 0, 0.6, 1.2, 1.8 s pass the 2/1s window; the fifth at 2.4 s finds 4 in the last 10 s.
    expect(statuses).toEqual(['ok', 'ok', 'ok', 'ok', '8']);
  });

  it('counts per credential', () => {
    const limiter = new RateLimiter(parseRateLimitSpec('read=1'), () => 0);
    limiter.check('read', 'a');
    limiter.check('read', 'b');
    expect(() => limiter.check('read', 'a')).toThrow(/throttled/);
  });
});

describe('429 over HTTP', () => {
  it('throttles a key with the exact body and Retry-After, per the injected clock', async () => {
    let now = 1_000_000;
    const sb = await withSandbox({ persons: 5, rateLimit: '3', now: () => now });
    try {
      const persons = '/api/projects/1/persons/';
      for (let i = 0; i < 3; i++) {
        expect((await call(sb, persons)).status).toBe(200);
        now += 10_000;
      }
      // Three requests at 0, 10 and 20 s; the fourth at 30 s waits until the first leaves.
      const throttled = await call(sb, persons);
      expect(throttled.status).toBe(429);
      expect(throttled.json()).toEqual(
        errorBody('throttled_error', 'throttled', 'Request was throttled. Expected available in 30 seconds.'),
      );
      expect(throttled.headers['retry-after']).toBe('30');
      now = 1_000_000 + 59_000 + 500;
      const oneSecond = await call(sb, persons);
      expect(oneSecond.json().detail).toBe('Request was throttled. Expected available in 1 second.');
      expect(oneSecond.headers['retry-after']).toBe('1');
      // Another key has its own budget.
      expect((await call(sb, persons, { key: sb.addKey(['*']) })).status).toBe(200);
      now = 1_000_000 + 60_000;
      expect((await call(sb, persons)).status).toBe(200);
    } finally {
      await sb.close();
    }
  });

  it('keeps separate classes: persons reads do not use the projects budget', async () => {
    const sb = await withSandbox({ persons: 5, rateLimit: 'read=1,default=2', now: () => 0 });
    try {
      expect((await call(sb, '/api/projects/1/persons/')).status).toBe(200);
      expect((await call(sb, '/api/projects/1/persons/')).status).toBe(429);
      expect((await call(sb, '/api/projects/')).status).toBe(200);
      expect((await call(sb, '/api/projects/1/')).status).toBe(200);
      expect((await call(sb, '/api/projects/')).status).toBe(429);
      // Unthrottled view.
      expect((await call(sb, '/api/users/@me/')).status).toBe(200);
    } finally {
      await sb.close();
    }
  });

  it('does not throttle unless configured, and can be switched at run time', async () => {
    const sb = await withSandbox({ persons: 5, now: () => 0 });
    try {
      for (let i = 0; i < 300; i++) expect((await call(sb, '/api/projects/1/persons/?limit=1')).status).toBe(200);
      sb.setRateLimit('1');
      expect((await call(sb, '/api/projects/1/persons/?limit=1')).status).toBe(200);
      expect((await call(sb, '/api/projects/1/persons/?limit=1')).status).toBe(429);
      sb.setRateLimit(undefined);
      expect((await call(sb, '/api/projects/1/persons/?limit=1')).status).toBe(200);
    } finally {
      await sb.close();
    }
  });
});
