// End-to-end: the built binary's person verbs that change things (and report on changes),
// against one in-process sandbox. Each test asserts the request the server received, the state
// afterwards, and its error path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordedRequest, type Person, uuidFromDistinctId } from '@hogctl/sandbox';
import { startWorld, type World } from './harness.js';
import { runInTerminal } from './terminal.js';

let world: World;
const used = new Set<number>();

beforeAll(async () => {
  world = await startWorld({ persons: 400, seed: 11, applyDelayMs: 20 });
});
afterAll(async () => {
  await world.close();
});

const base = '/api/projects/1/persons/';

/** A live person no other test has touched, with at least `minIds` distinct ids. */
function fresh(minIds = 1): Person {
  for (const p of world.sandbox.store) {
    if (!used.has(p.id) && p.distinctIds.length >= minIds) {
      used.add(p.id);
      return p;
    }
  }
  throw new Error('ran out of persons');
}

/** Requests sent since `mark` (from `mark()`), to paths under the persons API. */
function mark(): () => RecordedRequest[] {
  const before = world.sandbox.requests.length;
  return () => world.sandbox.requests.slice(before);
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const readOnlyKey = () => world.sandbox.addKey(['person:read']);

describe('persons update', () => {
  it('PATCHes {properties} with JSON-parsed --set values and the change lands after the delay', async () => {
    const person = fresh();
    const sent = mark();
    const res = await world.run([
      'persons',
      'update',
      person.uuid,
      '--properties',
      '{"company": {"name": "Acme"}, "plan": "free"}',
      '--set',
      'plan=enterprise',
      '--set',
      'seats=25',
      '--set',
      'vip=true',
      '--set',
      'zip=01234',
      '--set',
      '$browser=Lynx',
    ]);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain(`✔ update of person ${person.uuid} accepted`);
    // HTTP statuses belong to --debug and -o json, not to the line a person reads.
    expect(res.stderr).not.toMatch(/✔ .*\(\d{3}\)/);
    expect(res.stderr).toContain('asynchronously');
    const [req] = sent();
    expect(req.method).toBe('PATCH');
    expect(req.path).toBe(`${base}${person.uuid}/`);
    expect(req.query).toEqual({});
    const properties = { company: { name: 'Acme' }, plan: 'enterprise', seats: 25, vip: true, zip: '01234', $browser: 'Lynx' };
    expect(JSON.parse(req.body)).toEqual({ properties });
    await until(() => world.sandbox.store.getById(person.id)!.properties.seats === 25, 'the update');
    expect(world.sandbox.store.getById(person.id)!.properties).toEqual({ ...person.properties, ...properties });
  });

  it('prints a record with -o json', async () => {
    const person = fresh();
    const res = await world.run(['persons', 'update', String(person.id), '--set', 'plan=team', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ person: String(person.id), properties: { plan: 'team' }, status: 202 });
  });

  it('exits 3 for an unknown person, 4 for a key without person:write, 2 for bad input with nothing sent', async () => {
    const missing = await world.run(['persons', 'update', '99999999', '--set', 'plan=team']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('person 99999999 not found in project 1');

    const person = fresh();
    const refused = await world.run(['persons', 'update', String(person.id), '--set', 'plan=team'], {
      env: { HOGCTL_API_KEY: readOnlyKey() },
    });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain("API key missing required scope 'person:write'");

    const sent = mark();
    for (const args of [['--set', 'noequals'], ['--properties', '[1]'], ['--properties', '{oops'], []]) {
      const bad = await world.run(['persons', 'update', String(person.id), ...args]);
      expect(bad.code).toBe(2);
    }
    expect(sent()).toEqual([]);
  });
});

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

  it('on a terminal, shows the person and where, and a "no" cancels (130) with nothing deleted', async () => {
    const person = fresh(2);
    const sent = mark();
    const res = await runInTerminal(['persons', 'delete', person.uuid, '--delete-events'], world.env, [
      { when: 'Delete this person?', send: 'n\r' },
    ]);
    expect(res.code).toBe(130);
    expect(res.output).toContain(`About to delete person ${person.uuid}`);
    expect(res.output).toContain(`(id ${person.id}, uuid ${person.uuid})`);
    expect(res.output).toContain(person.distinctIds[0]);
    expect(res.output).toContain(`host          ${world.sandbox.url}`);
    expect(res.output).toContain('project       1');
    expect(res.output).toContain('all their events');
    expect(res.output).toContain('cancelled; nothing was changed');
    expect(sent().map((r) => r.method)).toEqual(['GET']);
    expect(world.sandbox.store.getById(person.id)).toBeDefined();
  });

  it('on a terminal, a "yes" deletes, reading the person once: the GET the question shows, then the POST', async () => {
    const person = fresh();
    const sent = mark();
    const res = await runInTerminal(['persons', 'delete', String(person.id)], world.env, [{ when: 'Delete this person?', send: 'y\r' }]);
    expect(res.code).toBe(0);
    expect(res.output).toContain(`✔ deleted person ${person.uuid} (id ${person.id})`);
    expect(world.sandbox.store.getById(person.id)).toBeUndefined();
    expect(sent().map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${base}${person.id}/`, `POST ${base}bulk_delete/`]);
    expect(JSON.parse(sent()[1].body).ids).toEqual([person.uuid]);
  });

  it('on a terminal with --distinct-id, the lookup is the one read: the question shows the person it found', async () => {
    const person = fresh(2);
    const sent = mark();
    const res = await runInTerminal(['persons', 'delete-events', '--distinct-id', person.distinctIds[0]], world.env, [
      { when: 'Delete all events of this person?', send: 'y\r' },
    ]);
    expect(res.code).toBe(0);
    expect(res.output).toContain(`uuid ${person.uuid}`);
    expect(res.output).toContain(person.distinctIds[1]);
    expect(sent().map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${base}`, `POST ${base}bulk_delete/`]);
  });
});

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

describe('persons set-prop and unset-prop', () => {
  it('set-prop POSTs {key, value} to update_property, $-keys included, and the value lands', async () => {
    const person = fresh();
    const sent = mark();
    const res = await world.run(['persons', 'set-prop', String(person.id), '$browser', '{"name": "Lynx", "v": 2}', '-o', 'json']);
    expect(res.code).toBe(0);
    const [req] = sent();
    expect(req.method).toBe('POST');
    expect(req.path).toBe(`${base}${person.id}/update_property/`);
    expect(JSON.parse(req.body)).toEqual({ key: '$browser', value: { name: 'Lynx', v: 2 } });
    expect(JSON.parse(res.stdout)).toMatchObject({ person: String(person.id), key: '$browser', status: 202 });
    await until(() => world.sandbox.store.getById(person.id)!.properties.$browser !== person.properties.$browser, 'the $set');
    expect(world.sandbox.store.getById(person.id)!.properties.$browser).toEqual({ name: 'Lynx', v: 2 });

    const negative = await world.run(['persons', 'set-prop', String(person.id), 'balance', '-5']);
    expect(negative.code).toBe(0);
    expect(JSON.parse(sent().at(-1)!.body)).toEqual({ key: 'balance', value: -5 });
  });

  it('set-prop exits 4 with a read-only key and 3 for an unknown person', async () => {
    const person = fresh();
    const refused = await world.run(['persons', 'set-prop', String(person.id), 'plan', 'team'], { env: { HOGCTL_API_KEY: readOnlyKey() } });
    expect(refused.code).toBe(4);
    const missing = await world.run(['persons', 'set-prop', '99999999', 'plan', 'team']);
    expect(missing.code).toBe(3);
  });

  it('unset-prop POSTs {"$unset": key} to delete_property and the property goes', async () => {
    const person = fresh();
    await world.run(['persons', 'set-prop', String(person.id), '$os', 'BeOS']);
    await until(() => world.sandbox.store.getById(person.id)!.properties.$os === 'BeOS', 'the $set');
    const sent = mark();
    const res = await world.run(['persons', 'unset-prop', person.uuid, '$os']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(`✔ removal of $os from person ${person.uuid} accepted`);
    const [req] = sent();
    expect(req.path).toBe(`${base}${person.uuid}/delete_property/`);
    expect(JSON.parse(req.body)).toEqual({ $unset: '$os' });
    await until(() => !('$os' in world.sandbox.store.getById(person.id)!.properties), 'the $unset');
    expect(world.sandbox.activity.find(1, 'Person', [String(person.id)])[0].activity).toBe('delete_property');
  });

  it("unset-prop turns the server's bare 500 for an unknown person into exit 3, and an empty key is 2", async () => {
    const res = await world.run(['persons', 'unset-prop', '99999999', 'plan']);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('person 99999999 not found in project 1');
    const empty = await world.run(['persons', 'unset-prop', '1', '']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('single quotes');
  });
});

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

describe('persons split', () => {
  it('--distinct-ids POSTs distinct_ids_to_split and the ids move onto new persons', async () => {
    const person = fresh(2);
    const [keep, move] = person.distinctIds;
    const sent = mark();
    const res = await world.run(['persons', 'split', String(person.id), '--distinct-ids', move, '--yes']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(`✔ split of person ${person.id} accepted`);
    const reqs = sent();
    expect(reqs).toHaveLength(1);
    expect(reqs[0].path).toBe(`${base}${person.id}/split/`);
    expect(JSON.parse(reqs[0].body)).toEqual({ distinct_ids_to_split: [move] });
    await until(() => world.sandbox.store.getByDistinctId(move)?.id !== person.id, 'the split');
    expect(world.sandbox.store.getByDistinctId(move)!.uuid).toBe(uuidFromDistinctId(1, move));
    expect(world.sandbox.store.getByDistinctId(keep)!.id).toBe(person.id);
  });

  it('--main-distinct-id is checked against the person first, then sent', async () => {
    const person = fresh(3);
    const main = person.distinctIds[1];
    const sent = mark();
    const bad = await world.run(['persons', 'split', String(person.id), '--main-distinct-id', 'not-hers', '-y']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a distinct id of person');
    expect(sent().map((r) => r.method)).toEqual(['GET']);
    const res = await world.run(['persons', 'split', String(person.id), '--main-distinct-id', main, '-y', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(sent().at(-1)!.body)).toEqual({ main_distinct_id: main });
    await until(() => world.sandbox.store.getById(person.id)!.distinctIds.length === 1, 'the split');
    expect(world.sandbox.store.getById(person.id)!.distinctIds).toEqual([main]);
  });

  it('a distinct id not on the person is rejected by the server (5); bad flags (2) and no --yes (2) send nothing', async () => {
    const person = fresh(2);
    const res = await world.run(['persons', 'split', String(person.id), '--distinct-ids', `${person.distinctIds[0]},someone-else`, '-y']);
    expect(res.code).toBe(5);
    expect(res.stderr).toContain("not on this person: ['someone-else']");
    expect(res.stderr).toContain('distinct_ids_to_split');
    const sent = mark();
    for (const args of [
      [],
      ['--distinct-ids', 'a,,b', '-y'],
      ['--distinct-ids', 'a', '--main-distinct-id', 'b', '-y'],
      ['--distinct-ids', 'a'],
    ]) {
      expect((await world.run(['persons', 'split', String(person.id), ...args])).code).toBe(2);
    }
    expect(sent()).toEqual([]);
    expect(world.sandbox.store.getById(person.id)!.distinctIds).toEqual(person.distinctIds);
  });
});

describe('persons activity', () => {
  it("shows one person's entries written by the writes, paging by page", async () => {
    const person = fresh();
    for (let i = 0; i < 3; i++) await world.run(['persons', 'set-prop', String(person.id), 'n', String(i)]);
    const sent = mark();
    const res = await world.run(['persons', 'activity', String(person.id), '--page-size', '2', '-o', 'ndjson']);
    expect(res.code).toBe(0);
    const rows = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.activity === 'updated' && r.item_id === String(person.id))).toBe(true);
    expect(rows[0].changes).toBe('changed properties');
    const reqs = sent();
    expect(reqs.map((r) => [r.path, r.query])).toEqual([
      [`${base}${person.id}/activity/`, { limit: '2' }],
      [`${base}${person.id}/activity/`, { limit: '2', page: '2' }],
    ]);
  });

  it('without an id lists the project, deleted persons included, with readable columns', async () => {
    const person = fresh();
    await world.run(['persons', 'delete', String(person.id), '-y']);
    const res = await world.run(['persons', 'activity', '--limit', '1']);
    expect(res.code).toBe(0);
    const [line] = res.stdout.trim().split('\n');
    const [createdAt, activity, email, itemId] = line.split('\t');
    expect(createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect([activity, email, itemId]).toEqual(['deleted', 'sandbox@example.com', String(person.id)]);
  });

  it('exits 3 for an unknown person and 4 without activity_log:read', async () => {
    const missing = await world.run(['persons', 'activity', '99999999']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('person 99999999 not found');
    const refused = await world.run(['persons', 'activity'], { env: { HOGCTL_API_KEY: world.sandbox.addKey(['person:write']) } });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain("API key missing required scope 'activity_log:read'");
  });
});

describe('persons deletion-status', () => {
  it('sends --status, pages by limit/offset, and shows completed deletions', async () => {
    const a = fresh();
    const b = fresh();
    for (const p of [a, b]) await world.run(['persons', 'delete-events', String(p.id), '-y']);
    world.sandbox.deletions.runBatch();
    const sent = mark();
    const res = await world.run(['persons', 'deletion-status', '--status', 'completed', '--page-size', '1', '--limit', '2', '-o', 'csv']);
    expect(res.code).toBe(0);
    const [header, ...lines] = res.stdout.trim().split('\n');
    expect(header).toBe('person_uuid,status,created_at,delete_verified_at');
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.includes(',completed,'))).toBe(true);
    const reqs = sent();
    expect(reqs[0].path).toBe(`${base}deletion_status/`);
    expect(reqs[0].query).toEqual({ limit: '1', status: 'completed' });
    expect(reqs[1].query).toEqual({ limit: '1', offset: '1', status: 'completed' });
  });

  it('rejects a --person that is not a UUID and an unknown --status before sending (2)', async () => {
    const sent = mark();
    expect((await world.run(['persons', 'deletion-status', '--person', '42'])).code).toBe(2);
    expect((await world.run(['persons', 'deletion-status', '--status', 'done'])).code).toBe(2);
    expect(sent()).toEqual([]);
  });

  it('exits 4 for a key without person:read', async () => {
    const res = await world.run(['persons', 'deletion-status'], { env: { HOGCTL_API_KEY: world.sandbox.addKey(['project:read']) } });
    expect(res.code).toBe(4);
  });
});
