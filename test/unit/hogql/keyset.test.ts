// The keyset rewriter behind `persons query --all`, and the row shaping of query answers.
import { describe, expect, it } from 'vitest';
import { CURSOR_CREATED_AT, CURSOR_ID, formatCursor, parseCursor, planKeyset, utcTime } from '../../../src/hogql/keyset.js';
import { rowShape, toRecords } from '../../../src/hogql/rows.js';
import { UsageError } from '../../../src/errors.js';
import { startSandbox } from '@hogctl/sandbox';
import { request } from 'undici';
import { thrown } from '../helpers.js';

/** Runs a planned page on a sandbox over HTTP, as `persons query` would send it. */
async function runOnSandbox(page: {
  query: string;
  values: Record<string, unknown>;
}): Promise<{ columns: string[]; results: unknown[][] }> {
  const sandbox = await startSandbox({ persons: 20 });
  try {
    const res = await request(`${sandbox.url}/api/projects/${sandbox.projectId}/query/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.defaultKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: { kind: 'HogQLQuery', query: page.query, values: page.values } }),
    });
    const body = (await res.body.json()) as { columns: string[]; results: unknown[][] };
    expect(res.statusCode, JSON.stringify(body)).toBe(200);
    return body;
  } finally {
    await sandbox.close();
  }
}

const cursor = { createdAt: '2025-01-15T08:00:00.123456Z', id: '01900000-aaaa-7bbb-8ccc-000000000001' };

describe('planKeyset', () => {
  it('adds the hidden cursor columns, the keyset order and the limit to a plain query', () => {
    const page = planKeyset('SELECT id, properties.email FROM persons').page(500);
    expect(page.query).toBe(
      `SELECT id, properties.email\n, created_at AS ${CURSOR_CREATED_AT}, id AS ${CURSOR_ID}\nFROM persons\nORDER BY created_at DESC, id DESC\nLIMIT 500`,
    );
    expect(page.values).toEqual({});
    expect(page.query).not.toMatch(/offset/i);
  });

  it('puts the cursor in placeholders after the user condition, never in the text', () => {
    const plan = planKeyset("select id from persons where properties.plan = {plan} OR properties.email like '%@x.com'", { plan: 'team' });
    const page = plan.page(1000, cursor);
    expect(page.query).toContain(
      "WHERE (\nproperties.plan = {plan} OR properties.email like '%@x.com'\n) AND (created_at < toDateTime({hogctl_cursor_created_at}) OR (created_at = toDateTime({hogctl_cursor_created_at}) AND id < {hogctl_cursor_id}))",
    );
    expect(page.query).not.toContain(cursor.id);
    expect(page.query).not.toContain(cursor.createdAt);
    expect(page.values).toEqual({ plan: 'team', [CURSOR_CREATED_AT]: utcTime(cursor.createdAt), [CURSOR_ID]: cursor.id });
    // The first page carries the user's values only.
    expect(plan.page(1000).values).toEqual({ plan: 'team' });
  });

  it('types the cursor: a created_at in the team time zone becomes UTC with its microseconds, for toDateTime()', () => {
    expect(utcTime('2025-01-15T09:00:00.123456+01:00')).toBe('2025-01-15T08:00:00.123456Z');
    expect(utcTime('2025-01-15 08:00:00')).toBe('2025-01-15T08:00:00.000000Z');
    expect(utcTime('2024-12-31T23:30:00.5-01:00')).toBe('2025-01-01T00:30:00.500000Z');
    const page = planKeyset('SELECT id FROM persons').page(10, { createdAt: '2025-01-15T09:00:00.123456+01:00', id: 'u' });
    expect(page.values[CURSOR_CREATED_AT]).toBe('2025-01-15T08:00:00.123456Z');
    expect(formatCursor({ createdAt: '2025-01-15T09:00:00.1+01:00', id: '01900000-aaaa-7bbb-8ccc-000000000001' })).toBe(
      '2025-01-15T08:00:00.100000Z,01900000-aaaa-7bbb-8ccc-000000000001',
    );
    expect(parseCursor('2025-01-15T08:00:00.100000Z,01900000-AAAA-7bbb-8ccc-000000000001')).toEqual({
      createdAt: '2025-01-15T08:00:00.100000Z',
      id: '01900000-aaaa-7bbb-8ccc-000000000001',
    });
    expect(() => parseCursor('yesterday,abc')).toThrow(/invalid --after "yesterday,abc"/);
  });

  it('keeps a table alias, drops a trailing semicolon, and survives trailing comments', async () => {
    const page = planKeyset('SELECT p.id -- who\nFROM persons AS p WHERE p.is_identified -- only them\n;').page(3, {
      createdAt: '2030-01-01T00:00:00.000000Z',
      id: 'ffffffff-ffff-7fff-8fff-ffffffffffff',
    });
    const result = await runOnSandbox(page);
    expect(result.columns).toEqual(['id', CURSOR_CREATED_AT, CURSOR_ID]);
    expect(result.results).toHaveLength(3);
    const createdAt = result.results.map((row) => String(row[1]));
    expect(createdAt).toEqual([...createdAt].sort().reverse());
    expect(planKeyset('SELECT id FROM persons p').page(5).query).toContain('FROM persons AS p');
  });

  it('pages SELECT * too: the cursor columns come after the expanded ones', async () => {
    const result = await runOnSandbox(planKeyset('SELECT * FROM persons').page(5));
    expect(result.columns).toEqual(['id', 'created_at', 'team_id', 'properties', 'is_identified', CURSOR_CREATED_AT, CURSOR_ID]);
    expect(result.results).toHaveLength(5);
  });

  it('ignores keywords inside strings, comments, brackets and field names', () => {
    const q =
      "SELECT id, properties.order, properties.`limit` FROM persons WHERE properties.note = 'ORDER BY x LIMIT 5' /* LIMIT 1 */ AND id IN (SELECT_1)";
    expect(() => planKeyset(q)).not.toThrow();
    expect(() => planKeyset('SELECT left(properties.email, 3) FROM persons')).not.toThrow();
  });

  it.each([
    ['SELECT id FROM persons ORDER BY id', 'its own ORDER BY'],
    ['SELECT id FROM persons WHERE is_identified LIMIT 10', 'its own LIMIT'],
    ['SELECT id FROM persons LIMIT 10 OFFSET 5', 'its own LIMIT'],
    ['SELECT id FROM persons WHERE 1 OFFSET 5', 'its own OFFSET'],
    ['SELECT id FROM persons WHERE 1 GROUP BY id', 'its own GROUP BY'],
    ['SELECT properties.plan, count() FROM persons', 'count() aggregates rows'],
    ['SELECT uniqExact(id) FROM persons', 'uniqExact() aggregates rows'],
    ['SELECT event FROM events', 'not from persons'],
    ['SELECT id FROM persons JOIN person_distinct_ids ON 1', 'joins'],
    ['SELECT id FROM persons, events', 'joins'],
    ['SELECT id FROM persons FINAL', 'FINAL is not supported'],
    ['SELECT DISTINCT properties.plan FROM persons', 'SELECT DISTINCT'],
    ['WITH x AS (SELECT 1) SELECT id FROM persons', 'WITH'],
    ['SELECT id FROM (SELECT id FROM persons)', 'subqueries'],
    ['SELECT id FROM persons WHERE id IN (SELECT person_id FROM x)', 'subqueries'],
    ['SELECT id FROM persons UNION ALL SELECT id FROM persons', 'more than one FROM'],
    ['SELECT properties.email AS id FROM persons', 'the alias "id" hides'],
    ['SELECT id FROM persons WHERE', 'WHERE has no condition'],
    ["SELECT id FROM persons WHERE x = 'open", 'string is not closed'],
    ['SELECT id FROM persons WHERE (a', 'bracket is not closed'],
    ['persons', 'does not start with SELECT'],
    [`SELECT id FROM persons WHERE id = {${CURSOR_ID}}`, 'taken by --all'],
  ])('refuses %s', (query, why) => {
    const err = thrown(() => planKeyset(query));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain('--all cannot page this query');
    expect(err.message).toContain(why);
    expect(err.hint).toContain('drop --all');
  });

  it('refuses a values object that uses the cursor names', () => {
    expect(thrown(() => planKeyset('SELECT id FROM persons', { [CURSOR_CREATED_AT]: 1 })).message).toContain('taken by --all');
  });
});

describe('rowShape and toRecords', () => {
  it('keys rows by column, making duplicate and empty names distinct', () => {
    const shape = rowShape(['id', 'id', '', 'count()', 'id_2']);
    expect(shape.keys).toEqual(['id', 'id_2', 'column_3', 'count()', 'id_2_2']);
    expect(toRecords(shape, [[1, 2, 3, 4, 5]])).toEqual([{ id: 1, id_2: 2, column_3: 3, 'count()': 4, id_2_2: 5 }]);
  });

  it('parses properties selected whole (a JSON string), and leaves other strings alone', () => {
    const shape = rowShape(
      ['properties', 'email'],
      [
        ['properties', 'String'],
        ['email', 'Nullable(String)'],
      ],
    );
    expect([...shape.jsonKeys]).toEqual(['properties']);
    const [record] = toRecords(shape, [['{"email":"a@b.c","n":1}', '{"not":"parsed"}']]);
    expect(record).toEqual({ properties: { email: 'a@b.c', n: 1 }, email: '{"not":"parsed"}' });
    expect(toRecords(shape, [['not json {', null]])).toEqual([{ properties: 'not json {', email: null }]);
  });
});
