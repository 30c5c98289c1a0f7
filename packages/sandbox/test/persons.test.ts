import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/server.js';
import { isAnonymousId } from '../src/person-format.js';
import { call, errorBody, withSandbox } from './helpers.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await withSandbox({ persons: 250 });
});
afterAll(() => sb.close());

const base = '/api/projects/1/persons/';

describe('GET /persons/ paging (docs/server-contract.md §6.1)', () => {
  it('defaults to 100 per page in created_at DESC, id DESC order with an absolute next from Host', async () => {
    const reply = await call(sb, base);
    expect(reply.status).toBe(200);
    const page = reply.json();
    expect(Object.keys(page)).toEqual(['results', 'next', 'previous']);
    expect(page.results).toHaveLength(100);
    expect(page.results.map((r: any) => r.uuid)).toEqual(sb.store.list({}, 0, 100).map((p) => p.uuid));
    expect(page.next).toBe(`${sb.url}${base}?offset=100`);
    expect(page.previous).toBeNull();
  });

  it('builds next from the Host header and keeps limit only when it was sent', async () => {
    const reply = await call(sb, `${base}?limit=50`, { headers: { host: 'sandbox.example:1234' } });
    expect(reply.json().next).toBe(`http://sandbox.example:1234${base}?limit=50&offset=50`);
  });

  it('links a full last page to an empty page', async () => {
    const last = (await call(sb, `${base}?limit=50&offset=200`)).json();
    expect(last.results).toHaveLength(50);
    expect(last.next).toBe(`${sb.url}${base}?limit=50&offset=250`);
    const empty = (await call(sb, `${base}?limit=50&offset=250`)).json();
    expect(empty.results).toEqual([]);
    expect(empty.next).toBeNull();
    const partial = (await call(sb, `${base}?limit=100&offset=200`)).json();
    expect(partial.results).toHaveLength(50);
    expect(partial.next).toBeNull();
  });

  it('keeps the previous quirk: null below zero, the unchanged URL when offset == limit', async () => {
    expect((await call(sb, `${base}?limit=10&offset=5`)).json().previous).toBeNull();
    expect((await call(sb, `${base}?offset=10&limit=10`)).json().previous).toBe(`${sb.url}${base}?offset=10&limit=10`);
    expect((await call(sb, `${base}?offset=25&limit=10`)).json().previous).toBe(`${sb.url}${base}?offset=15&limit=10`);
  });

  it('adds count only when include_total is present (any value)', async () => {
    expect('count' in (await call(sb, `${base}?limit=1`)).json()).toBe(false);
    expect((await call(sb, `${base}?limit=1&include_total`)).json().count).toBe(250);
    expect((await call(sb, `${base}?limit=1&include_total=false`)).json().count).toBe(250);
  });

  it('pages through everything without gaps or repeats', async () => {
    const seen: string[] = [];
    let path: string | null = `${base}?limit=64`;
    while (path) {
      const page: any = (await call(sb, path)).json();
      seen.push(...page.results.map((r: any) => r.uuid));
      path = page.results.length === 0 || !page.next ? null : page.next.slice(sb.url.length);
    }
    expect(seen).toHaveLength(250);
    expect(new Set(seen).size).toBe(250);
  });

  it('uses the last value of a repeated parameter, like Django', async () => {
    const page = (await call(sb, `${base}?limit=5&limit=3`)).json();
    expect(page.results).toHaveLength(3);
  });
});

describe('list items versus retrieve (docs/server-contract.md §6.1, §6.3)', () => {
  it('renders list items with the UUID as id and the documented fields', async () => {
    const item = (await call(sb, `${base}?limit=1`)).json().results[0];
    const person = sb.store.getByUuid(item.uuid)!;
    expect(item).toEqual({
      type: 'person',
      id: person.uuid,
      uuid: person.uuid,
      created_at: person.createdAt,
      properties: person.properties,
      is_identified: person.isIdentified,
      name: expect.any(String),
      distinct_ids: expect.any(Array),
      matched_recordings: [],
      value_at_data_point: null,
    });
  });

  it('retrieves by integer id or UUID with the integer id and last_seen_at', async () => {
    const person = sb.store.getById(17)!;
    for (const ref of ['17', person.uuid, person.uuid.toUpperCase()]) {
      const reply = await call(sb, `${base}${ref}/`);
      expect(reply.status).toBe(200);
      const body = reply.json();
      expect(Object.keys(body)).toEqual(['id', 'name', 'distinct_ids', 'properties', 'created_at', 'uuid', 'last_seen_at']);
      expect(body.id).toBe(17);
      expect(body.uuid).toBe(person.uuid);
      expect(body.last_seen_at).toBe(person.lastSeenAt);
    }
  });

  it('lists non-anonymous distinct ids first and derives name as the server does', async () => {
    const all = [...sb.store];
    const anonFirst = all.find((p) => p.distinctIds.length > 1 && isAnonymousId(p.distinctIds[0]))!;
    const body = (await call(sb, `${base}${anonFirst.id}`)).json();
    expect(body.distinct_ids[0]).toBe(`user-${anonFirst.id}`);
    expect(body.distinct_ids.slice(1).every(isAnonymousId)).toBe(true);

    const named = async (p: (typeof all)[number]) => (await call(sb, `${base}${p.id}/`)).json().name;
    const withEmail = all.find((p) => p.properties.email)!;
    expect(await named(withEmail)).toBe(withEmail.properties.email);
    const usernameOnly = all.find((p) => p.properties.username && !p.properties.email)!;
    expect(await named(usernameOnly)).toBe(usernameOnly.properties.username);
    const nothing = all.find((p) => p.isIdentified && !p.properties.email && !p.properties.name && !p.properties.username)!;
    expect(await named(nothing)).toBe(`user-${nothing.id}`);
    const anonymous = all.find((p) => !p.isIdentified)!;
    expect(await named(anonymous)).toBe(anonymous.distinctIds[0]);
  });

  it('answers 400 with the exact message for ids that are neither int nor UUID', async () => {
    const reply = await call(sb, `${base}user-5/`);
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual(
      errorBody(
        'validation_error',
        'invalid_input',
        'The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=user-5 instead.',
      ),
    );
  });

  it('answers 404 Not found. for unknown persons', async () => {
    for (const ref of ['999999', '0190aaaa-aaaa-7aaa-8aaa-aaaaaaaaaaaa']) {
      const reply = await call(sb, `${base}${ref}/`);
      expect(reply.status).toBe(404);
      expect(reply.headers['content-type']).toBe('application/json');
      expect(reply.json()).toEqual(errorBody('invalid_request', 'not_found', 'Not found.'));
    }
  });

  it('does not show persons of another project', async () => {
    const other = sb.stores.get(2)!.getById(3)!;
    expect((await call(sb, `${base}${other.uuid}/`)).status).toBe(404);
    expect((await call(sb, `/api/projects/2/persons/${other.uuid}/`)).json().uuid).toBe(other.uuid);
  });

  it('refuses POST /persons/ with the special 405', async () => {
    const reply = await call(sb, base, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(reply.status).toBe(405);
    expect(reply.json()).toEqual(
      errorBody(
        'invalid_request',
        'method_not_allowed',
        'Creating persons via this API is not allowed. Please create persons by sending an $identify event. See https://posthog.com/docs/product-analytics/identify for details.',
      ),
    );
  });

  it('makes trailing slashes optional', async () => {
    expect((await call(sb, '/api/projects/1/persons?limit=2')).json().results).toHaveLength(2);
    expect((await call(sb, '/api/projects/1/persons/5')).json().id).toBe(5);
  });
});

describe('GET /persons/ filters', () => {
  it('filters by exact email', async () => {
    const p = [...sb.store].find((x) => x.properties.email)!;
    const page = (await call(sb, `${base}?email=${encodeURIComponent(String(p.properties.email))}`)).json();
    expect(page.results.map((r: any) => r.uuid)).toEqual([p.uuid]);
    expect((await call(sb, `${base}?email=USER1%40EXAMPLE.COM`)).json().results).toEqual([]);
  });

  it('filters by any distinct id, including anonymous ones; unknown ones give an empty list', async () => {
    const p = [...sb.store].find((x) => x.distinctIds.length === 3)!;
    for (const d of p.distinctIds) {
      expect((await call(sb, `${base}?distinct_id=${d}`)).json().results.map((r: any) => r.uuid)).toEqual([p.uuid]);
    }
    const none = (await call(sb, `${base}?distinct_id=nobody&include_total`)).json();
    expect(none.results).toEqual([]);
    expect(none.count).toBe(0);
  });

  it("searches as PostHog's list does: a part of the email in any case, a whole distinct id, a whole UUID", async () => {
    const all = [...sb.store];
    const expected = (needle: string) =>
      all
        .filter(
          (p) =>
            String(p.properties.email ?? '')
              .toLowerCase()
              .includes(needle.toLowerCase()) ||
            p.distinctIds.includes(needle) ||
            p.uuid === needle.toLowerCase(),
        )
        .map((p) => p.uuid);
    const named = all.find((p) => typeof p.properties.name === 'string')!;
    for (const needle of ['USER1', all[3].distinctIds[0], all[5].uuid.toUpperCase(), 'example.com']) {
      const page = (await call(sb, `${base}?limit=1000&search=${encodeURIComponent(needle)}&include_total`)).json();
      expect(page.results.map((r: any) => r.uuid)).toEqual(expected(needle));
      expect(page.count).toBe(expected(needle).length);
      expect(page.count).toBeGreaterThan(0);
    }
    // Neither a name nor a part of a distinct id or UUID is searched.
    for (const needle of [String(named.properties.name), all[3].distinctIds[0].slice(0, -1), all[5].uuid.slice(24)]) {
      const page = (await call(sb, `${base}?limit=1000&search=${encodeURIComponent(needle)}&include_total`)).json();
      expect(page.results.map((r: any) => r.uuid)).toEqual(expected(needle));
    }
  });

  const props = (filters: unknown) => `${base}?limit=1000&properties=${encodeURIComponent(JSON.stringify(filters))}`;
  const uuids = async (filters: unknown) => (await call(sb, props(filters))).json().results.map((r: any) => r.uuid);
  const where = (fn: (p: any) => boolean) => [...sb.store].filter(fn).map((p) => p.uuid);

  it('supports the person property operators', async () => {
    const P = (p: any) => p.properties;
    expect(await uuids([{ key: 'plan', value: 'team', type: 'person' }])).toEqual(where((p) => P(p).plan === 'team'));
    expect(await uuids([{ key: 'plan', value: ['team', 'enterprise'], operator: 'exact', type: 'person' }])).toEqual(
      where((p) => P(p).plan === 'team' || P(p).plan === 'enterprise'),
    );
    expect(await uuids([{ key: 'plan', value: 'free', operator: 'is_not', type: 'person' }])).toEqual(where((p) => P(p).plan !== 'free'));
    expect(await uuids([{ key: 'email', value: 'USER1', operator: 'icontains', type: 'person' }])).toEqual(
      where((p) => String(P(p).email ?? '').includes('user1') && P(p).email !== undefined),
    );
    expect(await uuids([{ key: 'email', value: 'user1', operator: 'not_icontains', type: 'person' }])).toEqual(
      where((p) => !String(P(p).email ?? '').includes('user1')),
    );
    expect(await uuids([{ key: 'email', value: '^user2\\d@', operator: 'regex', type: 'person' }])).toEqual(
      where((p) => /^user2\d@/.test(String(P(p).email ?? '\u0000'))),
    );
    expect(await uuids([{ key: 'email', value: '^user2', operator: 'not_regex', type: 'person' }])).toEqual(
      where((p) => !/^user2/.test(String(P(p).email ?? ''))),
    );
    expect(await uuids([{ key: 'sessions', value: 400, operator: 'gt', type: 'person' }])).toEqual(where((p) => P(p).sessions > 400));
    expect(await uuids([{ key: 'sessions', value: '400', operator: 'gte', type: 'person' }])).toEqual(where((p) => P(p).sessions >= 400));
    expect(await uuids([{ key: 'sessions', value: 10, operator: 'lt', type: 'person' }])).toEqual(where((p) => P(p).sessions < 10));
    expect(await uuids([{ key: 'sessions', value: 10, operator: 'lte', type: 'person' }])).toEqual(where((p) => P(p).sessions <= 10));
    expect(await uuids([{ key: 'email', operator: 'is_set', type: 'person' }])).toEqual(where((p) => P(p).email !== undefined));
    expect(await uuids([{ key: 'email', operator: 'is_not_set', type: 'person' }])).toEqual(where((p) => P(p).email === undefined));
    expect(await uuids([{ key: 'country', value: ['US', 'GB'], operator: 'in', type: 'person' }])).toEqual(
      where((p) => ['US', 'GB'].includes(P(p).country)),
    );
    expect(await uuids([{ key: 'country', value: ['US', 'GB'], operator: 'not_in', type: 'person' }])).toEqual(
      where((p) => !['US', 'GB'].includes(P(p).country)),
    );
    // Several filters are ANDed.
    expect(
      await uuids([
        { key: 'plan', value: 'team', type: 'person' },
        { key: 'country', value: 'US', type: 'person' },
      ]),
    ).toEqual(where((p) => P(p).plan === 'team' && P(p).country === 'US'));
  });

  it('rejects unparsable properties with 400 and event filters with a server error', async () => {
    const bad = await call(sb, `${base}?properties=${encodeURIComponent('[{"key":')}`);
    expect(bad.status).toBe(400);
    expect(bad.json()).toEqual(errorBody('validation_error', 'invalid_input', 'Properties are unparsable!'));
    const event = await call(sb, props([{ key: '$browser', value: 'Chrome', type: 'event' }]));
    expect(event.status).toBe(500);
    expect(event.json()).toEqual(errorBody('server_error', 'error', 'A server error occurred.'));
  });

  // A huge limit clamped to 50,000 rows: page-caps.test.ts, on the one world of 50,000 persons and more.
});

describe('CSV (docs/server-contract.md §6.2)', () => {
  it('renders results only, with dotted columns and a sorted header, via ?format=csv', async () => {
    const p = [...sb.store].find((x) => x.distinctIds.length === 2 && x.properties.name)!;
    const reply = await call(sb, `${base}?format=csv&distinct_id=${encodeURIComponent(p.distinctIds[0])}`);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/csv; charset=utf-8');
    const [header, row, end] = reply.text.split('\r\n');
    const columns = header.split(',');
    expect(columns).toEqual([...columns].sort());
    expect(columns).toContain('properties.email');
    expect(columns).toContain('distinct_ids.1');
    expect(columns).not.toContain('matched_recordings');
    expect(columns).not.toContain('next');
    const values = Object.fromEntries(columns.map((c, i) => [c, row.split(',')[i]]));
    expect(values).toMatchObject({
      id: p.uuid,
      'properties.email': p.properties.email,
      'distinct_ids.0': `user-${p.id}`,
      is_identified: 'True',
      value_at_data_point: '',
    });
    expect(end).toBe('');
  });

  it('ignores limit and offset and honours Accept: text/csv', async () => {
    const reply = await call(sb, `${base}?limit=2&offset=100`, { headers: { accept: 'text/csv' } });
    expect(reply.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(reply.text.trimEnd().split('\r\n')).toHaveLength(1 + 250);
  });

  it('answers 404 for an unknown format', async () => {
    const reply = await call(sb, `${base}?format=xml`);
    expect(reply.status).toBe(404);
    expect(reply.json().code).toBe('not_found');
  });
});
