// Reliability: `persons list --all` while persons are being deleted. The list pages by offset,
// so every deletion above the current page shifts the rest up by one, and a plain next page
// skips that many persons (a third of the survivors went missing this way). Every person that
// existed throughout must be listed exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { BIN, cleanEnv, startWorld, type World } from '../e2e/harness.js';

let world: World;
beforeAll(async () => {
  world = await startWorld({ persons: 3000, seed: 23 });
});
afterAll(() => world.close());

describe('persons list --all while persons are deleted', () => {
  it('lists every person that existed throughout exactly once', async () => {
    const before = new Set([...world.sandbox.store].map((p) => p.uuid));
    // Each page takes a moment, so that deletions land between pages.
    world.sandbox.setFaults('slow=1@60,method=GET,path=/persons/');
    const child = spawn(process.execPath, [BIN, 'persons', 'list', '--all', '--page-size', '100', '-o', 'ndjson'], {
      env: cleanEnv(world.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let running = true;
    void exited.then(() => (running = false));
    // Meanwhile: the six newest persons go every 20 ms, always above the page being read.
    let deleted = 0;
    try {
      while (running) {
        for (const p of world.sandbox.store.list({}, 0, 6)) if (world.sandbox.store.delete(p.uuid)) deleted++;
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      world.sandbox.setFaults();
    }
    expect(await exited, stderr).toBe(0);
    expect(deleted).toBeGreaterThan(100);
    const listed = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id as string);
    expect(new Set(listed).size, 'no person twice').toBe(listed.length);
    const survivors = [...before].filter((uuid) => world.sandbox.store.getByUuid(uuid));
    const seen = new Set(listed);
    expect(survivors.filter((uuid) => !seen.has(uuid))).toEqual([]);
  });
});
