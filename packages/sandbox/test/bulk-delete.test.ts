// The sandbox's POST /persons/bulk_delete/ and the delete throttle against docs/server-contract.md §6.6 and §5.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/server.js';
import { call, errorBody, withSandbox } from './helpers.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await withSandbox({ persons: 3000, applyDelayMs: 20 });
});
afterAll(() => sb.close());

const path = '/api/projects/1/persons/bulk_delete/';

function post(body: unknown, opts: { contentType?: string; key?: string; sandbox?: Sandbox } = {}) {
  return call(opts.sandbox ?? sb, path, {
    method: 'POST',
    key: opts.key,
    headers: { 'content-type': opts.contentType ?? 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** `n` live persons of the sandbox, oldest first so tests do not collide with each other. */
function take(n: number, skip: number) {
  return sb.store.list({}, skip, n);
}

describe('POST /persons/bulk_delete/ (docs/server-contract.md §6.6)', () => {
  it('deletes persons by UUID and answers 202 with the summary; unknown ids are ignored', async () => {
    const persons = take(3, 0);
    const unknown = '01900000-0000-7000-8000-000000000000';
    const before = sb.store.size;
    const reply = await post({ ids: [...persons.map((p) => p.uuid), unknown] });
    expect(reply.status).toBe(202);
    expect(reply.json()).toEqual({
      persons_found: 3,
      persons_deleted: 3,
      events_queued_for_deletion: false,
      recordings_queued_for_deletion: false,
      deletion_errors: [],
    });
    expect(sb.store.size).toBe(before - 3);
    for (const p of persons) expect(sb.store.getById(p.id)).toBeUndefined();
  });

  it('deletes by distinct_ids, counting a person once however many of its ids are listed', async () => {
    const person = take(50, 10).find((p) => p.distinctIds.length >= 2)!;
    const reply = await post({ distinct_ids: [...person.distinctIds, 'no-such-distinct-id'] });
    expect(reply.status).toBe(202);
    expect(reply.json()).toMatchObject({ persons_found: 1, persons_deleted: 1 });
    expect(sb.store.getById(person.id)).toBeUndefined();
  });

  it('matches UUIDs only: an integer id names no person', async () => {
    const person = take(1, 100)[0];
    const reply = await post({ ids: [person.id] });
    expect(reply.status).toBe(202);
    expect(reply.json()).toMatchObject({ persons_found: 0, persons_deleted: 0 });
    expect(sb.store.getById(person.id)).toBeDefined();
  });

  it('reads the flags with Python truthiness: "false" is true, keep_person keeps the profile', async () => {
    const persons = take(2, 200);
    const reply = await post({ ids: persons.map((p) => p.uuid), delete_events: 'false', delete_recordings: 0, keep_person: 'no' });
    expect(reply.status).toBe(202);
    expect(reply.json()).toEqual({
      persons_found: 2,
      persons_deleted: 0,
      events_queued_for_deletion: true,
      recordings_queued_for_deletion: false,
      deletion_errors: [],
    });
    for (const p of persons) expect(sb.store.getById(p.id)).toBeDefined();
  });

  it('gives the four validation messages', async () => {
    const uuids = take(1001, 300).map((p) => p.uuid);
    const expectations: [unknown, string][] = [
      [{ ids: [uuids[0]], distinct_ids: ['user-1'] }, 'You must provide either distinct_ids or ids, not both'],
      [{ distinct_ids: Array.from({ length: 1001 }, (_, i) => `d${i}`) }, 'You can only pass 1000 distinct_ids in one call'],
      [{ ids: uuids }, 'You can only pass 1000 ids in one call'],
      [{}, 'You need to specify either distinct_ids or ids'],
      [{ ids: [], distinct_ids: [] }, 'You need to specify either distinct_ids or ids'],
    ];
    const before = sb.store.size;
    for (const [body, detail] of expectations) {
      const reply = await post(body);
      expect(reply.status).toBe(400);
      expect(reply.json()).toEqual(errorBody('validation_error', 'invalid_input', detail));
    }
    expect(sb.store.size).toBe(before);
    // Exactly 1000 is allowed.
    expect((await post({ ids: uuids.slice(0, 1000) })).json()).toMatchObject({ persons_found: 1000, persons_deleted: 1000 });
  });

  it('accepts JSON only (415 otherwise) and needs person:write', async () => {
    const person = take(1, 1400)[0];
    const form = await post(`ids=${person.uuid}`, { contentType: 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(form.json()).toEqual(
      errorBody('invalid_request', 'unsupported_media_type', 'Unsupported media type "application/x-www-form-urlencoded" in request.'),
    );
    const readOnly = sb.addKey(['person:read']);
    const denied = await post({ ids: [person.uuid] }, { key: readOnly });
    expect(denied.status).toBe(403);
    expect(denied.json().detail).toBe("API key missing required scope 'person:write'");
    expect(sb.store.getById(person.id)).toBeDefined();
    // GET maps to no action, which personal keys may not call (DRF checks that before the 405).
    expect((await call(sb, path)).status).toBe(403);
  });

  it('answers like older servers (empty 202) or the newest ones (queued) when asked', async () => {
    const [a, b] = take(2, 1500);
    sb.setBulkDeleteResponse('empty');
    try {
      const reply = await post({ ids: [a.uuid] });
      expect(reply.status).toBe(202);
      expect(reply.text).toBe('');
      expect(sb.store.getById(a.id)).toBeUndefined();

      sb.setBulkDeleteResponse('queued');
      const queued = await post({ ids: [b.uuid] });
      expect(queued.json()).toEqual({
        persons_found: 1,
        persons_deleted: 0,
        persons_queued_for_deletion: 1,
        events_queued_for_deletion: false,
        recordings_queued_for_deletion: false,
        deletion_errors: [],
      });
      await new Promise((r) => setTimeout(r, 100));
      expect(sb.store.getById(b.id)).toBeUndefined();
    } finally {
      sb.setBulkDeleteResponse('summary');
    }
  });
});

describe('persons whose deletion fails (deletion-faults.ts, PostHog/posthog#103144)', () => {
  it('bulk_delete answers 202 listing them in deletion_errors, leaves them, and a retry deletes them', async () => {
    const [a, b] = take(2, 1600);
    sb.failDeletions([a.uuid]);
    const reply = await post({ ids: [a.uuid, b.uuid], delete_events: true });
    expect(reply.status).toBe(202);
    expect(reply.json()).toEqual({
      persons_found: 2,
      persons_deleted: 1,
      events_queued_for_deletion: true,
      recordings_queued_for_deletion: false,
      deletion_errors: [{ person_uuid: a.uuid }],
    });
    expect(sb.store.getById(a.id)).toBeDefined();
    expect(sb.store.getById(b.id)).toBeUndefined();
    const again = await post({ ids: [a.uuid] });
    expect(again.json()).toMatchObject({ persons_found: 1, persons_deleted: 1, deletion_errors: [] });
    expect(sb.store.getById(a.id)).toBeUndefined();
  });

  it('the single DELETE answers 503 person_deletion_failed, and succeeds when tried again', async () => {
    const [person] = take(1, 1700);
    sb.failDeletions([person.uuid]);
    const reply = await call(sb, `/api/projects/1/persons/${person.uuid}/`, { method: 'DELETE' });
    expect(reply.status).toBe(503);
    expect(reply.json()).toMatchObject({ type: 'server_error', code: 'person_deletion_failed', attr: null });
    expect(sb.store.getById(person.id)).toBeDefined();
    expect((await call(sb, `/api/projects/1/persons/${person.uuid}/`, { method: 'DELETE' })).status).toBe(202);
    expect(sb.store.getById(person.id)).toBeUndefined();
  });
});

describe('the delete throttle (docs/server-contract.md §5)', () => {
  it('counts bulk_delete in the per-key delete class, not the read class', async () => {
    const now = 1_000_000;
    const limited = await withSandbox({ persons: 10, rateLimit: 'delete=2,read=100', now: () => now });
    try {
      const uuids = limited.store.listUuids(0, 3);
      expect((await post({ ids: [uuids[0]] }, { sandbox: limited })).status).toBe(202);
      expect((await post({ ids: [uuids[1]] }, { sandbox: limited })).status).toBe(202);
      const third = await post({ ids: [uuids[2]] }, { sandbox: limited });
      expect(third.status).toBe(429);
      expect(third.headers['retry-after']).toBe('60');
      expect(third.json()).toEqual(errorBody('throttled_error', 'throttled', 'Request was throttled. Expected available in 60 seconds.'));
      expect(limited.store.listUuids(0, 10)).toContain(uuids[2]);
      // Another key has its own bucket; reads are another class.
      const other = limited.addKey(['*']);
      expect((await post({ ids: [uuids[2]] }, { sandbox: limited, key: other })).status).toBe(202);
      expect((await call(limited, '/api/projects/1/persons/')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
