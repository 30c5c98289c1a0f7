// The persons behind insights with a personal key: the legacy lists refuse keys, so funnel,
// lifecycle and trends ask the query endpoint for an actors query (docs/server-contract.md §7.1), paging
// with limit/offset while hasMore; --legacy (or a session alone) keeps the old lists. In this
// process (test/cli/harness.ts); the continuation run as printed: test/e2e/insight-actors.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';
import { funnelPeople, lifecyclePeople } from '@hogctl/sandbox';

let world: World;
beforeAll(async () => {
  world = await startWorld({ persons: 4000, seed: 8 });
});
afterAll(() => world.close());

const queries = (before: number) =>
  world.sandbox.requests
    .slice(before)
    .filter((r) => r.path === '/api/projects/1/query/')
    .map((r) => JSON.parse(r.body!).query);
const ids = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l).id as string);

describe('persons funnel, lifecycle and trends with a personal key', () => {
  it('funnel asks for a FunnelsActorsQuery and --all pages through every person of the step', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run([
      'persons',
      'funnel',
      '--events',
      '[{"id": "$pageview", "order": 0}, {"id": "signed_up", "order": 1}]',
      '--funnel-step',
      '2',
      '--date-from',
      '-30d',
      '--all',
      '-o',
      'ndjson',
    ]);
    expect(res.code, res.stderr).toBe(0);
    const expected = funnelPeople(world.sandbox.store, 2, 2).map((p) => p.uuid);
    expect(expected.length).toBeGreaterThan(1000);
    expect(ids(res.stdout)).toEqual(expected);
    const sent = queries(before);
    // The largest page the server says more follow after: one query for these.
    expect(sent.map((q) => [q.limit, q.offset])).toEqual([[49_999, 0]]);
    expect(sent[0]).toMatchObject({
      kind: 'ActorsQuery',
      select: ['actor'],
      source: {
        kind: 'FunnelsActorsQuery',
        funnelStep: 2,
        source: {
          kind: 'FunnelsQuery',
          series: [
            { kind: 'EventsNode', event: '$pageview' },
            { kind: 'EventsNode', event: 'signed_up' },
          ],
          dateRange: { date_from: '-30d' },
        },
      },
    });
    // Nothing went to the legacy list, which would refuse the key.
    expect(world.sandbox.requests.slice(before).some((r) => r.path.includes('/persons/funnel/'))).toBe(false);
  });

  it('lifecycle asks for an InsightActorsQuery over a LifecycleQuery with day and status', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run([
      'persons',
      'lifecycle',
      '--events',
      '[{"id": "$pageview"}]',
      '--target-date',
      '2025-06-01',
      '--lifecycle-type',
      'dormant',
      '--all',
      '-o',
      'ndjson',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(ids(res.stdout)).toEqual(lifecyclePeople(world.sandbox.store, '2025-06-01', 'dormant').map((p) => p.uuid));
    expect(queries(before)[0]).toMatchObject({
      kind: 'ActorsQuery',
      source: { kind: 'InsightActorsQuery', day: '2025-06-01', status: 'dormant', source: { kind: 'LifecycleQuery' } },
    });
  });

  it('trends (new) asks for an InsightActorsQuery over a TrendsQuery with day and series; without --all it says there are more', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run([
      'persons',
      'trends',
      '--events',
      '[{"id": "$pageview"}, {"id": "signed_up"}]',
      '--series',
      '1',
      '--day',
      '2030-01-01',
      '-o',
      'ndjson',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(ids(res.stdout)).toHaveLength(100);
    expect(res.stderr).toContain('100 persons shown; there are more: add --all');
    expect(queries(before)[0]).toMatchObject({
      limit: 100,
      offset: 0,
      source: { kind: 'InsightActorsQuery', day: '2030-01-01', series: 1, source: { kind: 'TrendsQuery' } },
    });
  });

  it('--legacy uses the legacy list, which refuses the key (exit 4, saying to sign in); a key without query:read is refused (exit 4)', async () => {
    const legacy = await world.run(['persons', 'funnel', '--legacy', '--events', '[{"id": "a"}, {"id": "b"}]']);
    expect(legacy.code).toBe(4);
    expect(legacy.stderr).toContain('needs a signed-in session');
    const readOnly = world.sandbox.addKey(['person:read']);
    const refused = await world.run(['persons', 'trends', '--events', '[{"id": "a"}]', '--day', '2030-01-01'], {
      env: { HOGCTL_API_KEY: readOnly },
    });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/query:read/);
  });

  // Waiting out the query limit between pages runs on virtual time: test/cli/persons/query.limits.test.ts.
  it('--page-size pages with limit and offset, up to the largest page the server pages on', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run([
      'persons',
      'funnel',
      '--events',
      '[{"id": "a"}, {"id": "b"}]',
      '--all',
      '--page-size',
      '1000',
      '-o',
      'ndjson',
    ]);
    expect(res.code, res.stderr).toBe(0);
    const expected = funnelPeople(world.sandbox.store, 2, 1).map((p) => p.uuid);
    expect(ids(res.stdout)).toEqual(expected);
    expect(queries(before).map((q) => [q.limit, q.offset])).toEqual(
      Array.from({ length: Math.ceil(expected.length / 1000) }, (_, i) => [1000, i * 1000]),
    );
    const tooBig = await world.run(['persons', 'funnel', '--events', '[{"id": "a"}, {"id": "b"}]', '--all', '--page-size', '50000']);
    expect(tooBig.code).toBe(2);
    expect(tooBig.stderr).toContain('invalid --page-size 50000: the server says whether more persons follow only on pages of up to 49,999');
  });

  it('stopped on its first query, prints the command to run again; --offset and --max-wait are refused with --legacy', async () => {
    world.sandbox.setRateLimit('query=1/1h');
    let res;
    try {
      expect((await world.run(['persons', 'query', 'SELECT count() FROM persons'])).code).toBe(0);
      res = await world.run(['persons', 'trends', '--events', '[{"id": "a"}]', '--day', '2030-01-01', '--all', '--max-wait', '5s']);
    } finally {
      world.sandbox.setRateLimit();
    }
    expect(res.code).toBe(6);
    expect(res.stderr).toContain(
      'no persons printed; run it again with:\n  hogctl persons trends --day 2030-01-01 --events \'[{"id": "a"}]\' --all --max-wait 5s\n',
    );
    for (const flag of [
      ['--offset', '10'],
      ['--max-wait', '1m'],
      ['--page-size', '10'],
    ]) {
      const legacy = await world.run(['persons', 'funnel', '--legacy', '--events', '[{"id": "a"}, {"id": "b"}]', '--all', ...flag]);
      expect(legacy.code).toBe(2);
      expect(legacy.stderr).toContain(`${flag[0]} applies to the query endpoint's actors query, not to the legacy list`);
    }
  });
});
