// The bulk engine's pacing under PostHog's delete windows, in this process on virtual time
// (test/cli/virtual-harness.ts): a wait for the long window said on a terminal, a resumed run that
// counts the earlier run's requests, and a chunk retried after a 503. The same behaviours on the
// real clock: test/cli/persons/bulk-delete.plan.test.ts ("two delete windows, scaled down" keeps
// to both windows without a 429 and says which one it waits for off a terminal).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hogctl-windows-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file of `n` UUIDs that match no person: the server ignores them, the pacing is the same. */
function unknownIds(name: string, n: number): string {
  const path = join(dir, name);
  writeFileSync(path, Array.from({ length: n }, () => randomUUID()).join('\n'));
  return path;
}

const bulkRequests = (w: VirtualWorld, since = 0) =>
  w.sandbox.requests.slice(since).filter((r) => r.path.endsWith('/persons/bulk_delete/'));

describe('a long wait for a window, on a terminal', () => {
  let world: VirtualWorld;
  beforeAll(async () => {
    world = await startVirtualWorld({ persons: 5, rateLimit: 'delete=4/1s,8/15s' });
  });
  afterAll(() => world.close());

  it('says in the bar and in a line which window it waits for, and until when', async () => {
    const path = unknownIds('long-wait.txt', 9000);
    const res = await world.run(['persons', 'bulk-delete', '--file', path, '--rate', '4/s,8/15s', '-y'], { terminal: { columns: 100 } });
    expect(res.code, res.stderr).toBe(0);
    // The line above the bar is wrapped at spaces to the 100 columns.
    expect(res.stderr).toMatch(
      /8 requests sent within the 8\/15s window: waiting 1\ds, until \d\d:\d\d:\d\d \(Ctrl-C stops; --resume\s+continues later\)/,
    );
    // A terminal of 100 columns: the bar is cut there, before the time.
    expect(res.stderr).toMatch(/\d,000\/9,000 ids \d+% · \d+ req\/min · ETA \d+s · waiting for the 8\/15s window/);
    expect(bulkRequests(world)).toHaveLength(9);
    expect(bulkRequests(world).filter((r) => r.status === 429)).toEqual([]);
  });
});

describe('a run resumed within the long window', () => {
  let world: VirtualWorld;
  beforeAll(async () => {
    world = await startVirtualWorld({ persons: 5, rateLimit: 'delete=4/1s,8/12s' });
  });
  afterAll(() => world.close());

  it("counts the earlier run's requests from its journal and waits instead of provoking a 429", async () => {
    const path = unknownIds('resume.txt', 12_000);
    const journal = join(dir, 'resume.ndjson');
    const args = ['persons', 'bulk-delete', '--file', path, '--journal', journal, '--rate', '4/s,8/12s', '-y'];
    // First run: stopped with Ctrl-C once it waits for the long window.
    const stopped = await world.run(args, { env: { HOGCTL_PROGRESS_INTERVAL: '0.1' }, interruptWhen: /waiting for the 8\/12s window/ });
    expect(stopped.code, stopped.stderr).toBe(130);
    const first = bulkRequests(world).length;
    expect(first).toBe(8);
    const res = await world.run([...args, '--resume'], { env: { HOGCTL_PROGRESS_INTERVAL: '0.3' } });
    expect(res.code, res.stderr).toBe(0);
    const second = bulkRequests(world, 0).slice(first);
    expect(second.map((r) => r.status)).toEqual([202, 202, 202, 202]);
    expect(res.stderr).toMatch(/waiting for the 8\/12s window until/);
  });
});

describe('a chunk retried after a 503, on a terminal', () => {
  let world: VirtualWorld;
  beforeAll(async () => {
    world = await startVirtualWorld({ persons: 300, faults: '503=0.5,seed=4,path=bulk_delete' });
  });
  afterAll(() => world.close());

  it('shows the chunk being retried, and why, in the progress bar', async () => {
    const path = join(dir, 'retry.txt');
    const real = world.sandbox.store.listUuids(20, 6);
    writeFileSync(path, real.concat(Array.from({ length: 7999 }, () => randomUUID())).join('\n'));
    const res = await world.run(['persons', 'bulk-delete', '--file', path, '-y', '--rate', '6000'], { terminal: { columns: 100 } });
    expect(bulkRequests(world).some((r) => r.status === 503)).toBe(true);
    expect(res.stderr).toMatch(/chunk \d+: 503, retrying in \d+ s/);
    expect(res.code, res.stderr).toBe(0);
    expect(real.filter((id) => world.sandbox.store.getByUuid(id))).toEqual([]);
  });
});
