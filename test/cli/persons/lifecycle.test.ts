// `hogctl persons lifecycle` in this process (test/cli/harness.ts) against the sandbox. Cohorts works
// with a key; the other legacy lists refuse keys on current servers, so with a key each must send
// the right request and then say plainly that it needs a signed-in session (exit 4).
import { describe, expect, it } from 'vitest';
import { P, expectNeedsSession, useLegacyWorld, useSignedInSession } from './legacy-fixtures.js';

const { world, since } = useLegacyWorld();

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
  const env: Record<string, string> = {};
  useSignedInSession(world, env);

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
});
