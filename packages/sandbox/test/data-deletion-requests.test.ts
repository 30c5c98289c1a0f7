// /api/projects/{id}/data_deletion_requests/ as PostHog/posthog PR #104278 serves it
// (posthog/api/data_deletion_request.py, posthog/data_deletion.py), with the sandbox's approval
// and weekly job under /_sandbox/.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/server.js';
import { call, errorBody, withSandbox, type CallOptions, type Reply } from './helpers.js';

const BASE = '/api/projects/1/data_deletion_requests/';
const FLAG_OFF = 'Self-service data deletion is not enabled for this project.';
let sb: Sandbox;
let clock = Date.UTC(2026, 9, 1, 9);

beforeEach(async () => {
  clock = Date.UTC(2026, 9, 1, 9);
  sb = await withSandbox({ persons: 4, eventsPerPerson: 0, password: 'correct horse battery', now: () => clock });
});
afterEach(() => sb.close());

function post(path: string, body: unknown, opts: CallOptions = {}): Promise<Reply> {
  return call(sb, path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' }, ...opts });
}

const enable = (project = 1) => call(sb, `/_sandbox/projects/${project}/self-service-data-deletion/on`, { method: 'POST', key: null });

/** A signed-in session: preview refuses personal keys. */
async function session(): Promise<CallOptions> {
  const login = await post('/api/login/', { email: 'sandbox@example.com', password: 'correct horse battery' }, { key: null });
  const raw = login.headers['set-cookie'];
  const cookies = (Array.isArray(raw) ? raw : [raw ?? '']).map((c) => c.split(';')[0]);
  const csrf = cookies.find((c) => c.startsWith('posthog_csrftoken='))!.split('=')[1];
  return { key: null, headers: { cookie: cookies.join('; '), 'x-csrftoken': csrf, 'content-type': 'application/json' } };
}

function addEvent(distinctId: string, event = '$pageview'): string {
  const uuid = randomUUID();
  sb.events.get(1)!.add({
    uuid,
    event,
    distinctId,
    personId: randomUUID(),
    timestampUs: clock * 1000,
    createdAtUs: clock * 1000,
    properties: '{}',
    sessionId: null,
  });
  return uuid;
}

const QUERY = "SELECT uuid FROM events WHERE distinct_id IN ('anon-1', 'anon-2')";

describe('the flag gate', () => {
  it('answers 403 with the flag text for every action while the project has it off (the default)', async () => {
    const s = await session();
    expect((await call(sb, BASE)).json()).toEqual(errorBody('authentication_error', 'permission_denied', FLAG_OFF));
    expect((await post(`${BASE}preview/`, { query: QUERY }, s)).status).toBe(403);
    const create = await post(BASE, { query: QUERY, submission_id: randomUUID() });
    expect([create.status, create.json().detail]).toEqual([403, FLAG_OFF]);
    expect((await call(sb, `${BASE}${randomUUID()}/`, { method: 'DELETE', ...s })).json().detail).toBe(FLAG_OFF);
    await enable();
    expect((await call(sb, BASE)).status).toBe(200);
    expect((await call(sb, '/api/projects/2/data_deletion_requests/')).status).toBe(403);
  });
});

describe('preview', () => {
  beforeEach(() => enable());

  it('counts the selected events for a session, and refuses personal keys', async () => {
    addEvent('anon-1');
    addEvent('anon-2');
    addEvent('someone-else');
    const s = await session();
    expect((await post(`${BASE}preview/`, { query: QUERY, ignored: 1 }, s)).json()).toEqual({ count: 2 });
    const byKey = await post(`${BASE}preview/`, { query: QUERY });
    expect(byKey.json()).toEqual(
      errorBody('authentication_error', 'permission_denied', 'This action does not support personal API key access'),
    );
  });

  it('requires exactly one UUID column, and takes toUUID() and variables', async () => {
    addEvent('anon-1');
    const s = await session();
    const detail = async (query: string, variables?: unknown) => (await post(`${BASE}preview/`, { query, variables }, s)).json();
    expect(await detail('SELECT uuid, event FROM events')).toEqual(
      errorBody('validation_error', 'invalid_input', 'The HogQL query must select exactly one event UUID column.', 'query'),
    );
    expect((await detail('SELECT distinct_id FROM events')).detail).toBe('The selected column must contain event UUIDs.');
    expect(await detail('SELECT toUUID(toString(uuid)) FROM events')).toEqual({ count: 1 });
    expect((await detail('SELECT nope FROM events')).attr).toBe('query');
    const variables = { v1: { code_name: 'ids', variableId: 'v1', value: ['anon-1'] } };
    expect(await detail('SELECT uuid FROM events WHERE distinct_id IN {variables.ids}', variables)).toEqual({ count: 1 });
    expect((await detail('SELECT uuid FROM events', [])).detail).toBe('Query variables must be a JSON object.');
    expect((await detail('SELECT uuid FROM events', { v: { code_name: 'x' } })).detail).toBe('The query variables are invalid.');
  });

  it('refuses a query or variables above 100,000 bytes', async () => {
    const s = await session();
    const long = `SELECT uuid FROM events WHERE distinct_id = '${'x'.repeat(100_000)}'`;
    expect((await post(`${BASE}preview/`, { query: long }, s)).json()).toEqual(
      errorBody('validation_error', 'invalid_input', 'The query must be smaller than 100000 bytes.', 'query'),
    );
    const variables = { v: { code_name: 'x', variableId: 'v', value: 'é'.repeat(20_000) } };
    expect((await post(`${BASE}preview/`, { query: QUERY, variables }, s)).json().attr).toBe('variables');
  });

  it("parses with PostHog's own grammar: what it refuses is refused with its message, also where a laxer parser took it", async () => {
    const s = await session();
    const refused = async (query: string) => (await post(`${BASE}preview/`, { query }, s)).json();
    // An unknown escape: PostHog's lexer has no rule for it (the sandbox's hand-written parser took it).
    expect(await refused("SELECT uuid FROM events WHERE distinct_id = 'a\\q'")).toEqual(
      errorBody(
        'validation_error',
        'invalid_input',
        "no viable alternative at input 'SELECT uuid FROM events WHERE distinct_id = ''",
        'query',
      ),
    );
    expect((await refused('SELECT uuid FROM events WHERE')).detail).toBe("no viable alternative at input 'SELECT uuid FROM events WHERE'");
    // Create gives the same verdict, and saves nothing.
    const create = await post(BASE, { query: "SELECT uuid FROM events WHERE distinct_id = 'a\\q'", submission_id: randomUUID() });
    expect([create.status, create.json().attr]).toEqual([400, 'query']);
    expect((await call(sb, BASE)).json().count).toBe(0);
  });

  it('throttles previews per project: 5 a minute for all callers together', async () => {
    sb.setRateLimit('cloud');
    const s = await session();
    for (let i = 0; i < 5; i++) expect((await post(`${BASE}preview/`, { query: QUERY }, s)).status).toBe(200);
    const sixth = await post(`${BASE}preview/`, { query: QUERY }, s);
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('create', () => {
  beforeEach(() => enable());

  it('creates a pending request with server-owned fields; the same request again is 200, another is 409', async () => {
    const submission = randomUUID();
    const first = await post(BASE, { query: QUERY, variables: {}, submission_id: submission });
    expect(first.status).toBe(201);
    expect(first.json()).toMatchObject({ status: 'pending', query: QUERY, variables: {}, submission_id: submission, count: null });
    expect(first.json()).toMatchObject({ created_by_id: 1, created_by_staff: false, approved_at: null, stats_calculated_at: null });
    const again = await post(BASE, { query: QUERY, submission_id: submission });
    expect([again.status, again.json().id]).toEqual([200, first.json().id]);
    const other = await post(BASE, { query: 'SELECT uuid FROM events', submission_id: submission });
    expect(other.status).toBe(409);
    expect(other.json()).toEqual({ detail: 'This submission ID is already used by a different deletion request.' });
    const page = (await call(sb, BASE)).json();
    expect([page.count, page.results[0].id]).toEqual([1, first.json().id]);
    expect((await call(sb, `${BASE}${first.json().id}/`)).json()).toEqual(first.json());
    expect((await call(sb, `/api/projects/2/data_deletion_requests/${first.json().id}/`)).status).toBe(403);
  });

  it('refuses fields the server owns, a missing submission id, and a bad query, saving nothing', async () => {
    const refused = await post(BASE, { query: QUERY, submission_id: randomUUID(), status: 'completed' });
    expect(refused.json()).toEqual(errorBody('validation_error', 'invalid_input', 'This field is not accepted.', 'status'));
    expect((await post(BASE, { query: QUERY })).json().attr).toBe('submission_id');
    expect((await post(BASE, { query: 'SELECT event FROM events', submission_id: randomUUID() })).status).toBe(400);
    expect((await call(sb, BASE)).json().count).toBe(0);
  });

  it('allows five active requests, and then answers 409', async () => {
    for (let i = 0; i < 5; i++) expect((await post(BASE, { query: QUERY, submission_id: randomUUID() })).status).toBe(201);
    const sixth = await post(BASE, { query: QUERY, submission_id: randomUUID() });
    expect([sixth.status, sixth.json()]).toEqual([
      409,
      { detail: 'This project already has the maximum number of active deletion requests.' },
    ]);
  });

  it('throttles creates per project: 10 an hour', async () => {
    sb.setRateLimit('cloud');
    for (let i = 0; i < 10; i++) expect((await post(BASE, { query: 'bad', submission_id: randomUUID() })).status).toBe(400);
    const eleventh = await post(BASE, { query: QUERY, submission_id: randomUUID() });
    expect(eleventh.status).toBe(429);
  });

  it('answers 405 for methods the viewset does not have', async () => {
    const s = await session();
    expect((await call(sb, BASE, { method: 'PUT', ...s, body: '{}' })).status).toBe(405);
  });
});

describe('approval and the weekly job', () => {
  beforeEach(() => enable());

  it('queues the events selected at approval, deletes them in the weekly job, and completes the request', async () => {
    const before = addEvent('anon-1');
    const kept = addEvent('someone-else');
    const created = (await post(BASE, { query: QUERY, submission_id: randomUUID() })).json();
    clock += 60_000;
    const approved = await call(sb, `/_sandbox/data-deletion-requests/${created.id}/approve`, { method: 'POST', key: null });
    expect(approved.json()).toMatchObject({ status: 'queued', approved_at: expect.any(String) });
    const later = addEvent('anon-2');
    const run = (await call(sb, '/_sandbox/deletions/run', { method: 'POST', key: null })).json();
    expect(run).toEqual({ completed: 0, data_deletion_requests_completed: 1 });
    expect((await call(sb, `${BASE}${created.id}/`)).json().status).toBe('completed');
    const s = await session();
    const left = await post(`${BASE}preview/`, { query: 'SELECT uuid FROM events' }, s);
    expect(left.json()).toEqual({ count: 2 });
    const uuids = (await post('/api/projects/1/query/', { query: { kind: 'HogQLQuery', query: 'SELECT uuid FROM events' } })).json();
    expect(uuids.results.flat().sort()).toEqual([kept, later].sort());
    expect(uuids.results.flat()).not.toContain(before);
  });

  it('approves every pending request of a project at once', async () => {
    await post(BASE, { query: QUERY, submission_id: randomUUID() });
    await post(BASE, { query: QUERY, submission_id: randomUUID() });
    const approved = await call(sb, '/_sandbox/projects/1/data-deletion-requests/approve', { method: 'POST', key: null });
    expect(approved.json()).toEqual({ approved: 2 });
  });
});
