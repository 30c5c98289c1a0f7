// PostHog's limits on a HogQL query, scaled for tests (src/query-limits.ts): the time ceiling of
// blocking queries sent with a personal key (504 with api_timeout_detail), the async mode that
// escapes it (202, the poll, DELETE to cancel), and ClickHouse's max_query_size (500 "Query size
// exceeded.").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/server.js';
import { apiTimeoutDetail, parseQueryLimitSpec, querySize } from '../src/query-limits.js';
import { call, errorBody, withSandbox } from './helpers.js';

let sb: Sandbox;
let now = Date.parse('2026-06-01T00:00:00Z');
beforeAll(async () => {
  sb = await withSandbox({ persons: 300, seed: 5, applyDelayMs: 30, now: () => now });
});
afterAll(() => sb.close());

const post = (body: unknown) =>
  call(sb, '/api/projects/1/query/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const hogql = (query: string, values: Record<string, unknown> = {}, refresh = 'blocking') => ({
  query: { kind: 'HogQLQuery', query, values },
  name: 't',
  refresh,
});
const control = (spec: string) => call(sb, `/_sandbox/query-limits/${encodeURIComponent(spec)}`, { method: 'POST', key: null });

describe('the time ceiling', () => {
  it('is off by default: a scan of every event answers', async () => {
    expect((await post(hogql('SELECT count() FROM events'))).status).toBe(200);
  });

  it("answers a blocking query over it with 504 and PostHog's words; a time range that reads fewer rows passes", async () => {
    // 900 events at 100 rows a second is 9 s, over a ceiling of 2 s.
    expect((await control('time=2,rows-per-second=100')).status).toBe(200);
    try {
      const res = await post(hogql('SELECT count() FROM events'));
      expect(res.status).toBe(504);
      expect(res.json()).toEqual(errorBody('server_error', 'error', apiTimeoutDetail(2)));
      expect(apiTimeoutDetail(2)).toMatch(
        /^This query hit the 2-second time limit for queries run through the API\. Submit it as an async/,
      );
      // Rows outside the range are not read (ClickHouse prunes by time).
      const narrow = await post(
        hogql('SELECT count() FROM events WHERE timestamp >= toDateTime({from}) AND timestamp <= toDateTime({to})', {
          from: '2100-01-01T00:00:00Z',
          to: '2100-01-02T00:00:00Z',
        }),
      );
      expect(narrow.status).toBe(200);
    } finally {
      await control('off');
    }
  });

  it('runs an async query past the ceiling: 202, polled until its simulated time has passed, then the rows', async () => {
    sb.setQueryLimits('time=2,rows-per-second=100');
    try {
      const started = await post(hogql('SELECT count() FROM events', {}, 'async'));
      expect(started.status).toBe(202);
      const { id } = started.json().query_status;
      expect((await call(sb, `/api/projects/1/query/${id}/`)).status).toBe(202);
      now += 9_000;
      const done = await call(sb, `/api/projects/1/query/${id}/`);
      expect(done.status).toBe(200);
      expect(done.json().query_status).toMatchObject({ id, complete: true, error: false, results: { results: [[900]] } });
    } finally {
      sb.setQueryLimits();
    }
  });

  it('cancels a running async query with DELETE: 200 with a message, and the query is gone', async () => {
    sb.setQueryLimits('rows-per-second=100');
    try {
      const { id } = (await post(hogql('SELECT count() FROM events', {}, 'async'))).json().query_status;
      const cancelled = await call(sb, `/api/projects/1/query/${id}/`, { method: 'DELETE' });
      expect(cancelled.status).toBe(200);
      expect(cancelled.json()).toEqual({ message: 'Query task revoked' });
      now += 60_000;
      expect((await call(sb, `/api/projects/1/query/${id}/`)).status).toBe(404);
    } finally {
      sb.setQueryLimits();
    }
  });
});

describe('the size of the SQL text', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
  const text = 'SELECT count() FROM events WHERE distinct_id IN {ids}';

  it('counts each value as the literal substituted for it', () => {
    expect(querySize('x IN {ids} AND y = {y}', { ids: ['a', "b'c"], y: 3 })).toBe("x IN ('a', 'b\\'c') AND y = 3".length);
  });

  it('answers a query over 262,144 bytes after substitution with 500 "Query size exceeded."', async () => {
    // 40 bytes a UUID with its quotes and separator: 6,600 make 264,000 bytes.
    expect(querySize(text, { ids: ids(6_600) })).toBeGreaterThan(262_144);
    const res = await post(hogql(text, { ids: ids(6_600) }));
    expect(res.status).toBe(500);
    expect(res.json()).toEqual(errorBody('server_error', 'error', 'Query size exceeded.'));
    expect((await post(hogql(text, { ids: ids(6_400) }))).status).toBe(200);
  });

  it('takes another size from the limits', async () => {
    sb.setQueryLimits('size=1000');
    try {
      expect((await post(hogql(text, { ids: ids(30) }))).status).toBe(500);
    } finally {
      sb.setQueryLimits();
    }
  });
});

describe('the limits spec', () => {
  it('reads time, rows-per-second and size, and refuses anything else', async () => {
    expect(parseQueryLimitSpec('time=10,rows-per-second=5000,size=1000')).toEqual({
      timeLimitSeconds: 10,
      rowsPerSecond: 5000,
      maxQuerySize: 1000,
    });
    expect(parseQueryLimitSpec('off').timeLimitSeconds).toBeNull();
    expect(() => parseQueryLimitSpec('time=soon')).toThrow(/invalid query limit "time=soon"/);
    const bad = await control('speed=9');
    expect(bad.status).toBe(400);
    expect(bad.json().detail).toMatch(/invalid query limit/);
  });
});
