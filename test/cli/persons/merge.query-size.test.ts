// The size of a query (src/hogql/query-size.ts) against a sandbox that refuses SQL text over
// ClickHouse's max_query_size as PostHog does (500 "Query size exceeded.", the sandbox's
// default): `persons merge` of a group named by 7,000 UUIDs reads them in batches that fit, where
// one `IN {persons}` of 7,000 UUIDs is 280 KB. In this process (test/cli/virtual-harness.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

describe('a list too long for one query', () => {
  let world: VirtualWorld;
  beforeAll(async () => {
    world = await startVirtualWorld({ persons: 7_000, seed: 4, eventsPerPerson: 0 });
  });
  afterAll(() => world.close());

  it('persons merge --dry-run of 7,000 UUIDs reads them in queries PostHog takes', async () => {
    const uuids = [...world.sandbox.store].map((p) => p.uuid);
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'merge', ...uuids, '--dry-run', '-o', 'json']);
    const queries = world.sandbox.requests.slice(before).filter((r) => r.path.endsWith('/query/'));
    expect(queries.filter((r) => r.status === 500)).toEqual([]);
    expect(res.stderr).not.toMatch(/Query size exceeded/);
    expect(queries.length).toBeGreaterThan(2);
    expect(res.code, res.stderr).toBe(0);
  });
});
