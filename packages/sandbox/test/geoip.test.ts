// `$ip` from the request and the GeoIP transformation on captured events (src/geoip.ts), as
// PostHog's ingestion does them: nodejs/src/utils/event.ts sanitizeEvent, and
// nodejs/src/cdp/templates/_transformations/geoip/geoip.template.ts, on by default for a project.
// The requests come from 127.0.0.1, which the template looks up as 89.160.20.129.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/server.js';
import { call, withSandbox } from './helpers.js';

let sb: Sandbox;
let token: string;
beforeAll(async () => {
  sb = await withSandbox({ persons: 5, applyDelayMs: 5, eventsPerPerson: 0 });
  token = sb.world.projects[0].apiToken;
});
afterAll(() => sb.close());

let n = 0;
const fresh = () => `geo-${++n}-${Math.random().toString(36).slice(2, 8)}`;

/** What MaxMind's test database says of 89.160.20.129: 11 of the template's 15 keys. */
const FOUND = {
  city_name: 'Linköping',
  country_name: 'Sweden',
  country_code: 'SE',
  continent_name: 'Europe',
  continent_code: 'EU',
  latitude: 58.4167,
  longitude: 15.6167,
  accuracy_radius: 76,
  time_zone: 'Europe/Stockholm',
  subdivision_1_code: 'E',
  subdivision_1_name: 'Östergötland County',
};
const MISSING = { city_confidence: null, subdivision_2_name: null, subdivision_2_code: null, postal_code: null };
const prefixed = (prefix: string, values: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [`${prefix}${k}`, v]));
/** The 30 person properties the template sets: 15 `$geoip_*` and 15 `$initial_geoip_*`. */
const PERSON_GEO = { ...prefixed('$geoip_', { ...FOUND, ...MISSING }), ...prefixed('$initial_geoip_', { ...FOUND, ...MISSING }) };

/** A property the template writes (`$geoip_disable` is the client's switch, not one of them). */
const isGeo = (key: string) => /^\$(?:initial_)?geoip_/.test(key) && key !== '$geoip_disable';

async function capture(distinctId: string, properties: Record<string, unknown>, projectToken = token): Promise<void> {
  const body = JSON.stringify({ api_key: projectToken, batch: [{ event: 'signed_in', distinct_id: distinctId, properties }] });
  const res = await call(sb, '/batch/', { method: 'POST', headers: { 'content-type': 'application/json' }, body, key: null });
  expect(res.status).toBe(200);
}

async function personOf(distinctId: string, project = 1): Promise<Record<string, unknown>> {
  for (let i = 0; i < 400; i++) {
    const person = sb.stores.get(project)!.getByDistinctId(distinctId);
    if (person) return person.properties;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`no person for ${distinctId}`);
}

function storedEvent(distinctId: string, project = 1): Record<string, unknown> {
  const events = sb.events.get(project)!;
  let found: Record<string, unknown> | undefined;
  events.forEachRow((row) => {
    if (events.distinctId(row) === distinctId) found = JSON.parse(events.propertiesText(row));
  });
  if (!found) throw new Error(`no event of ${distinctId}`);
  return found;
}

const geoOf = (properties: Record<string, unknown>) => Object.fromEntries(Object.entries(properties).filter(([k]) => isGeo(k)));

async function toggle(what: string, on: boolean, project = 1): Promise<void> {
  const res = await call(sb, `/_sandbox/projects/${project}/${what}/${on ? 'on' : 'off'}`, { method: 'POST', key: null });
  expect(res.status).toBe(200);
}

describe('GeoIP on capture', () => {
  it('gives a person the 15 $geoip_* and $initial_geoip_* of the request address, and the event the ones found', async () => {
    const id = fresh();
    await capture(id, { $set: { plan: 'pro' } });
    const person = await personOf(id);
    expect(geoOf(person)).toEqual(PERSON_GEO);
    expect(person.plan).toBe('pro');
    const event = storedEvent(id);
    // The request's address, copied because the event had none.
    expect(event.$ip).toBe('127.0.0.1');
    expect(geoOf(event)).toEqual(prefixed('$geoip_', FOUND));
  });

  it('sets nothing for an event with $geoip_disable: true, as posthog-node sends; $ip is still stored', async () => {
    const id = fresh();
    await capture(id, { $geoip_disable: true, $set: { plan: 'pro' } });
    const person = await personOf(id);
    expect(Object.keys(person).filter(isGeo)).toEqual([]);
    expect(person.plan).toBe('pro');
    const event = storedEvent(id);
    expect(Object.keys(event).filter(isGeo)).toEqual([]);
    expect(event.$ip).toBe('127.0.0.1');
  });

  it('sets nothing in a project whose GeoIP transformation is off', async () => {
    await toggle('geoip', false);
    try {
      const id = fresh();
      await capture(id, { $set: { plan: 'pro' } });
      const person = await personOf(id);
      expect(Object.keys(person).filter(isGeo)).toEqual([]);
      expect(Object.keys(storedEvent(id)).filter(isGeo)).toEqual([]);
    } finally {
      await toggle('geoip', true);
    }
  });

  it("looks up the event's own $ip: an address the lookup does not know leaves the event unchanged", async () => {
    const id = fresh();
    await capture(id, { $ip: '192.0.2.7', $set: { plan: 'pro' } });
    const person = await personOf(id);
    expect(Object.keys(person).filter(isGeo)).toEqual([]);
    expect(storedEvent(id).$ip).toBe('192.0.2.7');
  });

  it("overwrites the client's own $geoip_* in $set, and keeps an $initial_geoip_* the person already has", async () => {
    const id = fresh();
    await capture(id, { $set: { $geoip_city_name: 'Paris' }, $set_once: { $initial_geoip_city_name: 'Lyon' } });
    const first = await personOf(id);
    // The template writes its values over the event's $set and $set_once.
    expect([first.$geoip_city_name, first.$initial_geoip_city_name]).toEqual(['Linköping', 'Linköping']);
    sb.store.mutate(sb.store.getByDistinctId(id)!.id, (p) => void (p.properties.$initial_geoip_city_name = 'Lyon'));
    await capture(id, { $set: { seen: 2 } });
    for (let i = 0; i < 400 && sb.store.getByDistinctId(id)!.properties.seen !== 2; i++) await new Promise((r) => setTimeout(r, 5));
    expect(sb.store.getByDistinctId(id)!.properties).toMatchObject({
      seen: 2,
      $initial_geoip_city_name: 'Lyon',
      $geoip_city_name: 'Linköping',
    });
  });

  it('anonymize_ips drops $ip from the stored event after GeoIP used it, and the project says so', async () => {
    expect((await call(sb, '/api/projects/1/')).json()).toMatchObject({ anonymize_ips: false });
    await toggle('anonymize-ips', true);
    try {
      expect((await call(sb, '/api/projects/1/')).json()).toMatchObject({ anonymize_ips: true });
      const id = fresh();
      await capture(id, {});
      expect(geoOf(await personOf(id))).toEqual(PERSON_GEO);
      const event = storedEvent(id);
      expect(event.$ip).toBeUndefined();
      expect(event.$geoip_city_name).toBe('Linköping');
    } finally {
      await toggle('anonymize-ips', false);
    }
  });
});
