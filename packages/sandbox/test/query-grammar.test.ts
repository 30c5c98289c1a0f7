// POST /query/ parses with PostHog's own grammar (src/hogql/posthog-grammar.ts,
// docs/server-contract.md §7): a query PostHog's grammar refuses is PostHog's 400 with PostHog's
// words, even where the sandbox's subset could have run it, and the queries hogctl sends (their
// shapes copied here: the sandbox's tests do not import the CLI) still run, with the right rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Person } from '../src/store.js';
import type { Sandbox } from '../src/server.js';
import { call, errorBody, withSandbox, type CallOptions } from './helpers.js';

let sb: Sandbox;
let signedIn: CallOptions;

beforeAll(async () => {
  sb = await withSandbox({ persons: 150, seed: 11, eventsPerPerson: 3, password: 'correct horse battery' });
  signedIn = await session();
});
afterAll(() => sb.close());

/** A signed-in session: OFFSET is refused to personal keys only. */
async function session(): Promise<CallOptions> {
  const login = await call(sb, '/api/login/', {
    method: 'POST',
    key: null,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'sandbox@example.com', password: 'correct horse battery' }),
  });
  const raw = login.headers['set-cookie'];
  const cookies = (Array.isArray(raw) ? raw : [raw ?? '']).map((c) => c.split(';')[0]);
  const csrf = cookies.find((c) => c.startsWith('posthog_csrftoken='))!.split('=')[1];
  return { key: null, headers: { cookie: cookies.join('; '), 'x-csrftoken': csrf } };
}

function query(text: string, values: Record<string, unknown> = {}, opts: CallOptions = {}) {
  return call(sb, '/api/projects/1/query/', {
    method: 'POST',
    ...opts,
    headers: { 'content-type': 'application/json', ...opts.headers },
    body: JSON.stringify({ query: { kind: 'HogQLQuery', query: text, values }, refresh: 'blocking' }),
  });
}

async function rows(text: string, values: Record<string, unknown> = {}, opts: CallOptions = {}): Promise<unknown[][]> {
  const res = await query(text, values, opts);
  expect(res.status, res.text).toBe(200);
  return res.json().results;
}

/** The persons newest first, as `ORDER BY created_at DESC, id DESC` reads them. */
function newestFirst(persons: Person[]): Person[] {
  return [...persons].sort((a, b) => b.createdAtUs - a.createdAtUs || (b.uuid < a.uuid ? -1 : b.uuid > a.uuid ? 1 : 0));
}

describe("POST /query/ with PostHog's grammar", () => {
  it("refuses with PostHog's message a query its grammar refuses, though the subset could run it", async () => {
    // `OFFSET n ROWS` is outside HogQL's grammar; the sandbox's own parser used to take it.
    const text = 'SELECT id FROM persons ORDER BY created_at DESC, id DESC LIMIT 5 OFFSET 2 ROWS';
    const res = await query(text, {}, signedIn);
    expect(res.status).toBe(400);
    expect(res.json()).toEqual(errorBody('validation_error', 'invalid_input', `no viable alternative at input '${text}'`));
    // The same query without the word runs.
    const ran = await rows(text.replace(/ ROWS$/, ''), {}, signedIn);
    expect(ran.map((r) => r[0])).toEqual(
      newestFirst([...sb.store])
        .slice(2, 7)
        .map((p) => p.uuid),
    );
  });

  it('names the construct it cannot run, as the 400 of a HogQL error', async () => {
    const res = await query('SELECT id FROM persons p JOIN events e ON e.person_id = p.id');
    expect(res.status).toBe(400);
    expect(res.json().detail).toMatch(/^JOIN is not supported by the hogctl sandbox's HogQL subset/);
    const placeholder = await query('SELECT id FROM persons WHERE id = {a.b + 1}');
    expect(placeholder.json()).toEqual(errorBody('validation_error', 'invalid_input', 'Placeholder expressions are not yet supported'));
  });

  it('pages persons by keyset, newest first, with placeholders for the cursor', async () => {
    const where = '(\nproperties.plan = {plan} OR properties.email ilike {domain}\n)';
    const page = (after?: unknown[]) =>
      [
        'SELECT id, properties.email\n, created_at AS hogctl_cursor_created_at, id AS hogctl_cursor_id',
        'FROM persons',
        after
          ? `WHERE ${where} AND (created_at < toDateTime({hogctl_cursor_created_at}) OR (created_at = toDateTime({hogctl_cursor_created_at}) AND id < {hogctl_cursor_id}))`
          : `WHERE ${where}`,
        'ORDER BY created_at DESC, id DESC',
        'LIMIT 7',
      ].join('\n');
    const values = { plan: 'team', domain: '%@EXAMPLE.COM' };
    const first = await rows(page(), values);
    const last = first[first.length - 1];
    const second = await rows(page(last), { ...values, hogctl_cursor_created_at: last[2], hogctl_cursor_id: last[3] });
    const expected = newestFirst(
      [...sb.store].filter((p) => p.properties.plan === 'team' || /@example\.com$/i.test(String(p.properties.email))),
    );
    expect(expected.length).toBeGreaterThan(14);
    expect([...first, ...second].map((r) => r[0])).toEqual(expected.slice(0, 14).map((p) => p.uuid));
  });

  it('counts with count(), ilike and GROUP BY / HAVING over an alias, ordered', async () => {
    const [[count]] = await rows('SELECT count() FROM persons WHERE properties.email ilike {pattern}', { pattern: 'USER1%' });
    expect(count).toBe([...sb.store].filter((p) => /^user1/i.test(String(p.properties.email ?? ''))).length);
    const groups = await rows(
      [
        'SELECT properties.plan AS hogctl_key, count() AS hogctl_persons',
        'FROM persons',
        'WHERE properties.plan IS NOT NULL',
        'GROUP BY hogctl_key',
        'HAVING count() >= {min}',
        'ORDER BY hogctl_key ASC',
        'LIMIT 50000',
      ].join('\n'),
      { min: 2 },
    );
    const byPlan = new Map<string, number>();
    for (const p of sb.store)
      if (p.properties.plan !== undefined) byPlan.set(String(p.properties.plan), (byPlan.get(String(p.properties.plan)) ?? 0) + 1);
    const expected = [...byPlan].filter(([, n]) => n >= 2).sort(([a], [b]) => (a < b ? -1 : 1));
    expect(groups).toEqual(expected);
  });

  it("reads a person's events through an IN subquery, and pages events by (timestamp, uuid)", async () => {
    const person = [...sb.store][3];
    const viaSubquery = await rows(
      'SELECT distinct_id, count() AS events, max(timestamp) AS last_seen FROM events WHERE distinct_id IN (SELECT distinct_id FROM person_distinct_ids WHERE person_id = {person}) GROUP BY distinct_id ORDER BY distinct_id LIMIT 50000',
      { person: person.uuid },
    );
    const ids = await rows('SELECT distinct_id FROM person_distinct_ids WHERE person_id IN {persons} LIMIT 50000', {
      persons: [person.uuid],
    });
    const direct = await rows(
      'SELECT uuid, event, distinct_id, timestamp, properties, `$session_id`, elements_chain\nFROM events\nWHERE distinct_id IN {hogctl_ids} AND timestamp <= toDateTime({hogctl_until})\nORDER BY timestamp ASC, toString(uuid) ASC\nLIMIT 50000',
      { hogctl_ids: ids.map((r) => r[0]), hogctl_until: '2100-01-01T00:00:00.000000Z' },
    );
    expect(direct.length).toBeGreaterThan(0);
    expect(viaSubquery.reduce((sum, r) => sum + (r[1] as number), 0)).toBe(direct.length);
    const keys = direct.map((r) => `${r[3]} ${r[0]}`);
    expect(keys).toEqual([...keys].sort());
  });
});
