// Memory that does not grow into the gigabytes with the input: a bulk-delete of 400,000 person ids,
// interrupted and resumed, each run in a V8 heap of 64 MiB. Before the ids were held compactly
// (src/bulk/input/id-set.ts), the journal read back into the input's own strings and the receipt
// written as it is made, the resume alone needed well over twice that and died out of memory.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, startWorld, type World } from '../e2e/harness.js';

const IDS = 400_000;
const HEAP = { NODE_OPTIONS: '--max-old-space-size=64' };

let world: World;
let dir: string;
beforeAll(async () => {
  world = await startWorld({ persons: 10 });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-memory-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Bulk requests the server carried out (202), so far. */
const carriedOut = () => world.sandbox.requests.filter((r) => r.path.endsWith('/bulk_delete/') && r.status === 202).length;

describe(`a bulk-delete of ${IDS.toLocaleString('en-US')} ids in a 64 MiB heap`, () => {
  it('runs, is interrupted, and resumes to a receipt listing every id', async () => {
    // Ids of no person: the server answers them as it would real ones, and memory is the point.
    const ids = Array.from({ length: IDS }, () => randomUUID());
    const file = join(dir, 'ids.txt');
    writeFileSync(file, `${ids.join('\n')}\n`);
    const journal = join(dir, 'ids.ndjson');
    const receipt = join(dir, 'ids.receipt.json');
    const env = { ...world.env, ...HEAP };
    const common = ['persons', 'bulk-delete', '--file', file, '--journal', journal, '--no-verify', '-y', '-o', 'json'];

    const first = spawnCli([...common, '--receipt', receipt, '--rate', '100000/min', '--concurrency', '8'], env);
    const stopped = first.exited.then(() => true);
    while (carriedOut() < 150 && !(await Promise.race([stopped, new Promise((r) => setTimeout(() => r(false), 50))]))) {
      // waiting for the run to be well under way
    }
    first.child.kill('SIGINT');
    const run = await first.exited;
    // 130: interrupted; 0: it finished first on a fast machine. Never a death out of memory.
    expect(run.stderr).not.toMatch(/heap out of memory/);
    expect([0, 130]).toContain(run.code);

    const resumed = spawnCli([...common, '--resume'], env);
    const end = await resumed.exited;
    expect(end.stderr).not.toMatch(/heap out of memory/);
    expect(end.code, end.stderr.slice(-2000)).toBe(0);
    expect(JSON.parse(end.stdout)).toMatchObject({ status: 'completed', unique: IDS, sent: IDS, failed: 0, not_sent: 0 });
    const written = JSON.parse(readFileSync(receipt, 'utf8')) as { projects: { ids_sent: string[] }[] };
    expect(written.projects[0].ids_sent).toHaveLength(IDS);
    expect(new Set(written.projects[0].ids_sent)).toEqual(new Set(ids));
  }, 120_000);
});
