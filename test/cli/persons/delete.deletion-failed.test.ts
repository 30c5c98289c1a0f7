// A server without bulk_delete answers the single DELETE of a person it found but could not delete
// with 503 person_deletion_failed, which asks for the deletion to be sent again: hogctl sends it
// again, with backoff (about 15 s on the real clock before it gives up), in this process on
// virtual time (test/cli/virtual-harness.ts). On the real clock, the same answer through bulk_delete:
// test/cli/persons/delete.deletion-errors.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 10, seed: 47 });
});
afterAll(() => world.close());

const alive = (ids: string[]) => ids.filter((id) => world.sandbox.store.getByUuid(id) !== undefined);

describe('persons delete, of a person the server could not delete', () => {
  it('a server without bulk_delete: the single DELETE answers 503 person_deletion_failed, which is sent again', async () => {
    const [first, second] = world.sandbox.store.listUuids(0, 2);
    world.sandbox.setBulkDeleteResponse('absent');
    try {
      world.sandbox.failDeletions([first]);
      const ok = await world.run(['persons', 'delete', first, '-y']);
      expect(ok.code, ok.stderr).toBe(0);
      expect(alive([first])).toEqual([]);
      world.sandbox.failDeletions([second], 100);
      const failed = await world.run(['persons', 'delete', second, '-y', '--timeout', '5']);
      expect(failed.code).toBe(7);
      expect(failed.stderr).toMatch(/the server found person \S+ but could not delete it .*it asks for the deletion to be sent again/);
      expect(failed.stderr).not.toMatch(/may or may not/);
      expect(alive([second])).toEqual([second]);
    } finally {
      world.sandbox.setBulkDeleteResponse('summary');
      world.sandbox.failDeletions([second], 0);
    }
  });
});
