// `hogctl persons list` in this process (test/cli/harness.ts) against the sandbox, and the exit
// codes every command shares, shown on it. Piped to a terminal or to `head`: test/e2e/foundation.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';

let world: World;

beforeAll(async () => {
  world = await startWorld({ persons: 2500, seed: 7 });
});
afterAll(async () => {
  await world.close();
});

describe('persons list', () => {
  it('--all with page size 100 returns exactly 2,500 unique ids, each page starting 25 rows early', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'list', '--all', '--page-size', '100', '-o', 'ndjson']);
    expect(res.code).toBe(0);
    const rows = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(2500);
    expect(new Set(rows.map((r) => r.id)).size).toBe(2500);
    const requests = world.sandbox.requests.slice(before).filter((r) => r.path.endsWith('/persons/'));
    // Each next page reaches 25 rows back (deletions meanwhile would shift it); the last one holds
    // only those 25, so it is short and links nowhere.
    expect(requests).toHaveLength(26);
    expect(requests.map((r) => `${r.query.offset ?? 0}+${r.query.limit}`)).toEqual([
      '0+100',
      ...Array.from({ length: 25 }, (_, i) => `${(i + 1) * 100 - 25}+125`),
    ]);
  });

  it('sends filters as PostHog expects them', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run([
      'persons',
      'list',
      '--email',
      'user5@example.com',
      '--search',
      'user',
      '--distinct-id',
      'user-5',
      '--where',
      'plan=team',
      '--properties',
      '[{"key":"country","value":"DE","operator":"is_not"}]',
      '-o',
      'json',
    ]);
    expect(res.code).toBe(0);
    const req = world.sandbox.requests.slice(before).find((r) => r.path.endsWith('/persons/'))!;
    expect(req.method).toBe('GET');
    // PostHog's email parameter compares case and all: --email goes as a regex of ASCII letter classes.
    expect(req.query.email).toBeUndefined();
    expect(req.query.search).toBe('user');
    expect(req.query.distinct_id).toBe('user-5');
    expect(JSON.parse(req.query.properties as string)).toEqual([
      { key: 'email', value: '^[uU][sS][eE][rR]5@[eE][xX][aA][mM][pP][lL][eE]\\.[cC][oO][mM]$', operator: 'regex', type: 'person' },
      { key: 'plan', value: 'team', operator: 'exact', type: 'person' },
      { key: 'country', value: 'DE', operator: 'is_not', type: 'person' },
    ]);
    expect(Array.isArray(JSON.parse(res.stdout))).toBe(true);
  });

  it('filters really narrow the result', async () => {
    const res = await world.run(['persons', 'list', '--where', 'plan=enterprise', '--all', '-o', 'ndjson']);
    expect(res.code).toBe(0);
    const rows = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.properties.plan === 'enterprise')).toBe(true);
  });

  it('--fields picks columns in csv and rejects unknown names with the valid ones', async () => {
    const csv = await world.run(['persons', 'list', '--limit', '2', '-o', 'csv', '--fields', 'id,properties.email']);
    expect(csv.code).toBe(0);
    const [header, ...rows] = csv.stdout.trim().split('\n');
    expect(header).toBe('id,properties.email');
    expect(rows).toHaveLength(2);

    const bad = await world.run(['persons', 'list', '--fields', 'id,emial']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"emial"');
    expect(bad.stderr).toContain('valid fields are id, uuid');
    expect(bad.stdout).toBe('');
  });

  it('--server-format csv passes the format parameter and prints the server CSV', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'list', '--server-format', 'csv', '--where', 'plan=team']);
    expect(res.code).toBe(0);
    const req = world.sandbox.requests.slice(before).find((r) => r.path.endsWith('/persons/'))!;
    expect(req.query.format).toBe('csv');
    expect(res.stdout.split('\n')[0]).toContain('properties.email');
  });

  it('an empty result exits 0', async () => {
    const res = await world.run(['persons', 'list', '--email', 'nobody@nowhere.invalid', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual([]);
  });
});

describe('exit codes', () => {
  it('2 for a bad flag, a bad id and a missing project, with nothing sent', async () => {
    const before = world.sandbox.requests.length;
    const flag = await world.run(['persons', 'list', '--limitt', '3']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("unknown option '--limitt'");
    const id = await world.run(['persons', 'get', 'not-an-id']);
    expect(id.code).toBe(2);
    expect(id.stderr).toContain('invalid person id "not-an-id"');
    expect(id.stderr).toContain('--distinct-id');
    const noProject = await world.run(['persons', 'list'], { env: { HOGCTL_PROJECT_ID: undefined } });
    expect(noProject.code).toBe(2);
    expect(noProject.stderr).toContain('no project chosen');
    expect(world.sandbox.requests.length).toBe(before);
  });

  it('3 for a person that does not exist', async () => {
    const res = await world.run(['persons', 'get', '99999999']);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('person 99999999 not found in project');
    const distinct = await world.run(['persons', 'get', '--distinct-id', 'no-such-id']);
    expect(distinct.code).toBe(3);
  });

  it('4 for a missing key, a refused key and a missing scope', async () => {
    const none = await world.run(['persons', 'list'], { env: { HOGCTL_API_KEY: undefined } });
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('HOGCTL_API_KEY');
    const bad = await world.run(['persons', 'list'], { env: { HOGCTL_API_KEY: 'phx_notakey' } });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toContain('Personal API key found in request Authorization header is invalid');
    const readOnly = world.sandbox.addKey(['project:read']);
    const scope = await world.run(['persons', 'list'], { env: { HOGCTL_API_KEY: readOnly } });
    expect(scope.code).toBe(4);
    expect(scope.stderr).toContain("API key missing required scope 'person:read'");
    expect(scope.stderr).not.toContain(readOnly);
  });

  it('6 when still rate-limited after retries, 7 on a server failure', async () => {
    const throttled = await startWorld({ persons: 10, faults: '429=1' });
    try {
      const res = await throttled.run(['persons', 'list']);
      expect(res.code).toBe(6);
      expect(res.stderr).toContain('Request was throttled');
      expect(throttled.sandbox.requests.length).toBe(6); // the first try and five retries
    } finally {
      await throttled.close();
    }
    const failing = await startWorld({ persons: 10, faults: '500=1' });
    try {
      const res = await failing.run(['persons', 'list']);
      expect(res.code).toBe(7);
      expect(res.stderr).toContain('A server error occurred.');
      expect(res.stderr).not.toMatch(/\n\s+at /); // no stack trace
    } finally {
      await failing.close();
    }
  });
});

describe('exit code 5', () => {
  it('when the server rejects a filter', async () => {
    const res = await world.run(['persons', 'list', '--properties', '[{"key":"email","operator":"regex","value":"("}]']);
    expect(res.code).toBe(5);
    expect(res.stderr).toMatch(/failed with 400/);
  });
});
