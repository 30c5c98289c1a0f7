// `persons bulk-delete`, in this process: what it shows while it plans and runs: the estimate and
// pacing under two scaled-down delete windows, the progress off a terminal, the dry run, and CSV
// piped in from hogctl's own `-o csv`. The question and the end of a run on a real terminal are
// test/e2e/bulk-delete-terminal.test.ts; the long waits for a window (on a terminal, and a resumed
// run counting the earlier one's requests) and a chunk retried in the bar run on virtual time:
// test/cli/persons/bulk-delete.windows.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld, type World } from '../harness.js';
import { bulkRequests } from './bulk-delete-fixtures.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hogctl-bulk-plan-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file of `n` UUIDs that match no person: the server ignores them, the pacing is the same. */
function unknownIds(name: string, n: number): string {
  const path = join(dir, name);
  writeFileSync(path, Array.from({ length: n }, () => randomUUID()).join('\n'));
  return path;
}

describe('two delete windows, scaled down', () => {
  let world: World;
  beforeAll(async () => {
    // PostHog's 480/minute + 4800/hour, scaled: 4 a second and 8 in 6 seconds.
    world = await startWorld({ persons: 20, rateLimit: 'delete=4/1s,8/6s' });
  });
  afterAll(() => world.close());

  it('keeps to both without a 429, estimates the time, and says which window it waits for off a terminal', async () => {
    const path = unknownIds('windows.txt', 12_000);
    const res = await world.run(['persons', 'bulk-delete', '--file', path, '--rate', '4/s,8/6s', '-y'], {
      env: { HOGCTL_PROGRESS_INTERVAL: '0.3', TZ: 'UTC' },
    });
    expect(res.code).toBe(0);
    const requests = bulkRequests(world, 0);
    expect(requests).toHaveLength(12);
    expect(requests.filter((r) => r.status === 429)).toEqual([]);
    // 8 requests, then a wait for the long window (6 s after the first answer), then 4 more.
    expect(res.stderr).toMatch(
      /budget +4\/s \+ 8\/6s requests, 4 in flight; estimated time about [6-9]s \(at ~0\.5 s a request; 4\/s and 8\/6s cap it/,
    );
    expect(res.stderr).toMatch(
      /^progress: \d,000\/12,000 ids \d+% · \d+ req\/min · ETA \d+s · waiting for the 8\/6s window until \d\d:\d\d:\d\d$/m,
    );
    expect(res.stderr).toMatch(/✔ 0 persons deleted \(0 found\) from 12,000 ids sent/);
  });
});

describe('the plan', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ persons: 300 });
  });
  afterAll(() => world.close());

  const uuids = (from: number, n: number) => world.sandbox.store.listUuids(from, n);

  it('--dry-run prints the plan only, no table of zeros', async () => {
    const path = join(dir, 'dry.txt');
    writeFileSync(path, uuids(0, 5).join('\n'));
    const res = await world.run(['persons', 'bulk-delete', '--file', path, '--dry-run']);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^Plan: delete persons by person id \(dry run: nothing will be sent\)$/m);
    expect(res.stderr).toMatch(/budget +480\/min \+ 4,800\/h requests/);
    expect(res.stderr.trimEnd().split('\n').at(-1)).toBe('dry run: nothing was sent');
  });
});

describe('CSV from hogctl -o csv on standard input', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ persons: 30 });
  });
  afterAll(() => world.close());

  it('is read by its header, taking the uuid column', async () => {
    const list = await world.run(['persons', 'list', '-o', 'csv', '--limit', '4', '--fields', 'id,uuid,properties.email']);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[0]).toBe('id,uuid,properties.email');
    const res = await world.run(['persons', 'bulk-delete', '--file', '-', '-y', '-o', 'json'], { stdin: list.stdout });
    expect(res.stderr).toContain('reading the ids from the "uuid" column of the CSV header');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ status: 'completed', unique: 4, persons_deleted: 4 });
    expect(world.sandbox.store.size).toBe(26);
  });
});
