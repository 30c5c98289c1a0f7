// `hogctl persons delete-recordings` run in this process (test/cli/harness.ts) against a
// sandbox of its own. Each test asserts the request the server received, the state afterwards,
// and its error path.
import { describe, expect, it } from 'vitest';
import { PERSONS_PATH, usePersonsWorld } from './fixtures.js';

const { world, fresh, mark, readOnlyKey } = usePersonsWorld();
const base = PERSONS_PATH;

describe('persons delete-events and delete-recordings', () => {
  it('delete-recordings POSTs and the deletion starts; a read-only key gets 4', async () => {
    const person = fresh();
    const sent = mark();
    const res = await world.run(['persons', 'delete-recordings', String(person.id), '-y', '-o', 'ndjson']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ person: String(person.id), recordings_deletion_started: true, status: 202 });
    const posted = sent().find((r) => r.method === 'POST')!;
    expect(posted.path).toBe(`${base}bulk_delete/`);
    expect(JSON.parse(posted.body!)).toEqual({ ids: [person.uuid], delete_events: false, delete_recordings: true, keep_person: true });
    expect(world.sandbox.deletions.recordings.some((r) => r.personUuid === person.uuid)).toBe(true);
    const refused = await world.run(['persons', 'delete-recordings', String(person.id), '-y'], { env: { HOGCTL_API_KEY: readOnlyKey() } });
    expect(refused.code).toBe(4);
  });
});
