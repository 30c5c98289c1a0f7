// The sandbox's HogQL subset: what it parses, what it refuses, and how it evaluates over persons.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadHogQLParser, parseSelect } from '../src/hogql/posthog-grammar.js';
import { HogQLError, columnName } from '../src/hogql/types.js';
import { parseTimestampUs, runSelect, type QueryResult } from '../src/hogql/execute.js';
import { SandboxStore } from '../src/store.js';

const store = new SandboxStore({ persons: 400, seed: 3 });
const persons = [...store];

beforeAll(loadHogQLParser);

function run(query: string, values: Record<string, unknown> = {}): QueryResult {
  return runSelect({ query: parseSelect(query), values, store, teamId: 1 });
}

function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(HogQLError);
    return (error as Error).message;
  }
  throw new Error('expected a HogQLError');
}

describe('parseSelect', () => {
  it('parses columns, aliases, table alias, where, order by, limit and offset', () => {
    const q = parseSelect(
      "select p.id, properties.email AS mail, properties.$browser FROM persons p WHERE NOT (x = 'a' OR y != {v}) and z IS NOT NULL ORDER BY created_at DESC, id LIMIT 10 OFFSET 5;",
    );
    expect(q.table).toBe('persons');
    expect(q.tableAlias).toBe('p');
    expect(q.columns.map(columnName)).toEqual(['id', 'mail', '$browser']);
    expect(q.orderBy.map((o) => o.desc)).toEqual([true, false]);
    expect(q.limit).toEqual({ kind: 'constant', value: 10 });
    expect(q.offset).toEqual({ kind: 'constant', value: 5 });
    expect(q.where?.kind).toBe('and');
  });

  it('reads strings with both escapes, quoted names, comments and placeholders', () => {
    const q = parseSelect(
      "SELECT `weird name`, \"other\" FROM persons -- trailing\n WHERE properties.name = 'O\\'Brien' OR properties.name = 'O''Hara' /* c */ AND id = { id }",
    );
    expect(q.columns.map(columnName)).toEqual(['weird name', 'other']);
    const text = JSON.stringify(q.where);
    expect(text).toContain("O'Brien");
    expect(text).toContain("O'Hara");
    expect(text).toContain('"placeholder","name":"id"');
  });

  it("reports syntax errors with PostHog's own message", () => {
    expect(failure(() => parseSelect('SELECT id FORM persons'))).toBe("no viable alternative at input 'SELECT id FORM persons'");
    expect(failure(() => parseSelect('SELECT id\nFROM persons WHERE'))).toBe(
      "no viable alternative at input 'SELECT id\\nFROM persons WHERE'",
    );
    expect(failure(() => parseSelect("SELECT 'open FROM persons"))).toBe("no viable alternative at input 'SELECT ''");
    expect(failure(() => parseSelect('SELECT id FROM persons LIMIT 5 garbage more'))).toBe(
      "no viable alternative at input 'SELECT id FROM persons LIMIT 5 garbage'",
    );
  });

  it('says clearly what lies outside the subset', () => {
    for (const [query, what] of [
      ['SELECT DISTINCT id FROM persons', 'SELECT DISTINCT'],
      ['SELECT id FROM persons GROUP BY ALL', 'GROUP BY ALL'],
      ['SELECT id FROM persons JOIN events ON 1', 'JOIN'],
      ['SELECT id FROM (SELECT id FROM persons)', 'A subquery'],
      ['WITH x AS (SELECT 1) SELECT id FROM persons', 'WITH'],
      ['SELECT id FROM persons UNION ALL SELECT id FROM persons', 'UNION'],
      ['SELECT 1', 'SELECT without FROM'],
    ]) {
      expect(failure(() => parseSelect(query))).toContain(`${what} is not supported by the hogctl sandbox's HogQL subset`);
    }
  });
});

describe('runSelect', () => {
  it('returns columns, types and rows, properties.x as strings and properties whole as JSON text', () => {
    const res = run(
      'SELECT id, created_at, team_id, is_identified, properties.email, properties.sessions, properties FROM persons LIMIT 1',
    );
    expect(res.columns).toEqual(['id', 'created_at', 'team_id', 'is_identified', 'email', 'sessions', 'properties']);
    expect(res.types).toEqual([
      ['id', 'UUID'],
      ['created_at', "DateTime64(6, 'UTC')"],
      ['team_id', 'Int64'],
      ['is_identified', 'Bool'],
      ['email', 'Nullable(String)'],
      ['sessions', 'Nullable(String)'],
      ['properties', 'String'],
    ]);
    const [row] = res.results;
    const p = persons[0];
    expect(row[0]).toBe(p.uuid);
    expect(row[1]).toBe(p.createdAt);
    expect(row[2]).toBe(1);
    expect(row[3]).toBe(p.isIdentified);
    expect(row[4]).toBe(p.properties.email ?? null);
    expect(row[5]).toBe(p.properties.sessions === undefined ? null : String(p.properties.sessions));
    expect(JSON.parse(row[6] as string)).toEqual(p.properties);
    expect(res.hasMore).toBeNull();
    expect(res.limit).toBeNull();
    expect(res.offset).toBeNull();
  });

  it('adds the LIMIT 101 paginator when the query has no LIMIT', () => {
    const res = run('SELECT id FROM persons');
    expect(res.results).toHaveLength(100);
    expect(res).toMatchObject({ hasMore: true, limit: 100, offset: 0 });
    const few = run("SELECT id FROM persons WHERE properties.plan = 'enterprise' AND properties.country = 'DE'");
    expect(few.hasMore).toBe(false);
    expect(few.results.length).toBe(persons.filter((p) => p.properties.plan === 'enterprise' && p.properties.country === 'DE').length);
  });

  it('filters with comparisons, AND/OR/NOT, IS NULL, LIKE/ILIKE, IN and placeholders', () => {
    const ids = (q: string, values?: Record<string, unknown>) => run(`${q} LIMIT 50000`, values).results.map((r) => r[0]);
    const uuids = (pred: (p: (typeof persons)[number]) => boolean) => persons.filter(pred).map((p) => p.uuid);
    expect(ids('SELECT id FROM persons WHERE properties.plan = {plan}', { plan: 'team' })).toEqual(
      uuids((p) => p.properties.plan === 'team'),
    );
    expect(ids('SELECT id FROM persons WHERE properties.sessions >= 250 AND NOT is_identified = false')).toEqual(
      uuids((p) => typeof p.properties.sessions === 'number' && p.properties.sessions >= 250 && p.isIdentified),
    );
    expect(ids("SELECT id FROM persons WHERE properties.email IS NULL OR properties.country IN ('DE', 'FR')")).toEqual(
      uuids((p) => p.properties.email === undefined || p.properties.country === 'DE' || p.properties.country === 'FR'),
    );
    expect(ids("SELECT id FROM persons WHERE properties.email ILIKE 'USER1%'")).toEqual(
      uuids((p) => String(p.properties.email ?? '').startsWith('user1')),
    );
    expect(ids("SELECT id FROM persons WHERE properties.email NOT LIKE '%@example.com'")).toEqual([]);
    expect(ids('SELECT id FROM persons WHERE properties.country IN {list}', { list: ['US'] })).toEqual(
      uuids((p) => p.properties.country === 'US'),
    );
  });

  it('trim() removes spaces at both ends only, as ClickHouse trimBoth does, and groups with lower()', () => {
    // posthog/hogql/functions/clickhouse/strings.py POSTGRESQL_TRIM_FUNCTIONS: trim and btrim are
    // ClickHouse's trim(), which removes ASCII spaces (not tabs or newlines) when given no characters.
    expect(run("SELECT trim('  Lee@Example.net  ') AS x FROM persons LIMIT 1").results).toEqual([['Lee@Example.net']]);
    expect(run("SELECT trim('\\tLee ') AS x FROM persons LIMIT 1").results).toEqual([['\tLee']]);
    expect(run('SELECT trim(properties.nothing) AS x FROM persons LIMIT 1').results).toEqual([[null]]);
    expect(
      run('SELECT lower(trim(properties.email)) AS k, count() FROM persons WHERE k IS NOT NULL GROUP BY k HAVING count() >= 2 LIMIT 5')
        .results,
    ).toEqual([]);
  });

  it('lower() lowers ASCII letters only, as ClickHouse does, and matches a list placeholder with IN', () => {
    const emails = persons
      .filter((p) => typeof p.properties.email === 'string')
      .slice(0, 3)
      .map((p) => String(p.properties.email));
    const asked = [emails[0].toUpperCase(), emails[1], 'nobody@example.net'].map((e) => e.replace(/[A-Z]+/g, (m) => m.toLowerCase()));
    const result = run('SELECT id, lower(properties.email) AS email FROM persons WHERE lower(properties.email) IN {emails}', {
      emails: asked,
    });
    expect(result.types).toContainEqual(['email', 'Nullable(String)']);
    expect(result.results.map((r) => r[1]).sort()).toEqual([emails[0].toLowerCase(), emails[1].toLowerCase()].sort());
    expect(run("SELECT lower('ÉCOLE Lee') AS x FROM persons LIMIT 1").results).toEqual([['École lee'.replace('é', 'É')]]);
    expect(run('SELECT lower(properties.nothing) AS x FROM persons LIMIT 1').results).toEqual([[null]]);
    expect(failure(() => run('SELECT upper(id) FROM persons'))).toMatch(
      /Unknown function: upper\. .*knows count\(\), uniq\(\), min\(\), max\(\), sum\(\), avg\(\), lower\(\), trim\(\), toString\(\), toUUID\(\), toDateTime\(\) and toDateTime64\(\) only/,
    );
  });

  it("trim() removes the spaces at both ends only, as ClickHouse's trimBoth()", () => {
    expect(run("SELECT trim('  Lee@x.net ') AS x FROM persons LIMIT 1").results).toEqual([['Lee@x.net']]);
    expect(run("SELECT trim('\\tlee@x.net.') AS x FROM persons LIMIT 1").results).toEqual([['\tlee@x.net.']]);
    expect(run('SELECT trim(properties.nothing) AS x FROM persons LIMIT 1').results).toEqual([[null]]);
  });

  it('compares created_at with timestamp strings to the microsecond', () => {
    const pivot = persons[10];
    const newer = run('SELECT id FROM persons WHERE created_at > {t} LIMIT 50000', { t: pivot.createdAt }).results.map((r) => r[0]);
    expect(newer).toEqual(persons.filter((p) => p.createdAtUs > pivot.createdAtUs).map((p) => p.uuid));
    const same = run('SELECT id FROM persons WHERE created_at = {t}', { t: pivot.createdAt }).results.map((r) => r[0]);
    expect(same).toContain(pivot.uuid);
    expect(parseTimestampUs('2025-01-15T08:00:00.123456Z')).toBe(Date.UTC(2025, 0, 15, 8) * 1000 + 123456);
    expect(parseTimestampUs('2025-01-15 09:00:00+01:00')).toBe(Date.UTC(2025, 0, 15, 8) * 1000);
    expect(parseTimestampUs('2025-01-15')).toBe(Date.UTC(2025, 0, 15) * 1000);
    expect(parseTimestampUs('yesterday')).toBeNull();
  });

  it('orders by several keys, NULLs last both ways, and applies LIMIT and OFFSET', () => {
    const res = run('SELECT properties.email AS e, id FROM persons ORDER BY e DESC, id ASC LIMIT 500');
    const emails = res.results.map((r) => r[0]);
    const firstNull = emails.indexOf(null);
    expect(firstNull).toBeGreaterThan(0);
    expect(emails.slice(firstNull).every((e) => e === null)).toBe(true);
    const nonNull = emails.slice(0, firstNull) as string[];
    expect(nonNull).toEqual([...nonNull].sort().reverse());
    const page = run('SELECT properties.email AS e, id FROM persons ORDER BY e DESC, id ASC LIMIT 3 OFFSET 2');
    expect(page.results).toEqual(res.results.slice(2, 5));
  });

  it('pages by keyset without losing or repeating a row, ties on created_at included', () => {
    const seen: string[] = [];
    let cursor: { t: unknown; id: unknown } | undefined;
    for (;;) {
      const where = cursor ? 'WHERE created_at < {t} OR (created_at = {t} AND id < {id})' : '';
      const res = run(`SELECT id, created_at FROM persons ${where} ORDER BY created_at DESC, id DESC LIMIT 37`, cursor ?? {});
      if (res.results.length === 0) break;
      seen.push(...res.results.map((r) => r[0] as string));
      const last = res.results[res.results.length - 1];
      cursor = { t: last[1], id: last[0] };
    }
    expect(seen).toHaveLength(persons.length);
    expect(new Set(seen).size).toBe(persons.length);
    expect(persons.some((p, i) => i > 0 && p.createdAtUs === persons[i - 1].createdAtUs)).toBe(true);
  });

  it('counts, expands *, and lets an alias shadow a column', () => {
    expect(run('SELECT count() FROM persons').results).toEqual([[persons.length]]);
    expect(run('SELECT count(properties.email) AS n FROM persons WHERE is_identified').results).toEqual([
      [persons.filter((p) => p.isIdentified && p.properties.email !== undefined).length],
    ]);
    expect(run('SELECT * FROM persons LIMIT 1').columns).toEqual(['id', 'created_at', 'team_id', 'properties', 'is_identified']);
    const shadow = run("SELECT properties.country AS id, id AS uuid FROM persons WHERE id = 'DE' LIMIT 5");
    expect(shadow.results.every((r) => r[0] === 'DE')).toBe(true);
    expect(run('SELECT id AS id FROM persons LIMIT 1').results[0][0]).toBe(persons[0].uuid);
  });

  it('refuses what it cannot run with the reason', () => {
    expect(failure(() => run('SELECT foo FROM persons'))).toBe('Unable to resolve field: foo');
    expect(failure(() => run('SELECT id FROM events'))).toMatch(/^Unknown table `events`/);
    expect(failure(() => run('SELECT id FROM persons WHERE id = {missing}', { other: 1 }))).toBe(
      'Placeholder {missing} is not available in this context. You can use the following: other',
    );
    expect(failure(() => run('SELECT upperUTF8(id) FROM persons'))).toMatch(/^Unknown function: upperUTF8/);
    expect(failure(() => run('SELECT id, count() FROM persons'))).toMatch(/not under an aggregate function/);
    expect(failure(() => run("SELECT id FROM persons WHERE created_at < 'soon'"))).toMatch(/Cannot parse 'soon'/);
  });
});

describe('person_distinct_ids', () => {
  it('maps each distinct id of a person to its id, and reads lower() of the distinct id', () => {
    const person = persons.find((p) => p.distinctIds.length > 0)!;
    const [first] = person.distinctIds;
    const res = run('SELECT distinct_id, person_id, team_id FROM person_distinct_ids WHERE lower(distinct_id) IN {ids}', {
      ids: [first.toLowerCase()],
    });
    expect(res.columns).toEqual(['distinct_id', 'person_id', 'team_id']);
    expect(res.results).toContainEqual([first, person.uuid, 1]);
    const all = run('SELECT count() FROM person_distinct_ids');
    expect(all.results[0][0]).toBe(persons.reduce((k, p) => k + p.distinctIds.length, 0));
    expect(failure(() => run('SELECT distinct_id.x FROM person_distinct_ids'))).toMatch(/distinct_id/);
  });
});
