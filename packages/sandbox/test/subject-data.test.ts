// What a subject-access export reads beyond the person and its events (docs/server-contract.md §15):
// properties at a time (posthog/api/person.py, `properties_at_time`), session recordings, their
// snapshots (posthog/session_recordings/session_recording_api.py), with the scope each needs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/server.js';
import { call, withSandbox } from './helpers.js';

let sb: Sandbox;
let token: string;
beforeAll(async () => {
  sb = await withSandbox({ persons: 5, applyDelayMs: 5, eventsPerPerson: 0 });
  token = sb.world.projects[0].apiToken;
});
afterAll(() => sb.close());

const DAY = 86_400_000;

async function capture(batch: Record<string, unknown>[]): Promise<void> {
  const res = await call(sb, '/batch/', {
    method: 'POST',
    key: null,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: token, batch }),
  });
  expect(res.status).toBe(200);
  const want = sb.capture.events;
  for (let i = 0; i < 400 && sb.ingestion.get(1)!.stats.events < want; i++) await new Promise((r) => setTimeout(r, 5));
}

const at = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString();

let personUuid: string;
beforeAll(async () => {
  await capture([
    {
      event: '$pageview',
      distinct_id: 'anon-sar',
      timestamp: at(2),
      properties: { $session_id: 's-one', $current_url: 'https://a.example/1', $set: { plan: 'free' } },
    },
    {
      event: '$autocapture',
      distinct_id: 'anon-sar',
      timestamp: at(1.99),
      properties: { $session_id: 's-one', $current_url: 'https://a.example/2' },
    },
    {
      event: '$identify',
      distinct_id: 'sar@example.net',
      timestamp: at(1),
      properties: {
        $anon_distinct_id: 'anon-sar',
        $session_id: 's-two',
        $set: { plan: 'pro', email: 'sar@example.net' },
        $set_once: { first: 'yes' },
      },
    },
  ]);
  const list = await call(sb, '/api/projects/1/persons/?distinct_id=sar@example.net');
  for (let i = 0; i < 100 && list.json().results.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  const found = (await call(sb, '/api/projects/1/persons/?distinct_id=sar@example.net')).json().results;
  expect(found).toHaveLength(1);
  personUuid = found[0].uuid;
});

describe('GET /persons/properties_at_time/', () => {
  it('rebuilds the properties from the $set of every distinct id of the person up to the time', async () => {
    const early = await call(sb, `/api/projects/1/persons/properties_at_time/?distinct_id=sar@example.net&timestamp=${at(1.5)}`);
    expect(early.status).toBe(200);
    expect(early.json().properties).toMatchObject({ plan: 'free' });
    expect(early.json().properties).not.toHaveProperty('email');
    const late = await call(
      sb,
      `/api/projects/1/persons/properties_at_time/?person_id=${personUuid}&timestamp=${at(0)}&include_set_once=true`,
    );
    expect(late.json().properties).toMatchObject({ plan: 'pro', email: 'sar@example.net', first: 'yes' });
    expect(late.json().point_in_time_metadata).toMatchObject({ query_mode: 'person_id', distinct_ids_count: 2, include_set_once: true });
  });

  it("refuses both or neither id, no timestamp, a bad one, and answers 404 for no one, in the view's words", async () => {
    const base = '/api/projects/1/persons/properties_at_time/';
    const error = async (query: string, status: number) => {
      const res = await call(sb, `${base}?${query}`);
      expect(res.status).toBe(status);
      return res.json().error;
    };
    expect(await error(`timestamp=${at(0)}`, 400)).toBe('Must provide either distinct_id or person_id parameter');
    expect(await error(`distinct_id=a&person_id=${personUuid}&timestamp=${at(0)}`, 400)).toBe(
      'Cannot provide both distinct_id and person_id - choose one',
    );
    expect(await error('distinct_id=sar@example.net', 400)).toBe('timestamp parameter is required (ISO format: 2023-06-15T14:30:00Z)');
    expect(await error('distinct_id=sar@example.net&timestamp=yesterday', 400)).toBe(
      'Invalid timestamp format. Use ISO format like 2023-06-15T14:30:00Z',
    );
    expect(await error(`distinct_id=nobody&timestamp=${at(0)}`, 404)).toBe("Person with distinct_id 'nobody' not found");
  });

  it('says when and how it was asked, as the view does', async () => {
    const res = await call(sb, `/api/projects/1/persons/properties_at_time/?person_id=${personUuid}&timestamp=2030-01-02T03:04:05Z`);
    expect(res.json().point_in_time_metadata).toEqual({
      queried_timestamp: '2030-01-02T03:04:05+00:00',
      include_set_once: false,
      distinct_id_used: null,
      person_id_used: personUuid,
      query_mode: 'person_id',
      distinct_ids_queried: expect.arrayContaining(['anon-sar', 'sar@example.net']),
      distinct_ids_count: 2,
    });
  });
});

describe('GET /session_recordings/', () => {
  it("lists the person's sessions, those of the merged anonymous id included, newest first", async () => {
    const res = await call(sb, `/api/projects/1/session_recordings/?person_uuid="${personUuid}"&date_from=-30d&limit=10`);
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ has_next: false, version: 4 });
    expect(body.results.map((r: { id: string }) => r.id)).toEqual(['s-two', 's-one']);
    expect(body.results[1]).toMatchObject({
      distinct_id: 'anon-sar',
      click_count: 1,
      start_url: 'https://a.example/1',
      recording_duration: 864,
    });
    expect(body.results[1].person.uuid).toBe(personUuid);
  });

  it('keeps to date_from (default -3d), and pages with limit and has_next', async () => {
    const recent = await call(sb, `/api/projects/1/session_recordings/?person_uuid=${personUuid}&date_from=-1d&limit=10`);
    expect(recent.json().results).toHaveLength(0);
    const one = await call(sb, `/api/projects/1/session_recordings/?person_uuid=${personUuid}&limit=1`);
    expect(one.json()).toMatchObject({ has_next: true });
  });

  it('needs session_recording:read', async () => {
    const key = sb.addKey(['person:read']);
    const res = await call(sb, '/api/projects/1/session_recordings/', { key });
    expect(res.status).toBe(403);
    expect(res.json().detail).toBe("API key missing required scope 'session_recording:read'");
    const ok = sb.addKey(['session_recording:read']);
    expect((await call(sb, '/api/projects/1/session_recordings/s-one/snapshots/', { key: ok })).status).toBe(200);
  });
});

describe('GET /session_recordings/{id}/ and /snapshots/', () => {
  it('serves one recording, 404 for an unknown one', async () => {
    expect((await call(sb, '/api/projects/1/session_recordings/s-one/')).json().id).toBe('s-one');
    const missing = await call(sb, '/api/projects/1/session_recordings/nope/');
    expect(missing.status).toBe(404);
    expect(missing.json().detail).toBe('Recording not found');
  });

  it('lists the sources, then serves blocks as JSON lines, at most 20 keys a call with a personal key', async () => {
    const sources = (await call(sb, '/api/projects/1/session_recordings/s-one/snapshots/')).json().sources;
    expect(sources.map((s: { source: string; blob_key: string }) => [s.source, s.blob_key])).toEqual([
      ['blob_v2', '0'],
      ['blob_v2', '1'],
    ]);
    const blocks = await call(sb, '/api/projects/1/session_recordings/s-one/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=1');
    expect(blocks.headers['content-type']).toBe('application/jsonl');
    const lines = blocks.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.data[0].data.href)).toEqual(['https://a.example/1', 'https://a.example/2']);
    const many = await call(sb, '/api/projects/1/session_recordings/s-one/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=21');
    expect(many.status).toBe(400);
    expect(many.json().detail).toBe('Cannot request more than 20 blob keys at once');
    const twenty = await call(sb, '/api/projects/1/session_recordings/s-one/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=20');
    expect(twenty.status).toBe(200);
  });
});

describe('GET /feature_flags/evaluation_reasons/', () => {
  const path = '/api/projects/1/feature_flags/evaluation_reasons/';
  let cookie = '';
  beforeAll(async () => {
    const login = await call(sb, '/api/login/', {
      method: 'POST',
      key: null,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sb.login),
    });
    expect(login.status).toBe(200);
    const raw = login.headers['set-cookie'];
    cookie = (Array.isArray(raw) ? raw : [raw ?? ''])
      .map((line) => line.split(';')[0])
      .filter(Boolean)
      .join('; ');
  });
  const asSession = (query: string) => call(sb, `${path}${query}`, { key: null, headers: { cookie } });

  it('evaluates every flag for the distinct id, as flag_matching.py does, disabled flags included', async () => {
    const res = await asSession('?distinct_id=sar@example.net');
    expect(res.status).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['beta-feature', 'example-net-users', 'legacy-checkout']);
    // A person property condition: the person of the distinct id has an @example.net address.
    expect(body['example-net-users']).toEqual({ value: true, evaluation: { reason: 'condition_match', condition_index: 0 } });
    expect(body['legacy-checkout']).toEqual({ value: false, evaluation: { reason: 'disabled', condition_index: null } });
    // The merged anonymous id is the same person; an id with no person matches no property condition.
    expect((await asSession('?distinct_id=anon-sar')).json()['example-net-users'].value).toBe(true);
    expect((await asSession('?distinct_id=nobody-here')).json()['example-net-users']).toEqual({
      value: false,
      evaluation: { reason: 'no_condition_match', condition_index: 0 },
    });
  });

  it("rolls out 50% by PostHog's SHA-1 of `<flag key>.<distinct id>` (its own test_rollout_percentage ids)", async () => {
    expect((await asSession('?distinct_id=example_id')).json()['beta-feature']).toEqual({
      value: true,
      evaluation: { reason: 'condition_match', condition_index: 0 },
    });
    expect((await asSession('?distinct_id=another_id')).json()['beta-feature']).toEqual({
      value: false,
      evaluation: { reason: 'out_of_rollout_bound', condition_index: 0 },
    });
  });

  it("refuses a missing distinct_id in the view's words, and refuses personal API keys (no scope mapping)", async () => {
    const missing = await asSession('');
    expect(missing.status).toBe(400);
    expect(missing.json()).toMatchObject({ type: 'validation_error', detail: 'distinct_id is required' });
    for (const key of [undefined, sb.addKey(['feature_flag:read'])]) {
      const res = await call(sb, `${path}?distinct_id=example_id`, key ? { key } : {});
      expect(res.status).toBe(403);
      expect(res.json().detail).toBe('This action does not support personal API key access');
    }
  });
});
