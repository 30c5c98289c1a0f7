// `persons merge` when capture took a group's events but every answer was lost (the client timed
// out): the group may be merged, so the receipt does not call it "not sent"; it names the request
// as unclear, and --resume sends the same events again and reads the group back.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';
import { captureInto } from './merge-fixtures.js';

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 10, applyDelayMs: 0 });
});
afterAll(() => world.close());

const person = (distinctId: string, name: string) =>
  captureInto(world.sandbox, [{ event: '$identify', distinct_id: distinctId, properties: { $set: { name } } }]);
const uuidOf = (id: string) => world.sandbox.store.getByDistinctId(id)?.uuid;

describe('persons merge: lost answers', () => {
  it('a group whose events capture took but whose answers were lost is unclear, not "not sent"; --resume finds it merged', async () => {
    await person('lost-keep', 'K');
    await person('lost-other', 'O');
    await new Promise((r) => setTimeout(r, 50));
    const receipt = join(world.configDir, 'lost.receipt.json');
    const args = ['persons', 'merge', 'lost-keep', 'lost-other', '--yes', '--receipt', receipt];
    // Every attempt waits 1.05 s for its answer, and the client gives up after 1 s.
    world.sandbox.setFaults('slow=1@1050,path=/batch/');
    const res = await world.run([...args, '--timeout', '1']).finally(() => world.sandbox.setFaults(undefined));
    // Capture takes the slow batches once the client has given up on them.
    await new Promise((r) => setTimeout(r, 1100));
    expect(uuidOf('lost-keep')).toBe(uuidOf('lost-other'));
    expect(res.code, res.stderr).toBe(8);
    expect(res.stderr).toMatch(/went out in requests that had an attempt without a clear answer/);
    const r = JSON.parse(readFileSync(receipt, 'utf8'));
    expect(r.unclear_requests).toMatchObject({ chunks: 1, ids: 1 });
    expect(r.groups).toEqual([
      expect.objectContaining({ status: 'pending', reason: expect.stringMatching(/^sent, but every attempt lost its answer/) }),
    ]);

    const resumed = await world.run([...args, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(readFileSync(receipt, 'utf8')).groups).toEqual([expect.objectContaining({ status: 'merged' })]);
  });
});
