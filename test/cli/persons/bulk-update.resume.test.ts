// `persons bulk-update --resume` through capture: the first run recorded each person's distinct
// ids before it sent anything, and addresses the events by them. A resume reads the persons it
// has not updated yet again, so that an id that names another person now (an identify, a split,
// a merge since) does not carry the change to that person.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';

let world: World;
let dir: string;
beforeAll(async () => {
  world = await startWorld({ persons: 200, seed: 71, applyDelayMs: 0 });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-update-resume-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

const propsOf = (id: number) => world.sandbox.store.getById(id)!.properties;
const settle = () => new Promise((r) => setTimeout(r, 200));

describe('persons bulk-update --resume', () => {
  it('sends the change to the person named, by a distinct id that names it now, not by one that moved to another', async () => {
    const [a, b] = world.sandbox.store.list({}, 140, 10).filter((p) => p.distinctIds.length >= 2);
    const file = join(dir, 'moved.txt');
    writeFileSync(file, `${a.uuid}\n`);
    const journal = join(dir, 'moved.ndjson');
    const args = ['persons', 'bulk-update', '--file', file, '--set', 'moved=1', '--journal', journal, '-y'];
    expect((await world.run([...args, '--no-verify'])).code).toBe(0);
    await settle();
    // As a run killed once the distinct ids were recorded, before its first request.
    const lines = readFileSync(journal, 'utf8').trim().split('\n');
    writeFileSync(
      journal,
      `${lines
        .slice(
          0,
          lines.findIndex((l) => JSON.parse(l).type === 'sending'),
        )
        .join('\n')}\n`,
    );
    world.sandbox.store.unsetProperties(a.id, ['moved']);
    // Meanwhile the distinct id the first run would address went to person b.
    const recorded = lines.map((l) => JSON.parse(l)).find((r) => r.type === 'recorded').persons[a.uuid][0];
    world.sandbox.store.moveDistinctId(recorded, b.id);

    const resumed = await world.run([...args, '--resume']);
    await settle();
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(propsOf(b.id).moved).toBeUndefined();
    expect(propsOf(a.id).moved).toBe(1);
  });
});
