// Reliability: bulk-delete on a full disk (a small tmpfs; mounting one needs root, so these tests
// are skipped elsewhere). No request is ever sent without its journal line; the error says the
// disk is full, what to free or where to move the journal (exit 2 while nothing was sent, 9 once
// something was), and no empty or temporary file is left behind. A journal moved to another disk
// then finishes the run with exact counts. A receipt the disk has room for only part of is never
// named as written: exit 9, and --resume writes it.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../e2e/harness.js';
import { errorLine, expectCleanFailure } from './helpers.js';

const ROOT = process.getuid?.() === 0;

let world: World;
let dir: string;
const mounts: string[] = [];
let cursor = 0;

beforeAll(async () => {
  world = await startWorld({ persons: 8000, seed: 17 });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-full-disk-'));
});
afterAll(async () => {
  for (const m of mounts) spawnSync('umount', [m]);
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A tmpfs of `size` (e.g. 160k), optionally filled up at once; undefined when it cannot be mounted. */
function disk(name: string, size: string, fill: boolean): string | undefined {
  const path = join(dir, name);
  mkdirSync(path);
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', path]).status !== 0) return undefined;
  mounts.push(path);
  if (fill) {
    try {
      writeFileSync(join(path, 'filler'), Buffer.alloc(1024 * 1024));
    } catch {
      // ENOSPC: full, as wanted
    }
  }
  return path;
}

function idsFile(name: string, count: number): { path: string; ids: string[] } {
  const ids = world.sandbox.store
    .list({}, 0, world.sandbox.store.size)
    .slice(cursor, cursor + count)
    .map((p) => p.uuid);
  cursor += count;
  const path = join(dir, `${name}.txt`);
  writeFileSync(path, `${ids.join('\n')}\n`);
  return { path, ids };
}

const bulkPosts = () => world.sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/bulk_delete/')).length;

describe.skipIf(!ROOT)('persons bulk-delete on a full disk', () => {
  it('a disk full from the start: exit 2 naming the disk and what to do, nothing sent, no file left behind', async (t) => {
    const full = disk('full', '64k', true);
    if (!full) return t.skip();
    const { path } = idsFile('full', 10);
    const before = bulkPosts();
    const res = await world.run([
      'persons',
      'bulk-delete',
      '--file',
      path,
      '--journal',
      join(full, 'run.ndjson'),
      '--receipt',
      join(dir, 'full.receipt.json'),
      '-y',
    ]);
    expect(res.code).toBe(2);
    expectCleanFailure(world, res);
    expect(errorLine(res)).toMatch(/^error: cannot open the journal .*run\.ndjson: no space left on the device$/);
    expect(res.stderr).toMatch(
      /free space on the disk of .*full \(`df -h .*full`\), or move the journal to another disk .* --journal <new path> --resume; nothing was sent/,
    );
    expect(bulkPosts()).toBe(before);
    expect(readdirSync(full)).toEqual(['filler']);
  });

  it('a disk that fills up mid-run: every request sent has its journal line; moved elsewhere, the journal finishes the run', async (t) => {
    const small = disk('small', '160k', false);
    if (!small) return t.skip();
    const { path, ids } = idsFile('fills', 6000);
    const journal = join(small, 'run.ndjson');
    const receipt = join(dir, 'fills.receipt.json');
    const before = bulkPosts();
    const res = await world.run([
      'persons',
      'bulk-delete',
      '--file',
      path,
      '--journal',
      journal,
      '--receipt',
      receipt,
      '-y',
      '--concurrency',
      '1',
      '--rate',
      '6000',
    ]);
    // Deletions went out: not 2, which says nothing was sent.
    expect(res.code).toBe(9);
    expectCleanFailure(world, res);
    expect(errorLine(res)).toMatch(
      /^error: cannot write the journal .*run\.ndjson: no space left on the device, after requests were sent: the journal holds every request sent, but may lack the answers of the last ones, and no receipt was written$/,
    );
    expect(res.stderr).toMatch(/no request was sent without its journal line/);
    // Only whole lines count: a line cut short by the full disk is no record of a request sent.
    const whole = readFileSync(journal, 'utf8').split('\n').slice(0, -1);
    const sending = whole.filter((l) => l.includes('"type":"sending"')).length;
    expect(sending).toBeGreaterThan(0);
    expect(bulkPosts() - before).toBe(sending);
    expect(readdirSync(small).sort()).toEqual(['run.ndjson']);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);

    // The journal moved to a disk with room finishes the run; the counts are exact.
    const moved = join(dir, 'moved.ndjson');
    copyFileSync(journal, moved);
    // Verifying 6,000 persons at the default 240 reads a minute takes 8 s: not this test's subject.
    const resumed = await world.run([
      'persons',
      'bulk-delete',
      '--file',
      path,
      '--journal',
      moved,
      '--resume',
      '--read-rate',
      '6000',
      '-y',
      '-o',
      'json',
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(ids.filter((id) => world.sandbox.store.getByUuid(id))).toEqual([]);
    expect(JSON.parse(readFileSync(receipt, 'utf8')).counts).toMatchObject({
      persons_deleted: 6000,
      sent: 6000,
      not_sent: 0,
      unconfirmed: 0,
    });
  });

  it('a receipt on a disk with room for part of it (64 KB of 150): no receipt named, exit 9; --resume writes it elsewhere', async (t) => {
    const small = disk('receipt', '64k', false);
    if (!small) return t.skip();
    // 1,500 UUIDs twice over (ids_sent, distinct_ids): a receipt of about 150 KB, in one write.
    // The last ones of the store: the run above deleted those after the cursor.
    const ids = world.sandbox.store
      .list({}, 0, world.sandbox.store.size)
      .slice(-1500)
      .map((p) => p.uuid);
    const path = join(dir, 'receipt.txt');
    writeFileSync(path, `${ids.join('\n')}\n`);
    const journal = join(dir, 'receipt.ndjson');
    const receipt = join(small, 'r.json');
    const args = ['persons', 'bulk-delete', '--file', path, '--journal', journal, '--read-rate', '6000', '-y'];
    const res = await world.run([...args, '--receipt', receipt, '--rate', '6000']);
    expect(res.code, res.stderr).toBe(9);
    expect(ids.filter((id) => world.sandbox.store.getByUuid(id))).toEqual([]);
    expect(res.stderr).toMatch(/✔ 1,500 persons deleted [^\n]*\n/);
    expect(res.stderr).not.toMatch(/receipt: /);
    expect(errorLine(res)).toMatch(/^error: the receipt .*r\.json could not be written \(no space left on the device\), so there is none/);
    expect(readdirSync(small)).toEqual([]);

    const elsewhere = join(dir, 'receipt.json');
    const resumed = await world.run([...args, '--resume', '--receipt', elsewhere]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(readFileSync(elsewhere, 'utf8')).counts).toMatchObject({ persons_deleted: 1500, sent: 1500 });
  });
});
