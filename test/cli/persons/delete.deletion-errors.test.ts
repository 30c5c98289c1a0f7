// `persons delete` of a person the server found but could not delete: PostHog's bulk_delete
// answers with `deletion_errors`, meaning "not deleted, retry these" (PostHog/posthog#103144), so
// the one deletion is sent again, three times at most. bulk-delete's side of the same answer is
// bulk-delete.deletion-errors.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';
import { bulkRequests, isAlive } from './bulk-delete-fixtures.js';

let world: World;
let uuids: string[];
let cursor = 0;

beforeAll(async () => {
  world = await startWorld({ persons: 20, seed: 47 });
  uuids = world.sandbox.store.listUuids(0, 20);
});
afterAll(() => world.close());

const alive = (ids: string[]) => ids.filter((id) => isAlive(world, id));
const bodies = (since: number) => bulkRequests(world, since).map((r) => JSON.parse(r.body) as { ids: string[] });

describe('persons delete, of a person the server could not delete', () => {
  it('sends the deletion again (the server asks for it), and succeeds when the server does', async () => {
    const [uuid] = uuids.slice(cursor, (cursor += 1));
    world.sandbox.failDeletions([uuid]);
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'delete', uuid, '-y']);
    expect(res.code, res.stderr).toBe(0);
    expect(bodies(before)).toHaveLength(2);
    expect(alive([uuid])).toEqual([]);
  });

  it('still failing after three tries: exit 7, saying the server asks for it to be sent again', async () => {
    const [uuid] = uuids.slice(cursor, (cursor += 1));
    world.sandbox.failDeletions([uuid], 100);
    const res = await world.run(['persons', 'delete', uuid, '-y']);
    expect(res.code).toBe(7);
    expect(res.stderr).toMatch(/the server found person \S+ but could not delete it, 3 times/);
    expect(res.stderr).toMatch(/run the command again later/);
    expect(alive([uuid])).toEqual([uuid]);
    world.sandbox.failDeletions([uuid], 0);
  });
  // A server without bulk_delete (the single DELETE answers 503 person_deletion_failed, retried with
  // backoff) runs on virtual time: test/cli/persons/delete.deletion-failed.test.ts.
});
