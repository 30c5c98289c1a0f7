// Waiting out the server's query limit between pages (the legacy HogQL limit is 120 queries an
// hour), in this process on virtual time (test/cli/virtual-harness.ts): `persons query --all` and the
// persons behind an insight wait as long as the server asks, with a line saying until when, and
// --max-wait caps each wait, not their sum. The same wait-and-countdown against the built binary
// on the real clock: test/e2e/persons-list-all.test.ts ("persons list --all under the read limit"),
// and the stops past --max-wait in test/e2e/persons-query.test.ts and insight-actors.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { funnelPeople } from '@hogctl/sandbox';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

const lines = (text: string) => text.trim().split('\n').filter(Boolean);
const countdown = (what: string) =>
  new RegExp(`^rate-limited by the server \\(${what}\\): waiting \\d+s, until \\d\\d:\\d\\d:\\d\\d \\(Ctrl-C stops\\)$`, 'm');

describe('persons query --all under the legacy HogQL limit (scaled down here)', () => {
  // Seven pages, as 30,000 persons make at the default largest page of 5,000.
  const PERSONS = 3_000;
  let world: VirtualWorld;
  beforeAll(async () => {
    world = await startVirtualWorld({ persons: PERSONS, seed: 11 });
  });
  afterAll(() => world.close());

  /** The sandbox's persons in the order --all pages them: created_at DESC, then the UUID DESC. */
  const inKeysetOrder = () =>
    [...world.sandbox.store].sort((a, b) => b.createdAtUs - a.createdAtUs || (a.uuid < b.uuid ? 1 : a.uuid > b.uuid ? -1 : 0));

  it('waits as long as the server asks, saying until when, and prints every row once', async () => {
    world.sandbox.setRateLimit('query=3/3s');
    try {
      const before = world.sandbox.requests.length;
      const res = await world.run(['persons', 'query', 'SELECT id FROM persons', '--all', '--page-size', '500', '-o', 'ndjson']);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toMatch(countdown('HogQL queries per hour'));
      const ids = lines(res.stdout).map((l) => JSON.parse(l).id);
      expect(ids).toEqual(inKeysetOrder().map((p) => p.uuid));
      expect(world.sandbox.requests.slice(before).some((r) => r.status === 429)).toBe(true);
    } finally {
      world.sandbox.setRateLimit();
    }
  });

  it('--max-wait caps each wait, not their sum: waits that add up to more than it are all waited out', async () => {
    // Seven queries at two per 2 s: three waits of up to 2 s each, more than 3 s in all.
    world.sandbox.setRateLimit('query=2/2s');
    try {
      const started = world.clock.now();
      const res = await world.run([
        'persons',
        'query',
        'SELECT id FROM persons',
        '--all',
        '--page-size',
        '500',
        '--max-wait',
        '3s',
        '-o',
        'ndjson',
      ]);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr.match(/^rate-limited by the server \(HogQL queries per hour\): waiting/gm)?.length).toBeGreaterThanOrEqual(2);
      expect(world.clock.now() - started).toBeGreaterThan(3000);
      expect(lines(res.stdout).map((l) => JSON.parse(l).id)).toEqual(inKeysetOrder().map((p) => p.uuid));
    } finally {
      world.sandbox.setRateLimit();
    }
  });
});

describe('the persons behind an insight, with a personal key', () => {
  let world: VirtualWorld;
  beforeAll(async () => {
    world = await startVirtualWorld({ persons: 4000, seed: 8 });
  });
  afterAll(() => world.close());

  it("waits out the query endpoint's limit between pages, saying until when", async () => {
    world.sandbox.setRateLimit('query=1/3s');
    try {
      const res = await world.run([
        'persons',
        'funnel',
        '--events',
        '[{"id": "a"}, {"id": "b"}]',
        '--funnel-step',
        '1',
        '--all',
        '--page-size',
        '1500',
        '-o',
        'ndjson',
      ]);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toMatch(countdown('queries per hour'));
      expect(lines(res.stdout).map((l) => JSON.parse(l).id)).toEqual(funnelPeople(world.sandbox.store, 2, 1).map((p) => p.uuid));
    } finally {
      world.sandbox.setRateLimit();
    }
  });
});
