// Reliability: one run per journal. Two `--resume` runs started together both sent the remaining
// ids and corrupted the counts. Now the second refuses at once (exit 2) naming the run that holds
// the journal, and the lock a SIGKILLed run leaves behind is taken over by the next run.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, startWorld, until, type World } from '../e2e/harness.js';

let world: World;
let dir: string;
beforeAll(async () => {
  world = await startWorld({ persons: 12_000, seed: 9 });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-lock-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

const answered = (journal: string) =>
  existsSync(journal)
    ? readFileSync(journal, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"answered"')).length
    : 0;

describe('two --resume runs on one journal', () => {
  it('the second refuses at once naming the first; the first takes over the stale lock and completes with exact counts', async () => {
    const ids = world.sandbox.store.listUuids(0, 12_000);
    const input = join(dir, 'ids.txt');
    writeFileSync(input, ids.join('\n'));
    const journal = join(dir, 'run.ndjson');
    const receipt = join(dir, 'receipt.json');
    const args = [
      'persons',
      'bulk-delete',
      '--file',
      input,
      '--journal',
      journal,
      '--receipt',
      receipt,
      '-y',
      '-o',
      'json',
      '--concurrency',
      '1',
    ];

    // A run killed halfway leaves its journal and its lock.
    const first = spawnCli([...args, '--rate', '300'], world.env);
    await until(() => answered(journal) >= 2, 'two answered chunks');
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(existsSync(`${journal}.lock`)).toBe(true);

    // A: slow enough to still be running when B starts; its verification of 12,000 persons need not
    // take 15 s at the default 240 reads a minute.
    const a = spawnCli([...args, '--resume', '--rate', '120', '--read-rate', '6000'], world.env);
    await until(
      () => existsSync(`${journal}.lock`) && readFileSync(`${journal}.lock`, 'utf8').includes(`"pid":${a.child.pid}`),
      "A's lock",
    );
    const b = spawnCli([...args, '--resume', '--rate', '6000'], world.env);
    const refused = await b.exited;
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^error: another run is using the journal ${journal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: pid ${a.child.pid}, started \\S+$`,
        'm',
      ),
    );
    expect(refused.stderr).toMatch(/wait for it to finish/);
    // B stopped before its plan, so before any request.
    expect(refused.stderr).not.toMatch(/Plan:/);

    const done = await a.exited;
    expect(done.code).toBe(0);
    expect(existsSync(`${journal}.lock`)).toBe(false);
    expect(ids.filter((id) => world.sandbox.store.getByUuid(id))).toEqual([]);
    const r = JSON.parse(readFileSync(receipt, 'utf8'));
    expect(r.status).toBe('completed');
    expect(r.counts).toMatchObject({ requested: 12_000, unique: 12_000, sent: 12_000, failed: 0, not_sent: 0 });
  });
});
