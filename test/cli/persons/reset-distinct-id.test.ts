// `hogctl persons reset-distinct-id` (and `persons delete`, `persons list` around it) run in this process (test/cli/harness.ts) against a
// sandbox of its own. Each test asserts the request the server received, the state afterwards,
// and its error path.
import { describe, expect, it } from 'vitest';
import { PERSONS_PATH, until, usePersonsWorld } from './fixtures.js';

const { world, fresh, mark, used, readOnlyKey } = usePersonsWorld();
const base = PERSONS_PATH;

describe('persons reset-distinct-id', () => {
  it("POSTs the distinct id: a deleted person's id used again shows its new person (posthog/models/person/deletion.py)", async () => {
    const person = fresh();
    await world.run(['persons', 'delete', String(person.id), '-y']);
    const [distinctId] = person.distinctIds;
    expect(world.sandbox.store.isDistinctIdBlocked(distinctId)).toBe(true);
    // The app sends an event for the id again: ingestion makes a new person, hidden until reset.
    const capture = await fetch(`${world.sandbox.url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: world.sandbox.world.projects[0].apiToken, batch: [{ event: 'came_back', distinct_id: distinctId }] }),
    });
    expect(capture.status).toBe(200);
    await until(() => world.sandbox.store.getByDistinctId(distinctId) !== undefined, 'the new person');
    // Not one for the other tests to pick: it is the newest person once it shows.
    used.add(world.sandbox.store.getByDistinctId(distinctId)!.id);
    const listed = async () => JSON.parse((await world.run(['persons', 'list', '--distinct-id', distinctId, '-o', 'json'])).stdout);
    expect(await listed()).toEqual([]);
    const sent = mark();
    const res = await world.run(['persons', 'reset-distinct-id', distinctId]);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(`✔ distinct id ${distinctId} may be used again`);
    const [req] = sent();
    expect([req.method, req.path]).toEqual(['POST', `${base}reset_person_distinct_id/`]);
    expect(JSON.parse(req.body)).toEqual({ distinct_id: distinctId });
    expect(world.sandbox.store.isDistinctIdBlocked(distinctId)).toBe(false);
    expect((await listed()).map((p: { uuid: string }) => p.uuid)).toEqual([world.sandbox.store.getByDistinctId(distinctId)!.uuid]);
  });

  it('exits 4 with a read-only key and 2 for an empty id, sending nothing then', async () => {
    expect((await world.run(['persons', 'reset-distinct-id', 'user-1'], { env: { HOGCTL_API_KEY: readOnlyKey() } })).code).toBe(4);
    const sent = mark();
    expect((await world.run(['persons', 'reset-distinct-id', ' '])).code).toBe(2);
    expect(sent()).toEqual([]);
  });
});
