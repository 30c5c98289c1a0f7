// `hogctl persons delete` run in this process (test/cli/harness.ts) against a
// sandbox of its own. Each test asserts the request the server received, the state afterwards,
// and its error path.
import { describe, expect, it } from 'vitest';
import { PERSONS_PATH, usePersonsWorld } from './fixtures.js';

const { world, fresh, mark } = usePersonsWorld();
const base = PERSONS_PATH;

describe('persons delete', () => {
  it('goes through bulk_delete with ids: [uuid] and every flag off; the person is gone and its distinct ids blocked', async () => {
    const person = fresh(2);
    const sent = mark();
    const res = await world.run(['persons', 'delete', person.uuid, '--yes']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(`✔ deleted person ${person.uuid}`);
    const [req, ...more] = sent().filter((r) => r.path !== '/api/personal_api_keys/@current/');
    expect(more).toEqual([]);
    expect(req.method).toBe('POST');
    expect(req.path).toBe(`${base}bulk_delete/`);
    expect(JSON.parse(req.body!)).toEqual({ ids: [person.uuid], delete_events: false, delete_recordings: false, keep_person: false });
    expect(world.sandbox.store.getById(person.id)).toBeUndefined();
    for (const d of person.distinctIds) expect(world.sandbox.store.isDistinctIdBlocked(d)).toBe(true);
    expect(world.sandbox.activity.find(1, 'Person', [String(person.id)])[0].activity).toBe('deleted');
    expect(world.sandbox.deletions.eventDeletions(1).some((d) => d.key === person.uuid)).toBe(false);
  });

  it('resolves an integer id to its UUID first, sends the flags, and prints a record with -o json', async () => {
    const person = fresh();
    const sent = mark();
    const res = await world.run(['persons', 'delete', String(person.id), '--delete-events', '--delete-recordings', '-y', '-o', 'json']);
    expect(res.code).toBe(0);
    const reqs = sent();
    expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${base}${person.id}/`, `POST ${base}bulk_delete/`]);
    expect(JSON.parse(reqs[1].body!)).toEqual({ ids: [person.uuid], delete_events: true, delete_recordings: true, keep_person: false });
    expect(JSON.parse(res.stdout)).toEqual({
      person: String(person.id),
      deleted: true,
      delete_events: true,
      delete_recordings: true,
      status: 202,
    });
    expect(res.stderr).toContain('weekly batch (Saturday night UTC, after the person-overrides squash)');
    expect(world.sandbox.deletions.eventDeletions(1).find((d) => d.key === person.uuid)?.deleteVerifiedAtMs).toBeNull();
    expect(world.sandbox.deletions.recordings.some((r) => r.personUuid === person.uuid)).toBe(true);
  });

  it('--keep-person keeps the profile and queues the events', async () => {
    const person = fresh();
    const sent = mark();
    const res = await world.run(['persons', 'delete', String(person.id), '--keep-person', '--delete-events', '--yes']);
    expect(res.code).toBe(0);
    expect(JSON.parse(sent().find((r) => r.method === 'POST')!.body!)).toEqual({
      ids: [person.uuid],
      delete_events: true,
      delete_recordings: false,
      keep_person: true,
    });
    expect(world.sandbox.store.getById(person.id)).toBeDefined();
    expect(world.sandbox.deletions.eventDeletions(1).some((d) => d.key === person.uuid)).toBe(true);
  });

  it('refuses off a terminal without --yes (2), and --keep-person alone (2), with nothing sent', async () => {
    const person = fresh();
    const sent = mark();
    const res = await world.run(['persons', 'delete', String(person.id)]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`delete person ${person.id} in project 1: refusing without confirmation`);
    expect(res.stderr).toContain('--yes');
    const alone = await world.run(['persons', 'delete', String(person.id), '--keep-person', '-y']);
    expect(alone.code).toBe(2);
    expect(sent()).toEqual([]);
    expect(world.sandbox.store.getById(person.id)).toBeDefined();
  });

  it('checks -o and --fields before anything is sent (2)', async () => {
    const person = fresh();
    const sent = mark();
    const fields = await world.run(['persons', 'delete', String(person.id), '-y', '-o', 'json', '--fields', 'person,nope']);
    expect(fields.code).toBe(2);
    expect(fields.stderr).toContain('"nope"');
    expect(fields.stderr).toContain('valid fields are person, deleted');
    expect((await world.run(['persons', 'delete', String(person.id), '-y', '-o', 'xml'])).code).toBe(2);
    expect(sent()).toEqual([]);
    expect(world.sandbox.store.getById(person.id)).toBeDefined();
    const picked = await world.run(['persons', 'delete', String(person.id), '-y', '-o', 'csv', '--fields', 'person,status']);
    expect(picked.stdout).toBe(`person,status\n${person.id},202\n`);
  });

  it('exits 3 for an unknown (or already deleted) person: an integer id no person has, or a UUID bulk_delete did not find', async () => {
    const res = await world.run(['persons', 'delete', '99999999', '--yes']);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('person 99999999 not found in project 1');
    const uuid = '01900000-0000-7000-8000-0000000bad00';
    const sent = mark();
    const none = await world.run(['persons', 'delete', uuid, '--yes']);
    expect(none.code).toBe(3);
    expect(none.stderr).toContain(`person ${uuid} not found in project 1`);
    expect(sent().map((r) => `${r.method} ${r.path} ${r.status}`)).toContain(`POST ${base}bulk_delete/ 202`);
  });

  it('on a server without bulk_delete (405) falls back to DELETE /persons/{id}/ with the flags present', async () => {
    const person = fresh();
    const sent = mark();
    world.sandbox.setBulkDeleteResponse('absent');
    try {
      const res = await world.run(['persons', 'delete', person.uuid, '--delete-events', '--yes']);
      expect(res.code).toBe(0);
      expect(res.stderr).toContain(`✔ deleted person ${person.uuid}`);
    } finally {
      world.sandbox.setBulkDeleteResponse('summary');
    }
    const reqs = sent().filter((r) => r.path.startsWith(base));
    expect(reqs.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `POST ${base}bulk_delete/ 405`,
      `DELETE ${base}${person.uuid}/ 202`,
    ]);
    expect(reqs[1].query).toEqual({ delete_events: 'true' });
    expect(world.sandbox.store.getById(person.id)).toBeUndefined();
  });

  it("on an older server's empty answer, says the deletion was accepted without claiming it found the person", async () => {
    const person = fresh();
    world.sandbox.setBulkDeleteResponse('empty');
    try {
      const res = await world.run(['persons', 'delete', person.uuid, '--yes']);
      expect(res.code).toBe(0);
      expect(res.stderr).toContain(`✔ deletion of person ${person.uuid} accepted`);
      expect(res.stderr).toContain('The server did not say whether it found the person');
    } finally {
      world.sandbox.setBulkDeleteResponse('summary');
    }
  });
});
