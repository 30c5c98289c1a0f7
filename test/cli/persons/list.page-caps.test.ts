// The persons list's page cap (docs/server-contract.md §2.1): the ActorsQueryRunner's paginator clamps a page
// to 50,000 rows (MAX_SELECT_RETURNED_ROWS) and then gives no `next`, and the CSV export, which
// never pages, stops there too. Asking for more would silently end a listing at 50,000.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';

let world: World;
beforeAll(async () => {
  world = await startWorld({ persons: 50_005 });
});
afterAll(() => world.close());

describe('hogctl persons list', () => {
  it('refuses --page-size above 50,000 before sending anything (exit 2)', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'list', '--all', '--page-size', '50001']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^error: invalid --page-size 50001: the server returns at most 50,000 persons per page$/m);
    expect(world.sandbox.requests.length).toBe(before);
  });

  it('--server-format csv warns when the export reached the cap, and points to --all -o csv', async () => {
    const res = await world.run(['persons', 'list', '--server-format', 'csv']);
    expect(res.code).toBe(0);
    expect(res.stdout.trim().split('\n').length - 1).toBe(50_000);
    expect(res.stderr).toMatch(
      /warning: the server's CSV export stops at 50,000 rows, so more persons may match: `hogctl persons list --all -o csv` pages through every one/,
    );
  });

  it('no warning for an export below the cap', async () => {
    const res = await world.run(['persons', 'list', '--server-format', 'csv', '--where', 'plan=team']);
    expect(res.code).toBe(0);
    expect(res.stderr).not.toMatch(/warning/);
  });
});
