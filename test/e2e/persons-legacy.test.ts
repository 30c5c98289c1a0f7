// End-to-end: persons cohorts, timeline, funnel, funnel-correlation and lifecycle (the built
// binary) against the sandbox. Cohorts works with a key; the others refuse keys on current
// servers, so with a key each must send the right request and then say plainly that it needs a
// signed-in session (exit 4).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { cohortsOf, type RecordedRequest } from '@hogctl/sandbox';

let world: World;

beforeAll(async () => {
  world = await startWorld({ persons: 800, seed: 4 });
});
afterAll(async () => {
  await world.close();
});

const P = '/api/projects/1/persons';

function since(before: number): RecordedRequest[] {
  return world.sandbox.requests.slice(before);
}

function expectNeedsSession(res: { code: number | null; stderr: string; stdout: string }, path: string): void {
  expect(res.code).toBe(4);
  expect(res.stderr).toContain(`error: this command needs a signed-in session: the server refuses personal API keys for ${path}`);
  expect(res.stderr).toContain('This action does not support personal API key access');
  expect(res.stderr).toContain('sign in with `hogctl auth login`, then run the command again');
  expect(res.stdout).toBe('');
}

describe('persons cohorts', () => {
  it('lists the cohorts holding the person, from GET /persons/cohorts/?person_id=', async () => {
    const person = [...world.sandbox.store].find((p) => p.properties.plan === 'enterprise' && p.properties.country === 'DE')!;
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'cohorts', String(person.id), '-o', 'json']);
    expect(res.code).toBe(0);
    const [req] = since(before);
    expect(req.method).toBe('GET');
    expect(req.path).toBe(`${P}/cohorts/`);
    expect(req.query).toEqual({ person_id: String(person.id) });
    const cohorts = cohortsOf(1);
    const count = (name: string) => [...world.sandbox.store].filter(cohorts.find((c) => c.name === name)!.matches).length;
    const expected = cohorts.filter((c) => !c.deleted && c.matches(person)).map((c) => ({ id: c.id, name: c.name, count: count(c.name) }));
    expect(expected.map((c) => c.name)).toEqual(expect.arrayContaining(['Paying customers', 'Enterprise accounts', 'Germany']));
    expect(JSON.parse(res.stdout)).toEqual(expected);
  });

  it('prints id, name and count as plain lines, and notes a person in no cohort', async () => {
    const res = await world.run(['persons', 'cohorts', [...world.sandbox.store].find((p) => p.properties.plan === 'team')!.uuid]);
    expect(res.code).toBe(0);
    expect(res.stdout.split('\n')[0]).toMatch(/^1\tPaying customers\t\d+$/);
    const loner = [...world.sandbox.store].find(
      (p) => p.isIdentified && p.properties.plan === 'free' && p.properties.country !== 'DE' && !((p.properties.sessions as number) >= 250),
    )!;
    const none = await world.run(['persons', 'cohorts', String(loner.id)]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain(`person ${loner.id} is in no cohort of your current project`);
  });

  it('an unknown person: the server fails with 500, hogctl checks the person and exits 3', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'cohorts', '999999']);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('person 999999 not found in project 1');
    expect(since(before).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`GET ${P}/cohorts/ 500`, `GET ${P}/999999/ 404`]);
  });

  it('a key without cohort:read is refused (exit 4); a bad id is a usage error sent nowhere (exit 2)', async () => {
    const key = world.sandbox.addKey(['person:read']);
    const denied = await world.run(['persons', 'cohorts', '1'], { env: { HOGCTL_API_KEY: key } });
    expect(denied.code).toBe(4);
    expect(denied.stderr).toContain("API key missing required scope 'cohort:read'");
    const before = world.sandbox.requests.length;
    const bad = await world.run(['persons', 'cohorts', 'user-1']);
    expect(bad.code).toBe(2);
    expect(since(before)).toHaveLength(0);
  });

  it('shows the {message, detail} body of a user without a current project (exit 5)', async () => {
    const saved = world.sandbox.world.user.currentTeamId;
    world.sandbox.world.user.currentTeamId = 0;
    try {
      const res = await world.run(['persons', 'cohorts', '1']);
      expect(res.code).toBe(5);
      expect(res.stderr).toContain(
        `GET ${P}/cohorts/ failed with 400: Could not retrieve team: Could not validate team associated with user`,
      );
      expect(res.stderr).toContain("your user's current project");
    } finally {
      world.sandbox.world.user.currentTeamId = saved;
    }
  });
});

describe('persons timeline', () => {
  it('sends GET /persons/{id}/properties_timeline/ with its parameters, and needs a session', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run([
      'persons',
      'timeline',
      '42',
      '--date-from',
      '2025-01-01',
      '--date-to',
      '2025-03-31',
      '--events',
      '[{"id":"$pageview"}]',
      '--breakdown',
      'plan',
      '--param',
      'interval=week',
      '--params',
      '{"display": "ActionsLineGraph", "interval": "day"}',
    ]);
    expectNeedsSession(res, `GET ${P}/42/properties_timeline/`);
    const [req] = since(before);
    expect(req.method).toBe('GET');
    expect(req.path).toBe(`${P}/42/properties_timeline/`);
    expect(req.query).toEqual({
      display: 'ActionsLineGraph',
      interval: 'week',
      events: '[{"id":"$pageview"}]',
      date_from: '2025-01-01',
      date_to: '2025-03-31',
      breakdown: 'plan',
    });
    expect(req.body).toBe('');
  });

  it('rejects a bad id or bad --params before sending (exit 2)', async () => {
    const before = world.sandbox.requests.length;
    expect((await world.run(['persons', 'timeline', 'someone'])).code).toBe(2);
    expect((await world.run(['persons', 'timeline', '42', '--params', '[1]'])).code).toBe(2);
    expect((await world.run(['persons', 'timeline', '42', '--events', '{"id": 1}'])).code).toBe(2);
    expect((await world.run(['persons', 'timeline', '42', '--param', 'novalue'])).code).toBe(2);
    expect(since(before)).toHaveLength(0);
  });
});

describe('persons funnel', () => {
  const events = '[{"id":"$pageview","order":0},{"id":"signed_up","order":1}]';

  it('GET: the parameters go in the query string; the key is refused (exit 4)', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'funnel', '--legacy', '--events', events, '--funnel-step', '-2', '--date-from', '-30d']);
    expectNeedsSession(res, `GET ${P}/funnel/`);
    const [req] = since(before);
    expect(req.method).toBe('GET');
    expect(req.path).toBe(`${P}/funnel/`);
    expect(req.query).toEqual({ events, date_from: '-30d', funnel_step: '-2' });
  });

  it('--post: the parameters go in a JSON body, with their types', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run([
      'persons',
      'funnel',
      '--legacy',
      '--post',
      '--events',
      events,
      '--funnel-step',
      '2',
      '--params',
      '{"funnel_window_days": 14}',
    ]);
    expectNeedsSession(res, `POST ${P}/funnel/`);
    const [req] = since(before);
    expect(req.method).toBe('POST');
    expect(req.query).toEqual({});
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({ funnel_window_days: 14, events: JSON.parse(events), funnel_step: 2 });
  });

  it('rejects --funnel-step 0 before sending (exit 2)', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'funnel', '--legacy', '--funnel-step', '0']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('invalid --funnel-step "0"');
    expect(since(before)).toHaveLength(0);
  });
});

describe('persons funnel-correlation', () => {
  it('says the newest server no longer offers it (404 → exit 3), for GET and POST', async () => {
    const before = world.sandbox.requests.length;
    const get = await world.run([
      'persons',
      'funnel-correlation',
      '--param',
      'funnel_correlation_person_converted=TRUE',
      '--funnel-step',
      '2',
    ]);
    expect(get.code).toBe(3);
    expect(get.stderr).toContain('this server no longer offers funnel correlation persons');
    const post = await world.run([
      'persons',
      'funnel-correlation',
      '--post',
      '--params',
      '{"funnel_correlation_person_entity": {"id": "paid", "type": "events"}}',
    ]);
    expect(post.code).toBe(3);
    const [a, b] = since(before);
    expect([a.method, a.path, a.query, a.status]).toEqual([
      'GET',
      `${P}/funnel/correlation/`,
      { funnel_correlation_person_converted: 'TRUE', funnel_step: '2' },
      404,
    ]);
    expect([b.method, b.path, JSON.parse(b.body)]).toEqual([
      'POST',
      `${P}/funnel/correlation/`,
      { funnel_correlation_person_entity: { id: 'paid', type: 'events' } },
    ]);
  });
});

describe('persons lifecycle', () => {
  it('sends target_date and lifecycle_type, and needs a session (exit 4)', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run([
      'persons',
      'lifecycle',
      '--legacy',
      '--target-date',
      '2025-03-01',
      '--lifecycle-type',
      'resurrecting',
      '--events',
      '[{"id":"$pageview"}]',
    ]);
    expectNeedsSession(res, `GET ${P}/lifecycle/`);
    const [req] = since(before);
    expect(req.method).toBe('GET');
    expect(req.path).toBe(`${P}/lifecycle/`);
    expect(req.query).toEqual({ events: '[{"id":"$pageview"}]', target_date: '2025-03-01', lifecycle_type: 'resurrecting' });
  });

  it('accepts the required parameters through --param too', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run([
      'persons',
      'lifecycle',
      '--legacy',
      '--param',
      'target_date=2025-03-01',
      '--param',
      'lifecycle_type=dormant',
    ]);
    expect(res.code).toBe(4);
    expect(since(before)[0].query).toEqual({ target_date: '2025-03-01', lifecycle_type: 'dormant' });
  });

  it('validates --target-date and --lifecycle-type before sending (exit 2)', async () => {
    const before = world.sandbox.requests.length;
    for (const [args, message] of [
      [['--lifecycle-type', 'new'], 'missing --target-date'],
      [['--target-date', '2025-03-01'], 'missing --lifecycle-type'],
      [['--target-date', 'yesterday', '--lifecycle-type', 'new'], 'invalid --target-date "yesterday"'],
      [
        ['--target-date', '2025-03-01', '--lifecycle-type', 'churned'],
        'invalid --lifecycle-type "churned": expected one of new, returning, resurrecting, dormant',
      ],
    ] as const) {
      const res = await world.run(['persons', 'lifecycle', '--legacy', ...args]);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toContain(message);
    }
    expect(since(before)).toHaveLength(0);
  });
});

describe('with a signed-in session (hogctl auth login)', () => {
  // A config dir of its own: a session there makes every insight verb use it instead of the key.
  let env: Record<string, string>;

  beforeAll(async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    env = { HOGCTL_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'hogctl-e2e-session-')) };
    const login = await world.run(['auth', 'login', '--email', world.sandbox.login.email, '--password-stdin'], {
      env,
      stdin: world.sandbox.login.password,
    });
    expect(login.code, login.stderr).toBe(0);
  });
  afterAll(async () => {
    const { rmSync } = await import('node:fs');
    rmSync(env.HOGCTL_CONFIG_DIR, { recursive: true, force: true });
  });

  it('lifecycle sends the session cookie, no key, and prints the people of the bucket', async () => {
    const day = [...world.sandbox.store][40].createdAt.slice(0, 10);
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'lifecycle', '--legacy', '--target-date', day, '--lifecycle-type', 'new', '-o', 'json'], {
      env,
    });
    expect(res.code, res.stderr).toBe(0);
    const expected = [...world.sandbox.store].filter((p) => p.createdAt.startsWith(day)).map((p) => p.uuid);
    expect(JSON.parse(res.stdout).map((p: { id: string }) => p.id)).toEqual(expected);
    const [req] = since(before);
    expect(req.status).toBe(200);
    expect(req.headers.authorization).toBeUndefined();
    expect(String(req.headers.cookie)).toContain('sessionid=');
  });

  it("funnel --post follows the pages with --all; a one-step funnel is the server's 400 (exit 5)", async () => {
    const events = '[{"id":"$pageview"},{"id":"signed_up"}]';
    const before = world.sandbox.requests.length;
    const res = await world.run(
      [
        'persons',
        'funnel',
        '--legacy',
        '--post',
        '--events',
        events,
        '--funnel-step',
        '1',
        '--param',
        'limit=100',
        '--all',
        '-o',
        'ndjson',
      ],
      { env },
    );
    expect(res.code, res.stderr).toBe(0);
    const ids = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThan(100);
    const posts = since(before).filter((r) => r.path === `${P}/funnel/`);
    expect(posts.length).toBe(Math.ceil(ids.length / 100) + (ids.length % 100 === 0 ? 1 : 0));
    expect(posts.every((r) => r.method === 'POST' && r.headers['x-csrftoken'])).toBe(true);
    expect(JSON.parse(posts[1].body)).toMatchObject({ funnel_step: 1, limit: '100', offset: 100 });

    const one = await world.run(['persons', 'funnel', '--legacy', '--events', '[{"id":"$pageview"}]'], { env });
    expect(one.code).toBe(5);
    expect(one.stderr).toContain('Funnels require at least two steps before calculating.');
  });

  it('timeline prints the points; an unknown person is not found (exit 3)', async () => {
    const person = [...world.sandbox.store].find((p) => p.properties.plan === 'enterprise')!;
    const res = await world.run(['persons', 'timeline', person.uuid, '-o', 'ndjson'], { env });
    expect(res.code, res.stderr).toBe(0);
    const points = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(points.map((p) => p.properties.plan)).toEqual(['free', 'enterprise']);
    expect(res.stderr).toMatch(/2 points from /);
    const missing = await world.run(['persons', 'timeline', '999999'], { env });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('person 999999 not found in project 1');
  });
});
