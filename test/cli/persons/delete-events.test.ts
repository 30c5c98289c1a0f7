// `hogctl persons delete-events` (and `deletion-status` on what it queued) run in this process (test/cli/harness.ts) against a
// sandbox of its own. Each test asserts the request the server received, the state afterwards,
// and its error path.
import { describe, expect, it } from 'vitest';
import { PERSONS_PATH, usePersonsWorld } from './fixtures.js';

const { world, fresh, mark } = usePersonsWorld();
const base = PERSONS_PATH;

describe('persons delete-events and delete-recordings', () => {
  it('delete-events POSTs, says when the batch runs, and deletion-status shows it pending', async () => {
    const person = fresh();
    const sent = mark();
    const res = await world.run(['persons', 'delete-events', person.uuid, '--yes']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('Saturday night UTC, after the person-overrides squash');
    const [req] = sent();
    expect(req.method).toBe('POST');
    expect(req.path).toBe(`${base}bulk_delete/`);
    expect(JSON.parse(req.body!)).toEqual({ ids: [person.uuid], delete_events: true, delete_recordings: false, keep_person: true });
    expect(world.sandbox.store.getById(person.id)).toBeDefined();

    const status = await world.run(['persons', 'deletion-status', '--person', person.uuid, '--status', 'pending', '-o', 'json']);
    expect(status.code).toBe(0);
    const rows = JSON.parse(status.stdout);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ person_uuid: person.uuid, status: 'pending', delete_verified_at: null });
    expect(status.stderr).toContain('1 pending');
  });

  it('delete-events refuses off a terminal without --yes, and exits 3 for an unknown person', async () => {
    const person = fresh();
    const sent = mark();
    const res = await world.run(['persons', 'delete-events', String(person.id)]);
    expect(res.code).toBe(2);
    expect(sent()).toEqual([]);
    expect((await world.run(['persons', 'delete-events', '99999999', '-y'])).code).toBe(3);
  });
});
