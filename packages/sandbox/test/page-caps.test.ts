// The persons list's page cap (docs/server-contract.md §2.1): the ActorsQueryRunner's paginator clamps a page
// to 50,000 rows (MAX_SELECT_RETURNED_ROWS) and then gives no `next`; the CSV export, which never
// pages, stops there too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Person, Sandbox } from '../src/index.js';
import { runActorsQuery } from '../src/actors-query.js';
import { call, withSandbox } from './helpers.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ persons: 50_005 });
});
afterAll(() => sandbox.close());

describe('the sandbox clamps like the server', () => {
  it('a limit above 50,000 returns 50,000 rows and no next', async () => {
    const page = await call(sandbox, '/api/projects/1/persons/?limit=60000');
    const body = page.json();
    expect(body.results).toHaveLength(50_000);
    // The paginator clamped; the view compares with the limit asked for, so there is no next.
    expect(body.next).toBeNull();
  });

  it('the CSV export holds 50,000 rows', async () => {
    const csv = await call(sandbox, '/api/projects/1/persons/?format=csv');
    expect(csv.text.trim().split('\n').length - 1).toBe(50_000);
  });
});

describe('actors queries page as the server does', () => {
  // HogQLHasMorePaginator: limit clamped to 50,000, LIMIT limit + 1 (clamped again by the HogQL
  // printer), hasMore when more than `limit` rows came.
  const store: Person[] = Array.from({ length: 80_000 }, (_, i) => ({
    id: i + 1,
    uuid: `01900000-0000-7000-8000-${String(i + 1).padStart(12, '0')}`,
    createdAt: '2025-01-01T00:00:00.000000Z',
    createdAtUs: Date.UTC(2025, 0, 1) * 1000,
    properties: {},
    distinctIds: [`d${i + 1}`],
    isIdentified: false,
    lastSeenAt: null,
  }));
  const step = (limit?: number, offset?: number) =>
    runActorsQuery(
      {
        kind: 'ActorsQuery',
        select: ['actor'],
        source: { kind: 'FunnelsActorsQuery', funnelStep: 1, source: { kind: 'FunnelsQuery', series: [{}, {}] } },
        limit,
        offset,
      },
      store,
    );

  it('a page of 49,999 says that more follow; one of 50,000 or more is clamped to 50,000 and never does', () => {
    const all = step(50_000).results.length + step(50_000, 50_000).results.length;
    expect(all).toBeGreaterThan(50_000);
    const largest = step(49_999);
    expect(largest).toMatchObject({ limit: 49_999, hasMore: true });
    expect(largest.results).toHaveLength(49_999);
    for (const limit of [50_000, 60_000]) {
      const capped = step(limit);
      expect(capped).toMatchObject({ limit: 50_000, hasMore: false });
      expect(capped.results).toHaveLength(50_000);
    }
  });

  it('no limit, or one of 0, is 100; the last page says no more', () => {
    expect(step()).toMatchObject({ limit: 100, hasMore: true, offset: 0 });
    expect(step(0).results).toHaveLength(100);
    const total = step(50_000).results.length + step(50_000, 50_000).results.length;
    const last = step(10, total - 10);
    expect(last.results).toHaveLength(10);
    expect(last.hasMore).toBe(false);
    expect(step(10, total - 11).hasMore).toBe(true);
  });
});
