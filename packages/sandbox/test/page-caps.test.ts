// The persons list's page cap (docs/server-contract.md §0): the ActorsQueryRunner's paginator clamps a page
// to 50,000 rows (MAX_SELECT_RETURNED_ROWS) and then gives no `next`; the CSV export, which never
// pages, stops there too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/index.js';
import { call, withSandbox } from './helpers.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await withSandbox({ persons: 50_005 });
});
afterAll(() => sandbox.close());

describe('the sandbox clamps like the server', () => {
  it('a limit above 50,000 returns 50,000 rows and no next; the CSV export holds 50,000 rows', async () => {
    const page = await call(sandbox, '/api/projects/1/persons/?limit=60000');
    const body = page.json();
    expect(body.results).toHaveLength(50_000);
    expect(body.next).toBeNull();
    const csv = await call(sandbox, '/api/projects/1/persons/?format=csv');
    expect(csv.text.trim().split('\n').length - 1).toBe(50_000);
  });
});
