// The persons actions behind insights over HTTP: cohorts with a key (person:read + cohort:read),
// and properties_timeline, funnel and lifecycle, which refuse keys and answer a session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/server.js';
import { cohortsOf } from '../src/cohorts.js';
import { UNSUPPORTED_KEY_ACTION } from '../src/errors.js';
import { call, errorBody, withSandbox, type Reply } from './helpers.js';

let sb: Sandbox;
let cookies = '';
let csrf = '';

function keep(reply: Reply): void {
  const raw = reply.headers['set-cookie'];
  const jar = new Map(cookies ? cookies.split('; ').map((c) => c.split('=') as [string, string]) : []);
  for (const line of Array.isArray(raw) ? raw : raw ? [raw] : []) {
    const [pair] = line.split(';');
    const eq = pair.indexOf('=');
    jar.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  cookies = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  csrf = jar.get('posthog_csrftoken') ?? '';
}

/** A signed-in browser: session cookie, and the CSRF header on unsafe methods. */
function asSession(path: string, method: 'GET' | 'POST' = 'GET', body?: unknown) {
  const headers: Record<string, string> = { cookie: cookies };
  if (method === 'POST') headers['x-csrftoken'] = csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return call(sb, path, { method, key: null, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

beforeAll(async () => {
  sb = await withSandbox({ persons: 600, seed: 9 });
  const login = await call(sb, '/api/login/', {
    method: 'POST',
    key: null,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sb.login),
  });
  expect(login.status).toBe(200);
  keep(login);
});
afterAll(() => sb.close());

const P = '/api/projects/1/persons';

describe('GET /persons/cohorts/', () => {
  it('lists the non-deleted cohorts holding the person, with their sizes', async () => {
    const person = [...sb.store].find((p) => p.properties.plan === 'enterprise' && p.properties.country === 'US')!;
    const res = await call(sb, `${P}/cohorts/?person_id=${person.id}`);
    expect(res.status).toBe(200);
    const names = res.json().results.map((c: { name: string }) => c.name);
    expect(names).toContain('Paying customers');
    expect(names).toContain('Enterprise accounts');
    // The deleted "Beta testers 2024" matches every US person but is never listed.
    expect(names).not.toContain('Beta testers 2024');
    const paying = res.json().results.find((c: { name: string }) => c.name === 'Paying customers');
    expect(paying).toEqual({
      id: cohortsOf(1)[0].id,
      name: 'Paying customers',
      count: [...sb.store].filter((p) => p.properties.plan === 'team' || p.properties.plan === 'enterprise').length,
    });
    // The uuid works as well as the integer id.
    expect((await call(sb, `${P}/cohorts/?person_id=${person.uuid}`)).json()).toEqual(res.json());
  });

  it('needs person:read and cohort:read', async () => {
    const denied = await call(sb, `${P}/cohorts/?person_id=1`, { key: sb.addKey(['person:read']) });
    expect(denied.status).toBe(403);
    expect(denied.json()).toEqual(errorBody('authentication_error', 'permission_denied', "API key missing required scope 'cohort:read'"));
    expect((await call(sb, `${P}/cohorts/?person_id=1`, { key: sb.addKey(['person:read', 'cohort:read']) })).status).toBe(200);
  });

  it('copies the server: a 500 for an unknown person, {message, detail} without a current team', async () => {
    expect((await call(sb, `${P}/cohorts/?person_id=999999`)).status).toBe(500);
    const saved = sb.world.user.currentTeamId;
    sb.world.user.currentTeamId = 0;
    try {
      const res = await call(sb, `${P}/cohorts/?person_id=1`);
      expect(res.status).toBe(400);
      expect(res.json()).toEqual({ message: 'Could not retrieve team', detail: 'Could not validate team associated with user' });
    } finally {
      sb.world.user.currentTeamId = saved;
    }
  });
});

describe('session-only actions', () => {
  it('refuse personal API keys with 403 before anything else', async () => {
    for (const [path, method] of [
      [`${P}/1/properties_timeline/`, 'GET'],
      [`${P}/999999/properties_timeline/`, 'GET'],
      [`${P}/funnel/`, 'GET'],
      [`${P}/funnel/`, 'POST'],
      [`${P}/lifecycle/`, 'GET'],
    ] as const) {
      const res = await call(sb, path, {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.json()).toEqual(errorBody('authentication_error', 'permission_denied', UNSUPPORTED_KEY_ACTION));
    }
  });

  it('funnel/correlation is gone, as on the newest server', async () => {
    expect((await call(sb, `${P}/funnel/correlation/`)).status).toBe(404);
    expect((await asSession(`${P}/funnel/correlation/`)).status).toBe(404);
  });

  it('properties_timeline answers a session with points and the effective range', async () => {
    const person = [...sb.store].find((p) => p.properties.plan === 'team')!;
    const res = await asSession(`${P}/${person.uuid}/properties_timeline/?date_from=2024-01-01&breakdown=plan`);
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body.points).toHaveLength(2);
    expect(body.points[0]).toMatchObject({ timestamp: person.createdAt, properties: { plan: 'free' } });
    expect(body.points[1].properties).toEqual(person.properties);
    expect(body).toMatchObject({ crucial_property_keys: ['plan'], effective_date_from: '2024-01-01' });
    expect((await asSession(`${P}/999999/properties_timeline/`)).status).toBe(404);
  });

  it('funnel answers people per step by GET and POST, drop-offs with a negative step, and pages', async () => {
    const events = JSON.stringify([{ id: '$pageview' }, { id: 'signed_up' }, { id: 'paid' }]);
    const step1 = (await asSession(`${P}/funnel/?events=${encodeURIComponent(events)}&funnel_step=1&limit=50`)).json();
    const step2 = (await asSession(`${P}/funnel/`, 'POST', { events: JSON.parse(events), funnel_step: 2, limit: 10000 })).json();
    const drop2 = (await asSession(`${P}/funnel/`, 'POST', { events: JSON.parse(events), funnel_step: -2, limit: 10000 })).json();
    expect(step1.results[0].people).toHaveLength(50);
    expect(step1.next).toContain('offset=50');
    expect(step1).toMatchObject({ missing_persons: 0, is_cached: false });
    const reached2 = new Set(step2.results[0].people.map((p: { id: string }) => p.id));
    const dropped2 = drop2.results[0].people.map((p: { id: string }) => p.id);
    expect(reached2.size).toBeGreaterThan(0);
    expect(dropped2.length).toBeGreaterThan(0);
    expect(dropped2.some((id: string) => reached2.has(id))).toBe(false);
    const next = await asSession(step1.next.replace(sb.url, ''));
    expect(next.json().results[0].people[0].id).not.toBe(step1.results[0].people[0].id);
  });

  it('funnel refuses fewer than two steps and an out-of-range step', async () => {
    const none = await asSession(`${P}/funnel/`);
    expect(none.status).toBe(400);
    expect(none.json()).toEqual(errorBody('validation_error', 'invalid_input', 'Funnels require at least two steps before calculating.'));
    const far = await asSession(`${P}/funnel/?events=${encodeURIComponent('[{"id":"a"},{"id":"b"}]')}&funnel_step=3`);
    expect(far.status).toBe(400);
  });

  it('lifecycle needs target_date, then lifecycle_type, with the hand-built {message, detail} bodies', async () => {
    const noDate = await asSession(`${P}/lifecycle/?lifecycle_type=new`);
    expect(noDate.status).toBe(400);
    expect(noDate.json()).toEqual({ message: 'Missing parameter', detail: 'Must include specified date' });
    const noType = await asSession(`${P}/lifecycle/?target_date=2025-06-01`);
    expect(noType.json()).toEqual({ message: 'Missing parameter', detail: 'Must include lifecycle type' });
  });

  it('lifecycle "new" lists the persons created on the target date; the other buckets are disjoint', async () => {
    const day = [...sb.store][100].createdAt.slice(0, 10);
    const res = await asSession(`${P}/lifecycle/?target_date=${day}&lifecycle_type=new`);
    expect(res.status).toBe(200);
    const ids = res.json().results[0].people.map((p: { id: string }) => p.id);
    expect(ids).toEqual([...sb.store].filter((p) => p.createdAt.startsWith(day)).map((p) => p.uuid));
    const bucket = async (type: string) =>
      (await asSession(`${P}/lifecycle/?target_date=2026-01-01&lifecycle_type=${type}`))
        .json()
        .results[0].people.map((p: { id: string }) => p.id) as string[];
    const [returning, dormant] = [await bucket('returning'), await bucket('dormant')];
    expect(returning.length).toBeGreaterThan(0);
    expect(dormant.length).toBeGreaterThan(0);
    expect(returning.some((id) => dormant.includes(id))).toBe(false);
  });
});
