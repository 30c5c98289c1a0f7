// `hogctl persons funnel` in this process (test/cli/harness.ts) against the sandbox. Cohorts works
// with a key; the other legacy lists refuse keys on current servers, so with a key each must send
// the right request and then say plainly that it needs a signed-in session (exit 4).
import { describe, expect, it } from 'vitest';
import { P, expectNeedsSession, useLegacyWorld, useSignedInSession } from './legacy-fixtures.js';

const { world, since } = useLegacyWorld();

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

describe('with a signed-in session (hogctl auth login)', () => {
  const env: Record<string, string> = {};
  useSignedInSession(world, env);

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
});
