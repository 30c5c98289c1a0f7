// After a run, bulk-delete asks the server whether the persons are gone (batch_by_uuids, 200 a
// request, within the read rate) and the receipt says what it found: the server's state now,
// not only its answers. A server that queues deletions may not be done yet: that is a warning
// with the command to check again, which re-checks a finished erasure.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';

let world: World;
let dir: string;
let uuids: string[];
let cursor = 0;

beforeAll(async () => {
  world = await startWorld({ persons: 5000, seed: 43 });
  uuids = world.sandbox.store.listUuids(0, 5000);
  dir = mkdtempSync(join(tmpdir(), 'hogctl-verify-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

function idsFile(name: string, count: number): string {
  const path = join(dir, name);
  writeFileSync(path, `${uuids.slice(cursor, (cursor += count)).join('\n')}\n`);
  return path;
}

const checks = (w: World, since: number) => w.sandbox.requests.slice(since).filter((r) => r.path.endsWith('/batch_by_uuids/'));

describe('verification after a bulk-delete', () => {
  it('says there is nothing to read back when the server found none of the ids', async () => {
    const path = join(dir, 'nobody-known.txt');
    writeFileSync(path, `${Array.from({ length: 5 }, () => randomUUID()).join('\n')}\n`);
    const res = await world.run(['persons', 'bulk-delete', '--file', path, '--receipt', join(dir, 'nobody-known.receipt.json'), '-y']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('verifying: nothing to read back (5 ids the server did not find are not read back)');
  });

  it('speaks of one person as one', async () => {
    const res = await world.run([
      'persons',
      'bulk-delete',
      '--file',
      idsFile('one.txt', 1),
      '--receipt',
      join(dir, 'one.receipt.json'),
      '-y',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('verifying: asking the server whether the person is gone…');
  });

  it('checks every person answered, 200 a request, and records in the receipt that none is left', async () => {
    const receiptPath = join(dir, 'gone.receipt.json');
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'bulk-delete', '--file', idsFile('gone.txt', 1500), '--receipt', receiptPath, '-y']);
    expect(res.code, res.stderr).toBe(0);
    expect(checks(world, before)).toHaveLength(8);
    expect(res.stderr).toContain('verifying: asking the server whether the 1,500 persons are gone…');
    expect(res.stderr).toContain('✔ verified: none of the 1,500 persons exists any more');
    const receipt = JSON.parse(readFileSync(receiptPath, 'utf8'));
    expect(receipt.verification).toMatchObject({ status: 'gone', checked: 1500, still_present: 0, still_present_ids: [] });
  });

  it('--no-verify skips it, and the receipt says it was not checked', async () => {
    const receiptPath = join(dir, 'skip.receipt.json');
    const before = world.sandbox.requests.length;
    const res = await world.run([
      'persons',
      'bulk-delete',
      '--file',
      idsFile('skip.txt', 300),
      '--receipt',
      receiptPath,
      '--no-verify',
      '-y',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(checks(world, before)).toHaveLength(0);
    expect(JSON.parse(readFileSync(receiptPath, 'utf8')).verification).toBeNull();
  });

  it('a server that queued the deletions: a warning with the command to check again, which re-checks (exit 0)', async () => {
    const slow = await startWorld({ persons: 1200, seed: 44, bulkDeleteResponse: 'queued', applyDelayMs: 3_000 });
    try {
      const path = join(dir, 'queued.txt');
      writeFileSync(
        path,
        `${slow.sandbox.store
          .list({}, 0, 1000)
          .map((p) => p.uuid)
          .join('\n')}\n`,
      );
      const receiptPath = join(dir, 'queued.receipt.json');
      const res = await slow.run(['persons', 'bulk-delete', '--file', path, '--receipt', receiptPath, '-y']);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toMatch(
        /1,000 of the 1,000 persons still exist on the server: the server queued their deletion and has not carried it out yet; check again later with:\n\s+hogctl persons bulk-delete --file \S+queued\.txt --resume/,
      );
      expect(JSON.parse(readFileSync(receiptPath, 'utf8')).verification).toMatchObject({ status: 'still_present', still_present: 1000 });
      // Later, the same command checks again and finds them gone.
      await new Promise((r) => setTimeout(r, 3_500));
      const again = await slow.run(['persons', 'bulk-delete', '--file', path, '--resume', '-y']);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain('✔ verified: none of the 1,000 persons exists any more');
      expect(JSON.parse(readFileSync(receiptPath, 'utf8')).verification).toMatchObject({ status: 'gone', checked: 1000 });
    } finally {
      await slow.close();
    }
  });
  it('reads back only what the server reported deleted: ids of a request that found no one are not checked', async () => {
    const known = uuids.slice(cursor, (cursor += 1000));
    const unknown = Array.from({ length: 2000 }, () => randomUUID());
    const path = join(dir, 'unknown.txt');
    writeFileSync(path, `${[...known, ...unknown].join('\n')}\n`);
    const receiptPath = join(dir, 'unknown.receipt.json');
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'bulk-delete', '--file', path, '--receipt', receiptPath, '-y']);
    expect(res.code, res.stderr).toBe(0);
    // The plan counts the reads of the verification: at most one per 200 ids, none for ids the server does not find.
    expect(res.stderr).toMatch(/\n  verify\s+only ids the server reports deleted are read back .*at most 15 reads at 240\/min/);
    expect(res.stderr).toMatch(/estimated time in all about \S+ \(up to \S+ if every id names a person\)/);
    expect(checks(world, before)).toHaveLength(5);
    expect(res.stderr).toContain(
      'verifying: asking the server whether the 1,000 persons are gone… (2,000 ids the server did not find are not read back)',
    );
    const receipt = JSON.parse(readFileSync(receiptPath, 'utf8'));
    expect(receipt.verification).toMatchObject({ status: 'gone', checked: 1000, not_read_back: 2000 });
  });

  it('a looked-up run: the estimate counts the reads of the verification', async () => {
    const emails = world.sandbox.store
      .list({}, 0, 5000)
      .map((p) => p.properties.email)
      .filter((e): e is string => typeof e === 'string')
      .slice(-400);
    const path = join(dir, 'emails.txt');
    writeFileSync(path, `${emails.join('\n')}\n`);
    const res = await world.run(['persons', 'bulk-delete', '--emails', path, '--dry-run']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/\n  verify\s+2 reads of the 400 persons at 240\/min, about \S+; estimated time in all about \S+\n/);
  });
});
