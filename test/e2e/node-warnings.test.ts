// End-to-end: a run that goes well prints nothing from node itself; a warning on stderr reads
// as a fault to the person, and a script that treats stderr as an error log fails on it.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';

let world: World;
let dir: string;
beforeAll(async () => {
  world = await startWorld({ persons: 20 });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-warnings-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('node warnings', () => {
  it('bulk-delete with 16 requests in flight prints no MaxListenersExceededWarning', async () => {
    const file = join(dir, 'ids.txt');
    writeFileSync(file, Array.from({ length: 40_000 }, () => randomUUID()).join('\n'));
    const res = await world.run(['persons', 'bulk-delete', '--file', file, '--concurrency', '16', '--no-verify', '-y']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).not.toMatch(/Warning|\(node:\d+\)/);
  });
});
