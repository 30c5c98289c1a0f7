// End-to-end: what bulk-delete shows while it plans, asks and runs: the estimate and pacing under
// two scaled-down delete windows, the progress off and on a terminal, the dry run, the exact
// confirmation, and CSV piped in from hogctl's own `-o csv`. The long waits for a window (on a
// terminal, and a resumed run counting the earlier one's requests) and a chunk retried in the
// bar run in-process on virtual time: test/virtual/bulk-windows.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld, type World } from './harness.js';
import { runInTerminal } from './terminal.js';

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

const bulkRequests = (w: World, since = 0) => w.sandbox.requests.slice(since).filter((r) => r.path.endsWith('/persons/bulk_delete/'));

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
    const requests = bulkRequests(world);
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

describe('the plan and the question on a terminal', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ persons: 300 });
  });
  afterAll(() => world.close());

  const uuids = (from: number, n: number) => world.sandbox.store.list({}, from, n).map((p) => p.uuid);

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

  it('asks with the exact words: "3 persons and their events"', async () => {
    const path = join(dir, 'ask.txt');
    writeFileSync(path, uuids(10, 3).join('\n'));
    const res = await runInTerminal(['persons', 'bulk-delete', '--file', path, '--delete-events'], world.env, [
      { when: 'Go ahead?', send: 'n\r' },
    ]);
    expect(res.output).toContain(`This deletes 3 persons and their events in project 1 on ${world.sandbox.url}.`);
    expect(res.code).toBe(130);
    expect(bulkRequests(world)).toEqual([]);
  });

  it('more than 100 persons from a file are confirmed by typing the count, as a selection is', async () => {
    const path = join(dir, 'typed.txt');
    writeFileSync(path, uuids(100, 150).join('\n'));
    const res = await runInTerminal(
      ['persons', 'bulk-delete', '--file', path],
      world.env,
      [
        { when: 'Type 150 to confirm', send: '15\r' },
        { when: 'that is not 150', send: '\x15\r' },
      ],
      30_000,
      { columns: 80, rows: 24 },
    );
    expect(res.output).toContain('This deletes 150 persons');
    expect(res.code).toBe(130);
    expect(bulkRequests(world)).toEqual([]);
  });

  it('the plan of an update names the changes it writes, and a dry run changes nothing', async () => {
    const res = await world.run([
      'persons',
      'bulk-update',
      '--where',
      'plan=free',
      '--set',
      'plan=starter',
      '--unset',
      'sessions',
      '--dry-run',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/\(dry run: nothing will be changed\)$/m);
    expect(res.stderr).toMatch(/^ {2}changes {3}set plan="starter" · unset sessions \(through capture\)$/m);
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

describe('the end of a run on a terminal', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ persons: 30 });
  });
  afterAll(() => world.close());

  it('on a terminal a run ends with a line that points at the receipt, not thirty fields', async () => {
    const path = join(dir, 'short.txt');
    writeFileSync(
      path,
      world.sandbox.store
        .list({}, 20, 3)
        .map((p) => p.uuid)
        .join('\n'),
    );
    const receipt = join(dir, 'short.receipt.json');
    const res = await runInTerminal(
      ['persons', 'bulk-delete', '--file', path, '--receipt', receipt, '-y', '--no-verify'],
      world.env,
      [],
      30_000,
      {
        columns: 80,
        rows: 24,
      },
    );
    expect(res.code, res.output).toBe(0);
    expect(res.output).toContain('completed: every count is in the receipt, and -o json prints them here');
    expect(res.output).not.toMatch(/^(chunks_failed|id_list_sha256|persons_deleted)\b/m);
    const lines = res.output.replace(/\r/g, '').split('\n').filter(Boolean);
    expect(lines.length).toBeLessThanOrEqual(24);
    // Piped, the record keeps every field for scripts.
    const piped = await world.run([
      'persons',
      'bulk-delete',
      '--file',
      path,
      '--receipt',
      join(dir, 'piped.receipt.json'),
      '-y',
      '--no-verify',
    ]);
    expect(piped.stdout).toMatch(/^id_list_sha256\t/m);
  });
});
