// `hogctl persons query` in this process (test/cli/harness.ts) against the sandbox's HogQL
// endpoint. The continuation it prints, run as pasted into a shell: test/e2e/persons-query.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';
import type { RecordedRequest } from '@hogctl/sandbox';

const PERSONS = 30_000;
let world: World;

beforeAll(async () => {
  world = await startWorld({ persons: PERSONS, seed: 11 });
});
afterAll(async () => {
  await world.close();
});

interface QueryBody {
  query: { kind: string; query: string; values?: Record<string, unknown> };
  name: string;
  refresh: string;
}

/** The query requests made by the command just run. */
function queriesSince(before: number): { request: RecordedRequest; body: QueryBody }[] {
  return world.sandbox.requests
    .slice(before)
    .filter((r) => r.path === '/api/projects/1/query/')
    .map((request) => ({ request, body: JSON.parse(request.body) as QueryBody }));
}

/** The sandbox's persons in the order --all pages them: created_at DESC, then the UUID DESC. */
function inKeysetOrder() {
  return [...world.sandbox.store].sort((a, b) => b.createdAtUs - a.createdAtUs || (a.uuid < b.uuid ? 1 : a.uuid > b.uuid ? -1 : 0));
}

const lines = (text: string) => text.trim().split('\n').filter(Boolean);

describe('persons query --all (keyset paging)', () => {
  it(`returns exactly ${PERSONS.toLocaleString('en-US')} unique rows, paging by created_at and id, never by OFFSET`, async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run([
      'persons',
      'query',
      'SELECT id, properties.email FROM persons',
      '--all',
      '--page-size',
      '10000',
      '-o',
      'ndjson',
    ]);
    expect(res.code).toBe(0);
    const rows = lines(res.stdout).map((l) => JSON.parse(l));
    expect(rows).toHaveLength(PERSONS);
    expect(new Set(rows.map((r) => r.id)).size).toBe(PERSONS);
    // The hidden cursor columns stay hidden; rows come newest first.
    expect(Object.keys(rows[0])).toEqual(['id', 'email']);
    const all = inKeysetOrder();
    expect(rows.map((r) => r.id)).toEqual(all.map((p) => p.uuid));
    expect(rows.map((r) => r.email)).toEqual(all.map((p) => p.properties.email ?? null));

    const queries = queriesSince(before);
    // 10,000 rows a page: three full pages, then an empty one that ends the walk.
    expect(queries).toHaveLength(4);
    for (const { request, body } of queries) {
      expect(request.method).toBe('POST');
      expect(request.status).toBe(200);
      expect(body.query.query).not.toMatch(/offset/i);
      expect(body).toMatchObject({ query: { kind: 'HogQLQuery' }, name: 'hogctl-persons-query', refresh: 'blocking' });
      expect(body.query.query).toMatch(/ORDER BY created_at DESC, id DESC\nLIMIT 10000$/);
    }
    expect(queries[0].body.query.values).toBeUndefined();
    expect(queries[0].body.query.query).not.toContain('WHERE');
    // From the second page on, the WHERE carries the keyset of the previous page's last row,
    // as placeholders whose values are that row's created_at and id.
    for (let page = 1; page < queries.length; page++) {
      const { query, values } = queries[page].body.query;
      // The cursor is typed (toDateTime of UTC text with microseconds), not a bare string.
      expect(query).toContain(
        'WHERE (created_at < toDateTime({hogctl_cursor_created_at}) OR (created_at = toDateTime({hogctl_cursor_created_at}) AND id < {hogctl_cursor_id}))',
      );
      const last = all[page * 10_000 - 1];
      expect(values).toEqual({ hogctl_cursor_created_at: last.createdAt, hogctl_cursor_id: last.uuid });
      expect(last.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      expect(query).not.toContain(last.uuid);
    }
    expect(res.stderr).toContain('30,000 rows in 4 queries');
  });

  it('asks for the largest page the server allows by default: 30,000 rows in 2 queries', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'query', 'SELECT id FROM persons', '--all', '-o', 'ndjson']);
    expect(res.code).toBe(0);
    expect(lines(res.stdout)).toHaveLength(PERSONS);
    const queries = queriesSince(before);
    expect(queries.map((q) => /LIMIT (\d+)$/.exec(q.body.query.query)?.[1])).toEqual(['50000', '50000']);
    expect(res.stderr).toContain('30,000 rows in 2 queries');
  });

  it("keeps the user's WHERE and values on every page, with --page-size", async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run([
      'persons',
      'query',
      'SELECT id FROM persons WHERE properties.plan = {plan}',
      '--value',
      'plan=team',
      '--all',
      '--page-size',
      '2500',
      '-o',
      'csv',
    ]);
    expect(res.code).toBe(0);
    const expected = inKeysetOrder()
      .filter((p) => p.properties.plan === 'team')
      .map((p) => p.uuid);
    expect(expected.length).toBeGreaterThan(5000);
    expect(lines(res.stdout)).toEqual(['id', ...expected]);
    const queries = queriesSince(before);
    // A short page ends the walk; a full last page is followed by an empty one.
    expect(expected.length % 2500).not.toBe(0);
    expect(queries).toHaveLength(Math.ceil(expected.length / 2500));
    for (const { body } of queries) {
      expect(body.query.query).toContain('WHERE (\nproperties.plan = {plan}\n)');
      expect(body.query.values?.plan).toBe('team');
      expect(body.query.query).toMatch(/LIMIT 2500$/);
    }
  });

  it("above 10,000 rows a page, a short page may be an older server's cap, so an empty page ends the walk", async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run([
      'persons',
      'query',
      "SELECT id FROM persons WHERE properties.plan = 'free'",
      '--all',
      '--page-size',
      '20000',
      '-o',
      'ndjson',
    ]);
    expect(res.code).toBe(0);
    const expected = inKeysetOrder().filter((p) => p.properties.plan === 'free');
    expect(expected.length).toBeGreaterThan(10_000);
    expect(expected.length).toBeLessThan(20_000);
    expect(lines(res.stdout).map((l) => JSON.parse(l).id)).toEqual(expected.map((p) => p.uuid));
    expect(queriesSince(before).map((q) => q.body.query.values?.hogctl_cursor_id ?? null)).toEqual([null, expected.at(-1)!.uuid]);
  });

  it('refuses a query it cannot page, before sending anything (exit 2)', async () => {
    const before = world.sandbox.requests.length;
    for (const query of [
      'SELECT id FROM persons ORDER BY id',
      'SELECT count() FROM persons',
      'SELECT id FROM persons LIMIT 10 OFFSET 10',
      'SELECT event FROM events',
    ]) {
      const res = await world.run(['persons', 'query', query, '--all']);
      expect(res.code, query).toBe(2);
      expect(res.stderr).toContain('--all cannot page this query');
      expect(res.stdout).toBe('');
    }
    expect(queriesSince(before)).toHaveLength(0);
  });
});

describe('persons query without --all', () => {
  it('runs the query as written and says when the server has more rows', async () => {
    const before = world.sandbox.requests.length;
    const text = "SELECT id, properties.email FROM persons WHERE properties.country = 'DE'";
    const res = await world.run(['persons', 'query', text, '-o', 'json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toHaveLength(100);
    expect(res.stderr).toContain('warning: the server returned the first 100 rows and has more: add a LIMIT');
    const [{ request, body }] = queriesSince(before);
    expect(request.method).toBe('POST');
    expect(request.query).toEqual({});
    expect(body).toEqual({ query: { kind: 'HogQLQuery', query: text }, name: 'hogctl-persons-query', refresh: 'blocking' });
  });

  it('renders the returned columns in every format, properties selected whole as an object', async () => {
    const text = 'SELECT id, properties.email AS mail, properties FROM persons WHERE properties.email IS NOT NULL LIMIT 3';
    const expected = [...world.sandbox.store].filter((p) => p.properties.email !== undefined).slice(0, 3);

    const json = await world.run(['persons', 'query', text, '-o', 'json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(expected.map((p) => ({ id: p.uuid, mail: p.properties.email, properties: p.properties })));
    expect(json.stderr).toBe('');

    const ndjson = await world.run(['persons', 'query', text, '-o', 'ndjson', '--fields', 'mail,properties.plan']);
    expect(lines(ndjson.stdout).map((l) => JSON.parse(l))).toEqual(
      expected.map((p) => ({ mail: p.properties.email, properties: { plan: p.properties.plan } })),
    );

    const csv = await world.run(['persons', 'query', text, '-o', 'csv', '--fields', 'id,properties.country']);
    expect(lines(csv.stdout)).toEqual(['id,properties.country', ...expected.map((p) => `${p.uuid},${p.properties.country}`)]);

    const plain = await world.run([
      'persons',
      'query',
      'SELECT id, properties.email FROM persons WHERE properties.email IS NOT NULL LIMIT 3',
    ]);
    expect(lines(plain.stdout)).toEqual(expected.map((p) => `${p.uuid}\t${p.properties.email}`));
  });

  it('gives duplicate columns distinct names and validates --fields against the columns', async () => {
    const dup = await world.run(['persons', 'query', 'SELECT id, id, count() FROM persons WHERE 0 = 1 LIMIT 1', '-o', 'json']);
    expect(dup.code).toBe(5); // the sandbox refuses count() beside plain columns, as ClickHouse does
    const same = await world.run(['persons', 'query', 'SELECT id, id FROM persons LIMIT 1', '-o', 'json']);
    expect(Object.keys(JSON.parse(same.stdout)[0])).toEqual(['id', 'id_2']);
    const count = await world.run(['persons', 'query', 'SELECT count() FROM persons WHERE is_identified', '-o', 'json']);
    expect(JSON.parse(count.stdout)).toEqual([{ 'count()': [...world.sandbox.store].filter((p) => p.isIdentified).length }]);

    const bad = await world.run(['persons', 'query', 'SELECT id FROM persons LIMIT 1', '--fields', 'email']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown field "email" for --fields: valid fields are id');
    expect(bad.stdout).toBe('');
  });

  it('sends --values and --value as the query values', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run([
      'persons',
      'query',
      'SELECT id FROM persons WHERE properties.sessions > {n} AND properties.plan = {plan} LIMIT {k}',
      '--values',
      '{"n": 400, "plan": "free"}',
      '--value',
      'plan=team',
      '--value',
      'k=5',
      '-o',
      'ndjson',
    ]);
    expect(res.code).toBe(0);
    expect(lines(res.stdout)).toHaveLength(5);
    expect(queriesSince(before)[0].body.query.values).toEqual({ n: 400, plan: 'team', k: 5 });
  });
});

describe('persons query errors', () => {
  it("a HogQL syntax error is the server's 400: exit 5 with its detail", async () => {
    const res = await world.run(['persons', 'query', 'SELECT id FORM persons']);
    expect(res.code).toBe(5);
    expect(res.stderr).toContain("failed with 400 invalid_input: no viable alternative at input 'SELECT id FORM persons'");
    expect(res.stderr).toContain('check the HogQL');
    expect(res.stdout).toBe('');
  });

  it('OFFSET is refused for personal keys: exit 5, pointing at --all', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'query', 'SELECT id FROM persons LIMIT 10 OFFSET 20']);
    expect(res.code).toBe(5);
    expect(res.stderr).toContain('OFFSET is not supported on queries made with a personal API key');
    expect(res.stderr).toContain('use --all, which pages by keyset');
    expect(queriesSince(before)).toHaveLength(1);
  });

  it('a key without query:read is refused (exit 4); an unknown project is not found (exit 3)', async () => {
    const key = world.sandbox.addKey(['person:read']);
    const denied = await world.run(['persons', 'query', 'SELECT id FROM persons LIMIT 1'], { env: { HOGCTL_API_KEY: key } });
    expect(denied.code).toBe(4);
    expect(denied.stderr).toContain("API key missing required scope 'query:read'");
    const missing = await world.run(['persons', 'query', 'SELECT id FROM persons LIMIT 1', '--project', '999']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('Project not found.');
  });

  it('rejects bad flags before sending anything', async () => {
    const before = world.sandbox.requests.length;
    expect((await world.run(['persons', 'query', 'SELECT id FROM persons', '--values', '[1]'])).code).toBe(2);
    expect((await world.run(['persons', 'query', 'SELECT id FROM persons', '--value', 'no-equals'])).code).toBe(2);
    expect((await world.run(['persons', 'query', 'SELECT id FROM persons', '--all', '--page-size', '60000'])).code).toBe(2);
    expect((await world.run(['persons', 'query', 'SELECT id FROM persons', '--page-size', '10'])).code).toBe(2);
    expect((await world.run(['persons', 'query', '  '])).code).toBe(2);
    expect(queriesSince(before)).toHaveLength(0);
  });
});

describe('--all under the legacy HogQL limit (120 queries an hour, scaled down here)', () => {
  // Waiting the limit out, each wait within --max-wait, runs on virtual time:
  // test/cli/persons/query.limits.test.ts.

  it('stopped on its first query, prints the command to run again, without --after', async () => {
    world.sandbox.setRateLimit('query=1/1h');
    let res;
    try {
      expect((await world.run(['persons', 'query', 'SELECT count() FROM persons'])).code).toBe(0);
      res = await world.run(['persons', 'query', 'SELECT id FROM persons', '--all', '--max-wait', '5s', '-o', 'ndjson']);
    } finally {
      world.sandbox.setRateLimit();
    }
    expect(res.code).toBe(6);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/\(stopped after 0 queries\)$/m);
    expect(res.stderr).toContain(
      "no rows printed; run it again with:\n  hogctl --output ndjson persons query 'SELECT id FROM persons' --all --max-wait 5s\n",
    );
  });

  it('--after, --max-wait and --page-size need --all; a malformed --after is refused before anything is sent', async () => {
    for (const flag of [
      ['--after', '2025-01-01T00:00:00Z,01900000-aaaa-7bbb-8ccc-000000000001'],
      ['--max-wait', '1h'],
      ['--page-size', '10'],
    ]) {
      const res = await world.run(['persons', 'query', 'SELECT id FROM persons', ...flag]);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain(`${flag[0]} only applies with --all`);
    }
    const bad = await world.run(['persons', 'query', 'SELECT id FROM persons', '--all', '--after', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid --after "yesterday"');
  });
});
