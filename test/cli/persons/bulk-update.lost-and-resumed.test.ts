// `persons bulk-update` when a run does not end as planned:
// - the answer of a write is lost after the server did it (a timeout, a proxy's 504 after the
//   work): the change is on the server, so the receipt may not call it a plain failure; it names
//   the request as unclear, its ids as unconfirmed, and --resume sends them again;
// - a run is resumed through capture: the first run recorded each person's distinct ids before it
//   sent anything, and addresses the events by them. A resume reads the persons it has not
//   updated yet again, so that an id that names another person now (an identify, a split, a
//   merge since) does not carry the change to that person.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Person } from '@hogctl/sandbox';
import { startWorld, type World } from '../harness.js';

let world: World;
let dir: string;
let cursor = 0;

beforeAll(async () => {
  world = await startWorld({ persons: 200, seed: 71, applyDelayMs: 0 });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-update-lost-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

function take(n: number): Person[] {
  const out = [...world.sandbox.store].filter((p) => p.distinctIds.length > 0).slice(cursor, cursor + n);
  cursor += n;
  return out;
}

describe('bulk-update: a lost answer after the work', () => {
  it.each([
    // The sandbox's capture has no -after faults: a slow batch the client gives up on is taken all
    // the same (faults.ts `slow`), which is the same lost answer.
    ['capture', ['--timeout', '1'], 'slow=1@1500,path=/batch/'],
    ['api', ['--via', 'api'], '504-after=1,path=/persons/,method=PATCH'],
  ])('through %s: the receipt names the request as unclear, not as a plain failure', async (via, extra, faults) => {
    const persons = take(2);
    const file = join(dir, `lost-${via}.txt`);
    writeFileSync(file, `${persons.map((p) => p.uuid).join('\n')}\n`);
    const receipt = join(dir, `lost-${via}.receipt.json`);
    const args = ['persons', 'bulk-update', '--file', file, '--set', `lost_${via}=yes`, ...extra];
    const res = await world.withFaults(faults, () =>
      world.run([...args, '--retries', '0', '--concurrency', '1', '--receipt', receipt, '-y']),
    );
    // Capture takes the slow batch once the client has given up on it.
    await new Promise((r) => setTimeout(r, 1600));
    for (const p of persons) expect(world.sandbox.store.getById(p.id)!.properties[`lost_${via}`]).toBe('yes');
    expect(res.code, res.stderr).toBe(8);
    expect(res.stderr).toMatch(/went out in requests that had an attempt without a clear answer/);
    const r = JSON.parse(readFileSync(receipt, 'utf8'));
    expect(r.counts).toMatchObject({ unconfirmed: 2 });
    expect(r.unclear_requests).toMatchObject({ ids: 2 });
  });
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
