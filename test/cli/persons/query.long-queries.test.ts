// PostHog's time limit for HogQL queries sent with an API key, against a sandbox that applies it
// (scaled: 1,000 rows a second, a 1-second ceiling; packages/sandbox/src/query-limits.ts), in this
// process on virtual time (test/cli/virtual-harness.ts). The scans of `events` run as async queries,
// which the limit leaves out, and are cancelled on Ctrl-C; a blocking query past the limit is
// named at once, not sent five more times.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

const LIMITS = 'time=1,rows-per-second=1000';

describe("PostHog's time limit for API queries", () => {
  let world: VirtualWorld;
  beforeAll(async () => {
    // 300 persons and 2,400 events: a scan of the persons is 0.3 s, of the events 2.4 s.
    world = await startVirtualWorld({ persons: 300, seed: 5, eventsPerPerson: 8, queryLimits: LIMITS });
  });
  afterEach(() => world.sandbox.setQueryLimits(LIMITS));
  afterAll(() => world.close());
  const queries = (before: number) => world.sandbox.requests.slice(before).filter((r) => /\/query\//.test(r.path));

  it('a blocking query past it is named with what to narrow, exit 7, and not sent again', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'query', 'SELECT count() FROM events']);
    expect(res.code, res.stderr).toBe(7);
    expect(res.stderr).toMatch(/the query "hogctl[^"]*" hit PostHog's 1-second time limit for queries sent with an API key/);
    expect(res.stderr).toContain('This query hit the 1-second time limit for queries run through the API.');
    expect(queries(before).map((r) => r.status)).toEqual([504]);
  });

  it('persons duplicates counts every event (--events-since all) in async queries the limit does not stop', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'duplicates', '--by', 'plan', '--max-group', '1000', '--events-since', 'all', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    const groups = JSON.parse(res.stdout) as { persons: { event_count: number }[] }[];
    const events = groups.flatMap((g) => g.persons).reduce((n, p) => n + p.event_count, 0);
    expect(events).toBeGreaterThan(0);
    const sent = queries(before);
    expect(sent.some((r) => r.status === 504)).toBe(false);
    expect(sent.some((r) => r.method === 'POST' && r.status === 202)).toBe(true);
  });

  it('persons duplicates counts the events of the last 90 days by default, a range ClickHouse reads alone', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'duplicates', '--by', 'plan', '--max-group', '1000', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    const counts = queries(before).filter((r) => r.body.includes('events by distinct id'));
    expect(counts.length).toBeGreaterThan(0);
    for (const r of counts) {
      const { query, refresh } = JSON.parse(r.body);
      expect(refresh).toBe('async');
      expect(query.query).toMatch(/timestamp >= toDateTime\(\{since\}\)/);
      // Ninety days before the run started (the clock has moved on by the polls since).
      expect(world.clock.now() - 90 * 86_400_000 - Date.parse(query.values.since)).toBeGreaterThanOrEqual(0);
      expect(world.clock.now() - 90 * 86_400_000 - Date.parse(query.values.since)).toBeLessThan(60_000);
    }
  });

  it('Ctrl-C while an async query runs cancels it on the server (DELETE /query/{id}/)', async () => {
    // No ceiling, and slow: the count (48 s) is still running when Ctrl-C comes.
    world.sandbox.setQueryLimits('rows-per-second=50');
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'duplicates', '--by', 'plan', '--max-group', '1000', '--events-since', 'all', '--debug'], {
      interruptWhen: /query\/ → 202/,
    });
    expect(res.code, res.stderr).toBe(130);
    const deleted = queries(before).filter((r) => r.method === 'DELETE');
    expect(deleted).toHaveLength(1);
    expect(deleted[0].status).toBe(200);
  });
});
