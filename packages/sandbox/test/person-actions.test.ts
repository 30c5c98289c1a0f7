// The sandbox's writing person endpoints against the contract (docs/server-contract.md §4, §6.4–§6.7).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/server.js';
import { uuidFromDistinctId } from '../src/person-uuid.js';
import { call, errorBody, until, withSandbox } from './helpers.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await withSandbox({ persons: 300, applyDelayMs: 20 });
});
afterAll(() => sb.close());

const base = '/api/projects/1/persons/';
const JSON_HEADERS = { 'content-type': 'application/json' };

/** The n-th live person (in list order) that has at least `minIds` distinct ids. */
function personWith(minIds: number, skip = 0) {
  let seen = 0;
  for (const p of sb.store) {
    if (p.distinctIds.length >= minIds && seen++ >= skip) return p;
  }
  throw new Error('no such person');
}

function post(path: string, body: unknown, key?: string | null) {
  return call(sb, path, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body), key });
}

describe('PATCH/PUT /persons/{id}/ (docs/server-contract.md §6.4)', () => {
  it('answers 202 with an empty body and $sets the properties after a delay', async () => {
    const person = personWith(1, 0);
    const before = { ...person.properties };
    const reply = await call(sb, `${base}${person.uuid}/`, {
      method: 'PATCH',
      headers: JSON_HEADERS,
      body: JSON.stringify({ properties: { plan: 'max', $browser: 'Lynx' } }),
    });
    expect(reply.status).toBe(202);
    expect(reply.text).toBe('');
    await until(() => sb.store.getById(person.id)!.properties.plan === 'max', 'the $set');
    expect(sb.store.getById(person.id)!.properties).toEqual({ ...before, plan: 'max', $browser: 'Lynx' });
    const entry = sb.activity.find(1, 'Person', [String(person.id)])[0];
    expect(entry.activity).toBe('updated');
    expect(entry.detail.changes).toEqual([{ type: 'Person', action: 'changed', field: 'properties' }]);
  });

  it('PUT by integer id does the same', async () => {
    const person = personWith(1, 1);
    const reply = await call(sb, `${base}${person.id}/`, {
      method: 'PUT',
      headers: JSON_HEADERS,
      body: JSON.stringify({ properties: { seats: 12 } }),
    });
    expect(reply.status).toBe(202);
    await until(() => sb.store.getById(person.id)!.properties.seats === 12, 'the $set');
  });

  it('answers the swapped-field 400 without properties, before looking the person up', async () => {
    const reply = await call(sb, `${base}99999999/`, { method: 'PATCH', headers: JSON_HEADERS, body: JSON.stringify({ foo: 1 }) });
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ attr: 'properties', code: 'This field is required.', detail: 'required', type: 'validation_error' });
    const missing = await call(sb, `${base}99999999/`, {
      method: 'PATCH',
      headers: JSON_HEADERS,
      body: JSON.stringify({ properties: {} }),
    });
    expect(missing.status).toBe(404);
  });

  it('needs person:write', async () => {
    const readOnly = sb.addKey(['person:read']);
    const reply = await call(sb, `${base}1/`, { method: 'PATCH', headers: JSON_HEADERS, body: '{"properties":{}}', key: readOnly });
    expect(reply.status).toBe(403);
    expect(reply.json()).toEqual(errorBody('authentication_error', 'permission_denied', "API key missing required scope 'person:write'"));
  });
});

describe('DELETE /persons/{id}/ (docs/server-contract.md §6.5)', () => {
  it('deletes, blocks the distinct ids until reset, and logs it', async () => {
    const person = personWith(2, 0);
    const reply = await call(sb, `${base}${person.uuid}/`, { method: 'DELETE' });
    expect(reply.status).toBe(202);
    expect(reply.text).toBe('');
    expect(sb.store.getById(person.id)).toBeUndefined();
    for (const d of person.distinctIds) expect(sb.store.isDistinctIdBlocked(d)).toBe(true);
    expect((await call(sb, `${base}${person.uuid}/`, { method: 'DELETE' })).status).toBe(404);
    const all = (await call(sb, `${base}activity/`)).json();
    expect(all.results[0]).toMatchObject({
      activity: 'deleted',
      scope: 'Person',
      item_id: String(person.id),
      detail: { name: person.uuid, changes: null },
    });
    expect(sb.deletions.eventDeletions(1).some((d) => d.key === person.uuid)).toBe(false);

    // deletion.py: a reset before the id is used again changes nothing ("hasn't been re-used yet
    // and can cause problems in the future"); once a new person holds it, the reset shows it.
    const [distinctId] = person.distinctIds;
    const early = await post(`${base}reset_person_distinct_id/`, { distinct_id: distinctId });
    expect(early.status).toBe(202);
    expect(sb.store.isDistinctIdBlocked(distinctId)).toBe(true);
    const revived = sb.store.addPerson({ uuid: person.uuid, createdAtUs: Date.now() * 1000, distinctIds: [distinctId], hidden: true });
    const reset = await post(`${base}reset_person_distinct_id/`, { distinct_id: distinctId });
    expect(reset.status).toBe(202);
    expect(sb.store.isDistinctIdBlocked(distinctId)).toBe(false);
    expect(sb.store.isHidden(revived.id)).toBe(false);
    const bad = await post(`${base}reset_person_distinct_id/`, {});
    expect(bad.json()).toEqual(errorBody('validation_error', 'invalid_input', 'distinct_id is required'));
  });

  it('treats the flags as present-means-true and keep_person keeps the profile', async () => {
    const person = personWith(1, 5);
    const reply = await call(sb, `${base}${person.id}/?delete_events=false&keep_person=0&delete_recordings`, { method: 'DELETE' });
    expect(reply.status).toBe(202);
    expect(sb.store.getById(person.id)).toBeDefined();
    expect(sb.deletions.eventDeletions(1).find((d) => d.key === person.uuid)?.deleteVerifiedAtMs).toBeNull();
    expect(sb.deletions.recordings.some((r) => r.personUuid === person.uuid)).toBe(true);
  });

  it('is throttled with the delete class', async () => {
    const other = await withSandbox({ persons: 20, rateLimit: 'delete=1/min' });
    try {
      const [a, b] = [...other.store];
      expect((await call(other, `${base}${a.uuid}/`, { method: 'DELETE' })).status).toBe(202);
      expect((await call(other, `${base}${b.uuid}/`, { method: 'DELETE' })).status).toBe(429);
      expect((await call(other, `${base}${b.uuid}/delete_events/`, { method: 'POST' })).status).toBe(429);
      expect((await call(other, `${base}${b.uuid}/activity/`)).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('update_property and delete_property (docs/server-contract.md §6.7)', () => {
  it('update_property $sets one key, null included; missing value or key is the swapped 400', async () => {
    const person = personWith(1, 10);
    expect((await post(`${base}${person.uuid}/update_property/`, { key: '$browser', value: { a: [1] } })).status).toBe(202);
    expect((await post(`${base}${person.uuid}/update_property/`, { key: 'gone', value: null })).status).toBe(202);
    await until(() => 'gone' in sb.store.getById(person.id)!.properties, 'the $set');
    expect(sb.store.getById(person.id)!.properties.$browser).toEqual({ a: [1] });
    expect(sb.store.getById(person.id)!.properties.gone).toBeNull();
    expect((await post(`${base}${person.uuid}/update_property/`, { key: 'x' })).json()).toMatchObject({
      attr: 'value',
      detail: 'required',
    });
    expect((await post(`${base}${person.uuid}/update_property/`, { value: 1 })).json()).toMatchObject({ attr: 'key', detail: 'required' });
  });

  it('delete_property answers 201 {success: true} and $unsets after a delay', async () => {
    const person = personWith(1, 11);
    await post(`${base}${person.uuid}/update_property/`, { key: '$os', value: 'BeOS' });
    await until(() => sb.store.getById(person.id)!.properties.$os === 'BeOS', 'the $set');
    const reply = await post(`${base}${person.uuid}/delete_property/`, { $unset: '$os' });
    expect(reply.status).toBe(201);
    expect(reply.json()).toEqual({ success: true });
    await until(() => !('$os' in sb.store.getById(person.id)!.properties), 'the $unset');
    expect(sb.activity.find(1, 'Person', [String(person.id)])[0]).toMatchObject({
      activity: 'delete_property',
      detail: { name: person.uuid },
    });
  });

  it('delete_property failures keep their own shapes', async () => {
    const person = personWith(1, 12);
    const failed = await post(`${base}${person.uuid}/delete_property/`, { $unset: 5 });
    expect(failed.status).toBe(400);
    expect(failed.json()).toEqual({ success: false, detail: 'Unable to delete property' });
    expect((await post(`${base}99999999/delete_property/`, { $unset: 'plan' })).status).toBe(500);
  });
});

describe('split (docs/server-contract.md §6.7)', () => {
  it('validates distinct_ids_to_split with attr distinct_ids_to_split', async () => {
    const person = personWith(2, 3);
    const unknown = await post(`${base}${person.id}/split/`, { distinct_ids_to_split: ['nope', person.distinctIds[0]] });
    expect(unknown.status).toBe(400);
    expect(unknown.json()).toEqual(errorBody('validation_error', 'invalid_input', "not on this person: ['nope']", 'distinct_ids_to_split'));
    expect((await post(`${base}${person.id}/split/`, { distinct_ids_to_split: [] })).json().detail).toBe('must not be empty');
    expect((await post(`${base}${person.id}/split/`, { distinct_ids_to_split: [1] })).json().detail).toBe('must be a list of strings');
    const both = await post(`${base}${person.id}/split/`, {
      distinct_ids_to_split: [person.distinctIds[0]],
      main_distinct_id: person.distinctIds[1],
    });
    expect(both.json()).toEqual(
      errorBody('validation_error', 'invalid_input', 'main_distinct_id cannot be combined with distinct_ids_to_split'),
    );
    expect(sb.store.getById(person.id)!.distinctIds).toEqual(person.distinctIds);
  });

  it('moves the listed distinct ids onto new persons with deterministic uuids, later', async () => {
    const person = personWith(2, 4);
    const [keep, move] = person.distinctIds;
    const sizeBefore = sb.store.size;
    const reply = await post(`${base}${person.uuid}/split/`, { distinct_ids_to_split: [move] });
    expect(reply.status).toBe(201);
    expect(reply.json()).toEqual({ success: true });
    await until(() => sb.store.getByDistinctId(move)?.id !== person.id, 'the split');
    const moved = sb.store.getByDistinctId(move)!;
    expect(moved.uuid).toBe(uuidFromDistinctId(1, move));
    expect(moved.distinctIds).toEqual([move]);
    expect(sb.store.getByDistinctId(keep)!.id).toBe(person.id);
    expect(sb.store.getById(person.id)!.properties).toEqual(person.properties);
    expect(sb.store.size).toBe(sizeBefore + 1);
    // The new person is the newest, so it heads the list, and it can be read and deleted.
    const first = (await call(sb, `${base}?limit=1`)).json().results[0];
    expect(first.uuid).toBe(moved.uuid);
    expect((await call(sb, `${base}${moved.uuid}/`)).json().distinct_ids).toEqual([move]);
    expect((await call(sb, `${base}${moved.uuid}/`, { method: 'DELETE' })).status).toBe(202);
    expect(sb.store.getByUuid(moved.uuid)).toBeUndefined();
    expect(sb.store.size).toBe(sizeBefore);
    const entry = sb.activity.find(1, 'Person', [String(person.id)])[0];
    expect(entry.activity).toBe('split_person');
    expect(entry.detail.changes?.[0].after).toEqual({ distinct_ids: person.distinctIds, distinct_ids_to_split: [move] });
  });

  it('with main_distinct_id keeps only that one', async () => {
    const person = personWith(3, 0);
    const main = person.distinctIds[1];
    expect((await post(`${base}${person.id}/split/`, { main_distinct_id: main })).status).toBe(201);
    await until(() => sb.store.getById(person.id)!.distinctIds.length === 1, 'the split');
    expect(sb.store.getById(person.id)!.distinctIds).toEqual([main]);
    for (const d of person.distinctIds.filter((x) => x !== main)) expect(sb.store.getByDistinctId(d)!.uuid).toBe(uuidFromDistinctId(1, d));
  });
});

describe('delete_events, delete_recordings and deletion_status', () => {
  it('queues event deletions that deletion_status lists until the batch runs', async () => {
    const person = personWith(1, 20);
    const reply = await call(sb, `${base}${person.uuid}/delete_events/`, { method: 'POST' });
    expect(reply.status).toBe(202);
    expect(reply.text).toBe('');
    expect((await call(sb, `${base}${person.uuid}/delete_events/`, { method: 'POST' })).status).toBe(202);
    const pending = (await call(sb, `${base}deletion_status/?status=pending&person_uuid=${person.uuid}`)).json();
    expect(pending.count).toBe(1);
    expect(pending.results[0]).toMatchObject({ person_uuid: person.uuid, status: 'pending', delete_verified_at: null });
    expect(Object.keys(pending)).toEqual(['count', 'next', 'previous', 'results']);
    sb.deletions.runBatch();
    const done = (await call(sb, `${base}deletion_status/?status=completed&person_uuid=${person.uuid}`)).json();
    expect(done.results[0].status).toBe('completed');
    expect(done.results[0].delete_verified_at).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect((await call(sb, `${base}deletion_status/?status=pending&person_uuid=${person.uuid}`)).json().count).toBe(0);
  });

  it('deletion_status validates its parameters and pages by limit/offset', async () => {
    expect((await call(sb, `${base}deletion_status/?status=done`)).json()).toEqual(
      errorBody('validation_error', 'invalid_choice', '"done" is not a valid choice.', 'status'),
    );
    expect((await call(sb, `${base}deletion_status/?person_uuid=xyz`)).json()).toEqual(
      errorBody('validation_error', 'invalid_input', 'Must be a valid UUID.', 'person_uuid'),
    );
    for (const p of [personWith(1, 30), personWith(1, 31)]) await call(sb, `${base}${p.id}/delete_events/`, { method: 'POST' });
    const page = (await call(sb, `${base}deletion_status/?limit=1`)).json();
    expect(page.results).toHaveLength(1);
    expect(page.next).toBe(`${sb.url}${base}deletion_status/?limit=1&offset=1`);
  });

  it('delete_recordings starts a recordings deletion and 404s for unknown persons', async () => {
    const person = personWith(1, 40);
    expect((await call(sb, `${base}${person.uuid}/delete_recordings/`, { method: 'POST' })).status).toBe(202);
    expect(sb.deletions.recordings.at(-1)).toMatchObject({ personUuid: person.uuid, distinctIds: person.distinctIds });
    expect((await call(sb, `${base}99999999/delete_recordings/`, { method: 'POST' })).status).toBe(404);
  });
});

describe('activity (docs/server-contract.md §6.7)', () => {
  it('pages with page= links and total_count, newest first', async () => {
    const person = personWith(1, 50);
    for (let i = 0; i < 3; i++) await post(`${base}${person.uuid}/update_property/`, { key: 'n', value: i });
    const first = (await call(sb, `${base}${person.uuid}/activity/?limit=2`)).json();
    expect(first.total_count).toBe(3);
    expect(first.results).toHaveLength(2);
    expect(first.next).toBe(`${sb.url}${base}${person.uuid}/activity/?limit=2&page=2`);
    expect(first.previous).toBeNull();
    expect(first.results[0]).toMatchObject({
      activity: 'updated',
      scope: 'Person',
      item_id: String(person.id),
      user: { first_name: 'Sandy', email: 'sandbox@example.com' },
    });
    const second = (await call(sb, first.next.slice(sb.url.length))).json();
    expect(second.results).toHaveLength(1);
    expect(second.next).toBeNull();
    expect(second.previous).toBe(`${sb.url}${base}${person.uuid}/activity/?limit=2&page=1`);
    expect((await call(sb, `${base}99999999/activity/`)).status).toBe(404);
  });

  it('needs activity_log:read', async () => {
    const key = sb.addKey(['person:write']);
    const reply = await call(sb, `${base}activity/`, { key });
    expect(reply.status).toBe(403);
    expect(reply.json().detail).toBe("API key missing required scope 'activity_log:read'");
    expect((await call(sb, `${base}activity/`, { key: sb.addKey(['activity_log:read']) })).status).toBe(200);
  });
});

describe('batch_by_uuids and batch_by_distinct_ids (docs/server-contract.md §6.7)', () => {
  it('answer the persons that exist, keyed by the value asked for, from the first 200 values', async () => {
    const [a, b] = [personWith(1, 0), personWith(1, 1)];
    const missing = '01900000-0000-7000-8000-00000000dead';
    const res = await post(`${base}batch_by_uuids/`, { uuids: [a.uuid.toUpperCase(), missing, b.uuid] });
    expect(res.status).toBe(200);
    const results = (res.json() as { results: Record<string, { uuid: string; distinct_ids: string[] }> }).results;
    expect(Object.keys(results).sort()).toEqual([a.uuid, b.uuid].sort());
    expect(results[a.uuid].distinct_ids.length).toBeLessThanOrEqual(10);
    // Past the 200th value nothing is looked at.
    const late = await post(`${base}batch_by_uuids/`, { uuids: [...Array(200).fill(missing), a.uuid] });
    expect((late.json() as { results: object }).results).toEqual({});
    const byDistinct = await post(`${base}batch_by_distinct_ids/`, { distinct_ids: [a.distinctIds[0], 'nobody-has-this'] });
    expect(Object.keys((byDistinct.json() as { results: object }).results)).toEqual([a.distinctIds[0]]);
  });

  it('refuse all of a batch with one value that is not a UUID; anything but a list is an empty answer', async () => {
    const res = await post(`${base}batch_by_uuids/`, { uuids: [personWith(1).uuid, 'nope'] });
    expect(res.status).toBe(400);
    expect(res.json()).toEqual(errorBody('validation_error', 'invalid', 'One or more UUIDs are invalid.'));
    expect((await post(`${base}batch_by_uuids/`, { uuids: 'x' })).json()).toEqual({ results: {} });
  });
});
