// Capture in every body form SDKs use, and what ingestion then does with persons and events
// (docs/server-contract.md §14). Requests are written here by hand in the shapes PostHog's capture
// service reads (rust/capture/src/payload/common.rs, decompression.rs, v0_request.rs); the
// posthog-node client drives the same paths in test/cli/persons/*.ingestion.test.ts at the repository
// root.
import { gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/server.js';
import { uuidFromDistinctId } from '../src/person-uuid.js';
import { isDistinctIdIllegal } from '../src/ingestion.js';
import { call, until, withSandbox } from './helpers.js';

let sb: Sandbox;
let token: string;
beforeAll(async () => {
  sb = await withSandbox({ persons: 20, applyDelayMs: 5, eventsPerPerson: 0 });
  token = sb.world.projects[0].apiToken;
});
afterAll(() => sb.close());

let n = 0;
/** A distinct id no other test uses. */
const fresh = (what: string) => `${what}-${++n}-${Math.random().toString(36).slice(2, 8)}`;

function post(path: string, body: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  return call(sb, path, { method: 'POST', headers, body: body as string, key: null });
}

const events = () => sb.events.get(1)!;
/** The stored events of a distinct id, as HogQL reads them. */
function eventsOf(distinctId: string) {
  const out: { event: string; personId: string; storedPersonId: string; properties: Record<string, unknown> }[] = [];
  events().forEachRow((row) => {
    if (events().distinctId(row) === distinctId)
      out.push({
        event: events().event(row),
        personId: events().personId(row),
        storedPersonId: events().storedPersonId(row),
        properties: JSON.parse(events().propertiesText(row)),
      });
  });
  return out;
}

const event = (distinctId: string, extra: Record<string, unknown> = {}) => ({
  event: 'signed_in',
  distinct_id: distinctId,
  properties: { $set: { via: 'form' } },
  ...extra,
});

describe('body forms', () => {
  it.each([
    ['a JSON batch on /batch/', '/batch/', (id: string) => JSON.stringify({ api_key: token, batch: [event(id)] }), 'application/json', ''],
    [
      'gzip named by Content-Encoding',
      '/batch/',
      (id: string) => gzipSync(JSON.stringify({ api_key: token, batch: [event(id)] })),
      'application/json',
      'gzip',
    ],
    [
      'a base64 body on /e/',
      '/e/',
      (id: string) => Buffer.from(JSON.stringify({ token, ...event(id) })).toString('base64'),
      'text/plain',
      '',
    ],
    [
      'a form with data= and compression=lz64 on /e/',
      '/e/',
      (id: string) => `data=${encodeURIComponent(LZString.compressToBase64(JSON.stringify([{ token, ...event(id) }])))}&compression=lz64`,
      'application/x-www-form-urlencoded',
      '',
    ],
    [
      'a form whose base64 data lost its + signs',
      '/capture/',
      (id: string) =>
        `data=${Buffer.from(JSON.stringify({ api_key: token, batch: [event(id, { properties: { $set: { via: '>>>?' } } })] }))
          .toString('base64')
          .replace(/\+/g, ' ')}`,
      'application/x-www-form-urlencoded',
      '',
    ],
    [
      'an array on /i/v0/e/ with the token in properties',
      '/i/v0/e/',
      (id: string) => JSON.stringify([event(id, { properties: { token, $set: { via: 'form' } } })]),
      'application/json',
      '',
    ],
  ])('%s', async (_name, path, body, contentType, encoding) => {
    const id = fresh('form');
    const payload = body(id);
    const headers: Record<string, string> = { 'content-type': contentType };
    if (encoding) headers['content-encoding'] = encoding;
    const res = await post(path, payload, headers);
    expect([res.status, res.text]).toEqual([200, '{"status":"Ok"}']);
    const person = await until(() => sb.store.getByDistinctId(id), `the person of ${id}`);
    expect(person.properties.via).toMatch(/^(form|>>>\?)$/);
    expect(eventsOf(id)).toHaveLength(1);
  });

  it('GET with ?data= and ?compression=gzip-js', async () => {
    const id = fresh('get');
    const data = Buffer.from(JSON.stringify({ api_key: token, batch: [event(id)] })).toString('base64');
    const res = await call(sb, `/e/?data=${encodeURIComponent(data)}&_=${Date.now()}`, { key: null });
    expect(res.status).toBe(200);
    await until(() => sb.store.getByDistinctId(id), 'the person');
  });

  it('/engage/ takes an event without a name as $identify; elsewhere it is refused', async () => {
    const id = fresh('engage');
    const nameless = JSON.stringify({ token, distinct_id: id, $set: { plan: 'team' } });
    expect((await post('/engage/', nameless)).status).toBe(200);
    const refused = await post('/batch/', nameless);
    expect([refused.status, refused.text]).toEqual([
      400,
      'failed to hydrate events from request: non-engage request missing event name attribute',
    ]);
    const person = await until(() => sb.store.getByDistinctId(id), 'the engage person');
    expect(person.properties.plan).toBe('team');
    expect(eventsOf(id).map((e) => e.event)).toEqual(['$identify']);
  });

  it('OPTIONS answers the success body with CORS headers; an empty request is refused', async () => {
    const res = await call(sb, '/batch/', { method: 'OPTIONS', key: null, headers: { origin: 'https://app.example.com' } });
    expect([res.status, res.text, res.headers['access-control-allow-origin']]).toEqual([200, '{"status":"Ok"}', 'https://app.example.com']);
    expect((await post('/batch/', '')).text).toBe('request missing data payload');
    const form = await post('/e/', 'hello=1', { 'content-type': 'application/x-www-form-urlencoded' });
    expect([form.status, form.text]).toEqual([400, 'failed to decode request: expected form data in POST request payload']);
  });

  it('refuses an event uuid that is not a UUID, and 413 over 2 MiB on a single-event path', async () => {
    const bad = await post('/batch/', JSON.stringify({ api_key: token, batch: [event('x', { uuid: 'not-a-uuid' })] }));
    expect(bad.status).toBe(400);
    const big = JSON.stringify({ token, ...event('x', { properties: { pad: 'x'.repeat(2 * 1024 * 1024) } }) });
    expect((await post('/i/v0/e/', big)).status).toBe(413);
    expect((await post('/batch/', JSON.stringify({ api_key: token, batch: [JSON.parse(big)] }))).status).toBe(200);
  });

  it('keeps a sent uuid, corrects the timestamp by sent_at and drops $performance_event', async () => {
    const id = fresh('ts');
    const uuid = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    const sentAt = new Date(Date.now() + 3_600_000).toISOString();
    const timestamp = new Date(Date.now() + 3_600_000 - 60_000).toISOString();
    await post(
      '/batch/',
      JSON.stringify({
        api_key: token,
        sent_at: sentAt,
        batch: [event(id, { uuid: uuid.toUpperCase(), timestamp }), event(id, { event: '$performance_event' })],
      }),
    );
    await until(() => eventsOf(id).length > 0, 'the event');
    let row = -1;
    events().forEachRow((r) => void (events().distinctId(r) === id && (row = r)));
    expect(events().uuid(row)).toBe(uuid);
    // now + (timestamp - sent_at): about a minute ago, not an hour ahead.
    expect(Math.abs(events().timestamp(row) / 1000 - (Date.now() - 60_000))).toBeLessThan(30_000);
    expect(eventsOf(id)).toHaveLength(1);
  });
});

describe('person processing', () => {
  const send = (...batch: unknown[]) => post('/batch/', JSON.stringify({ api_key: token, batch }));

  it('$set_once, $set and $unset in that order, against the properties before the event', async () => {
    const id = fresh('order');
    await send(event(id, { properties: { $set: { a: 1, b: 1, c: 1 } } }));
    await until(() => sb.store.getByDistinctId(id), 'the person');
    await send(
      event(id, { properties: { $set_once: { a: 'once', d: 'once', e: 'once' }, $set: { d: 'set', f: 'new' }, $unset: ['b', 'f'] } }),
    );
    const person = await until(() => (sb.store.getByDistinctId(id)?.properties.d ? sb.store.getByDistinctId(id) : undefined), 'the update');
    expect(person.properties).toMatchObject({ a: 1, c: 1, d: 'set', e: 'once', f: 'new' });
    expect(person.properties).not.toHaveProperty('b');
  });

  it("lifts the properties that describe the person into $set and $initial_*, the client's own keys first", async () => {
    const web = fresh('web');
    const server = fresh('server');
    const props = { $browser: 'Firefox', $os: 'Linux', utm_source: 'news', gclid: null, $set: { utm_source: 'mine' } };
    await send(event(web, { properties: props }), event(server, { properties: { ...props, $is_server: true } }));
    const person = await until(() => sb.store.getByDistinctId(web), 'the web person');
    expect(person.properties).toMatchObject({
      $browser: 'Firefox',
      $os: 'Linux',
      utm_source: 'mine',
      gclid: null,
      $initial_browser: 'Firefox',
      $initial_os: 'Linux',
      $initial_utm_source: 'news',
    });
    // A null never becomes a first-touch value.
    expect(person.properties).not.toHaveProperty('$initial_gclid');
    // A server-side SDK's host OS is not the person's.
    const fromServer = await until(() => sb.store.getByDistinctId(server), 'the server person');
    expect(fromServer.properties).toMatchObject({ $browser: 'Firefox', $initial_browser: 'Firefox' });
    expect(fromServer.properties).not.toHaveProperty('$os');
    expect(fromServer.properties).not.toHaveProperty('$initial_os');
  });

  it('$identify with $anon_distinct_id makes one identified person, the identified id its survivor', async () => {
    const anon = fresh('anon');
    const user = fresh('user');
    const anHourAgo = new Date(Date.now() - 3_600_000).toISOString();
    await send(event(anon, { event: '$pageview', timestamp: anHourAgo, properties: { $set: { seen: 'anon', both: 'anon' } } }));
    const anonPerson = await until(() => sb.store.getByDistinctId(anon), 'the anonymous person');
    await send(event(user, { event: 'login', properties: { $set: { email: `${user}@example.com`, both: 'user' } } }));
    const userPerson = await until(() => sb.store.getByDistinctId(user), 'the user person');
    const [anonCreatedUs, userCreatedUs] = [anonPerson.createdAtUs, userPerson.createdAtUs];
    await send(event(user, { event: '$identify', properties: { $anon_distinct_id: anon, $set: { plan: 'team' } } }));
    const merged = await until(() => {
      const p = sb.store.getByDistinctId(anon);
      return p && p.id === userPerson.id ? p : undefined;
    }, 'the merge');
    expect(merged.uuid).toBe(uuidFromDistinctId(1, user));
    expect(merged.isIdentified).toBe(true);
    // The earlier created_at of the two, and the survivor found by its UUID and in listings.
    expect(anonCreatedUs).toBeLessThan(userCreatedUs);
    expect(merged.createdAtUs).toBe(anonCreatedUs);
    expect(sb.store.getByUuid(merged.uuid)?.id).toBe(merged.id);
    expect(sb.store.list({ distinctId: anon }).map((p) => p.id)).toEqual([merged.id]);
    expect(sb.store.getByUuid(anonPerson.uuid)).toBeUndefined();
    expect(merged.properties).toMatchObject({ seen: 'anon', both: 'user', plan: 'team', email: `${user}@example.com` });
    expect([...merged.distinctIds].sort()).toEqual([anon, user].sort());
    // The anonymous events keep their stored person_id; HogQL reads them through the override.
    const [pageview] = eventsOf(anon);
    expect(pageview.storedPersonId).toBe(uuidFromDistinctId(1, anon));
    expect(pageview.personId).toBe(merged.uuid);
  });

  it('refuses to merge an identified person unless $merge_dangerously', async () => {
    const a = fresh('a');
    const b = fresh('b');
    const c = fresh('c');
    await send(event(a), event(c));
    await until(() => sb.store.getByDistinctId(a) && sb.store.getByDistinctId(c), 'a and c');
    await send(event(b, { event: '$identify', properties: { $anon_distinct_id: c } }));
    const bPerson = await until(() => sb.store.getByDistinctId(b), 'b');
    expect(bPerson.isIdentified).toBe(true);
    await send(event(a, { event: '$create_alias', properties: { alias: b } }));
    await until(() => sb.ingestion.get(1)!.warnings.find((w) => w.targetDistinctId === a), 'the refusal');
    expect(sb.ingestion.get(1)!.warnings.find((w) => w.targetDistinctId === a)!.type).toBe('cannot_merge_already_identified');
    expect(sb.store.getByDistinctId(a)!.id).not.toBe(sb.store.getByDistinctId(b)!.id);
    await send(event(a, { event: '$merge_dangerously', properties: { alias: b } }));
    await until(() => sb.store.getByDistinctId(a)!.id === sb.store.getByDistinctId(b)?.id, 'the dangerous merge');
    expect([...sb.store.getByDistinctId(a)!.distinctIds].sort()).toEqual([a, b, c].sort());
  });

  it('$merge_dangerously events from one kept id, one batch: each merge is {...other, ...kept}, in order', async () => {
    // person-merge-service.ts mergePeople(): properties {...source, ...target}, the earlier
    // created_at, is_identified; applied once per event, so the first merged wins over the later.
    const [k, o1, o2] = [fresh('keep'), fresh('first'), fresh('second')];
    const anHourAgo = new Date(Date.now() - 3_600_000).toISOString();
    await send(event(o2, { timestamp: anHourAgo, properties: { $set: { plan: 'o2', city: 'Oslo', only2: 2 } } }));
    await send(event(k, { properties: { $set: { plan: 'k' } } }), event(o1, { properties: { $set: { plan: 'o1', city: 'Rome' } } }));
    await send(event(o1, { event: '$identify', properties: { $anon_distinct_id: fresh('anon') } }));
    await until(
      () => sb.store.getByDistinctId(k) && sb.store.getByDistinctId(o1)?.isIdentified && sb.store.getByDistinctId(o2),
      'three persons',
    );
    const oldest = sb.store.getByDistinctId(o2)!.createdAtUs;
    const keptUuid = sb.store.getByDistinctId(k)!.uuid;
    await send(
      event(k, { event: '$merge_dangerously', properties: { alias: o1 } }),
      event(k, { event: '$merge_dangerously', properties: { alias: o2 } }),
    );
    const kept = await until(() => {
      const p = sb.store.getByDistinctId(k);
      return p && p.id === sb.store.getByDistinctId(o1)?.id && p.id === sb.store.getByDistinctId(o2)?.id ? p : undefined;
    }, 'both merges');
    expect(kept.uuid).toBe(keptUuid);
    expect(kept.properties).toMatchObject({ plan: 'k', city: 'Rome', only2: 2 });
    expect(kept.createdAtUs).toBe(oldest);
    expect(kept.isIdentified).toBe(true);
    expect(eventsOf(o2)[0].personId).toBe(keptUuid);
  });

  it('refuses illegal distinct ids, quoted or not', async () => {
    for (const id of ['anonymous', 'NULL'.toLowerCase(), '"undefined"', "'0'", '  ', 'Guest', '[object Object]'])
      expect(isDistinctIdIllegal(id)).toBe(true);
    for (const id of ['ana@example.com', 'Null', 'NONE']) expect(isDistinctIdIllegal(id)).toBe(false);
    const user = fresh('legal');
    await send(event(user, { event: '$identify', properties: { $anon_distinct_id: 'null' } }));
    await until(() => sb.ingestion.get(1)!.warnings.find((w) => w.targetDistinctId === user), 'the warning');
    expect(sb.store.getByDistinctId(user)!.distinctIds).toEqual([user]);
    expect(sb.store.getByDistinctId('null')).toBeUndefined();
  });

  it('personless events create nobody and carry the UUIDv5 of their distinct id', async () => {
    const id = fresh('personless');
    const size = sb.store.size;
    await send(event(id, { properties: { $process_person_profile: false, $set: { x: 1 } } }));
    await until(() => eventsOf(id).length === 1, 'the event');
    expect(sb.store.getByDistinctId(id)).toBeUndefined();
    expect(sb.store.size).toBe(size);
    expect(eventsOf(id)[0].storedPersonId).toBe(uuidFromDistinctId(1, id));
  });

  it("an event for a deleted person's distinct id revives a person hidden until the id is reset", async () => {
    const id = fresh('revive');
    await send(event(id));
    const first = await until(() => sb.store.getByDistinctId(id), 'the person');
    sb.store.delete(first.id);
    await send(event(id, { properties: { $set: { back: true } } }));
    const revived = await until(() => sb.store.getByDistinctId(id), 'the revived person');
    expect(revived.uuid).toBe(first.uuid);
    expect(sb.store.isHidden(revived.id)).toBe(true);
    const listed = await call(sb, `/api/projects/1/persons/?distinct_id=${id}`);
    expect(listed.json().results).toEqual([]);
    expect((await call(sb, `/api/projects/1/persons/${revived.uuid}/`)).status).toBe(200);
    // HogQL's person_distinct_ids does not show it either (ClickHouse keeps the deleted rows).
    const mapped = async () =>
      (
        await call(sb, '/api/projects/1/query/', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            query: { kind: 'HogQLQuery', query: 'SELECT person_id FROM person_distinct_ids WHERE distinct_id = {id}', values: { id } },
          }),
        })
      ).json().results;
    expect(await mapped()).toEqual([]);
    const reset = await call(sb, '/api/projects/1/persons/reset_person_distinct_id/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ distinct_id: id }),
    });
    expect(reset.status).toBe(202);
    expect((await call(sb, `/api/projects/1/persons/?distinct_id=${id}`)).json().results.map((p: { uuid: string }) => p.uuid)).toEqual([
      revived.uuid,
    ]);
    expect(await mapped()).toEqual([[revived.uuid]]);
  });
});

describe('event deletion', () => {
  it("squashes the overrides first: the person's pre-merge and personless events go, up to the request; others' stay", async () => {
    const anon = fresh('del-anon');
    const user = fresh('del-user');
    const other = fresh('del-other');
    const stranger = fresh('del-stranger');
    await post(
      '/batch/',
      JSON.stringify({
        api_key: token,
        batch: [
          event(anon),
          event(user),
          event(other),
          event(user, { properties: { $process_person_profile: false } }),
          event(stranger, { properties: { $process_person_profile: false } }),
        ],
      }),
    );
    const person = await until(() => sb.store.getByDistinctId(user), 'the person');
    await post(
      '/batch/',
      JSON.stringify({ api_key: token, batch: [event(user, { event: '$identify', properties: { $anon_distinct_id: anon } })] }),
    );
    await until(() => sb.store.getByDistinctId(anon)?.id === person.id, 'the merge');
    const del = await call(sb, `/api/projects/1/persons/${person.uuid}/?delete_events`, { method: 'DELETE' });
    expect(del.status).toBe(202);
    // Dated after the request: not covered by it (timestamp <= created_at).
    const later = new Date(Date.now() + 60_000).toISOString();
    await post('/batch/', JSON.stringify({ api_key: token, batch: [event(user, { event: 'came_back', timestamp: later })] }));
    await until(() => eventsOf(user).length === 4, 'the later event');
    expect((await call(sb, '/_sandbox/deletions/run', { method: 'POST' })).json()).toMatchObject({ completed: 1 });
    // The anonymous pre-merge event was stored with the anonymous person's UUID: the squash gave it
    // the user's, so it went with the user's own (the personless one included).
    expect(eventsOf(anon)).toEqual([]);
    expect(eventsOf(user)).toHaveLength(1);
    // A personless id that was never the person's, and another person's event, stay.
    expect(eventsOf(stranger)).toHaveLength(1);
    expect(eventsOf(other)).toHaveLength(1);
  });
});
