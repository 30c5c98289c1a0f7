// `hogctl persons timeline` in this process (test/cli/harness.ts) against the sandbox. Cohorts works
// with a key; the other legacy lists refuse keys on current servers, so with a key each must send
// the right request and then say plainly that it needs a signed-in session (exit 4).
import { describe, expect, it } from 'vitest';
import { P, expectNeedsSession, useLegacyWorld, useSignedInSession } from './legacy-fixtures.js';

const { world, since } = useLegacyWorld();

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

describe('with a signed-in session (hogctl auth login)', () => {
  const env: Record<string, string> = {};
  useSignedInSession(world, env);

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
