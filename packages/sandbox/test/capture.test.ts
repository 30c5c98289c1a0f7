// The sandbox's capture endpoints against PostHog's capture service (rust/capture/src/api.rs,
// token.rs, payload/decompression.rs) and the person changes ingestion makes from them.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/server.js';
import { uuidFromDistinctId } from '../src/person-uuid.js';
import { call, until, withSandbox } from './helpers.js';

let sb: Sandbox;
let token: string;
beforeAll(async () => {
  sb = await withSandbox({ persons: 50, applyDelayMs: 10 });
  token = sb.world.projects[0].apiToken;
});
afterAll(() => sb.close());

const JSON_HEADERS = { 'content-type': 'application/json' };

function capture(path: string, body: unknown, headers: Record<string, string> = JSON_HEADERS) {
  const raw = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return call(sb, path, { method: 'POST', headers, body: raw as string, key: null });
}

function person(n: number) {
  const p = sb.store.list({}, n, 1)[0];
  return { id: p.id, distinctId: p.distinctIds[0], properties: p.properties };
}

describe('POST /batch/', () => {
  it('answers 200 {"status": "Ok"} and applies $set, $set_once and $unset after the apply delay', async () => {
    const target = person(0);
    const existingKey = Object.keys(target.properties)[0];
    const res = await capture('/batch/', {
      api_key: token,
      historical_migration: false,
      batch: [
        {
          event: '$set',
          distinct_id: target.distinctId,
          properties: { $set: { plan: 'team' }, $set_once: { [existingKey]: 'never', first_seen_via: 'cli' }, $unset: ['email'] },
          timestamp: '2026-11-22T08:00:00Z',
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ status: 'Ok' });
    await until(() => sb.store.getById(target.id)!.properties.plan === 'team', 'the $set to apply');
    const after = sb.store.getById(target.id)!.properties;
    expect(after.first_seen_via).toBe('cli');
    expect(after[existingKey]).toEqual(target.properties[existingKey]);
    expect(after.email).toBeUndefined();
  });

  it('takes a gzip body, by header or by its magic bytes', async () => {
    const a = person(1);
    const b = person(2);
    const body = (d: string, v: string) =>
      gzipSync(JSON.stringify({ api_key: token, batch: [{ event: '$set', distinct_id: d, properties: { $set: { via: v } } }] }));
    const byHeader = await call(sb, '/batch/', {
      method: 'POST',
      key: null,
      headers: { ...JSON_HEADERS, 'content-encoding': 'gzip' },
      body: body(a.distinctId, 'header') as unknown as string,
    });
    const byMagic = await call(sb, '/batch/', {
      method: 'POST',
      key: null,
      headers: JSON_HEADERS,
      body: body(b.distinctId, 'magic') as unknown as string,
    });
    expect([byHeader.status, byMagic.status]).toEqual([200, 200]);
    await until(
      () => sb.store.getById(a.id)!.properties.via === 'header' && sb.store.getById(b.id)!.properties.via === 'magic',
      'both gzip batches',
    );
  });

  it('creates a person for a distinct id that has none, as ingestion does', async () => {
    const before = sb.store.size;
    const res = await capture('/batch/', {
      api_key: token,
      batch: [{ event: '$set', distinct_id: 'capture-new-1', properties: { $set: { email: 'new@example.com' } } }],
    });
    expect(res.status).toBe(200);
    await until(() => sb.store.size === before + 1, 'the new person');
    const created = sb.store.getByDistinctId('capture-new-1')!;
    expect(created.uuid).toBe(uuidFromDistinctId(1, 'capture-new-1'));
    const { email, $creator_event_uuid, ...geo } = created.properties;
    expect({ email, $creator_event_uuid }).toEqual({ email: 'new@example.com', $creator_event_uuid: expect.any(String) });
    // And GeoIP's 15 $geoip_* and $initial_geoip_* of the request's address (test/geoip.test.ts).
    expect(Object.keys(geo).filter((key) => !/^\$(?:initial_)?geoip_/.test(key))).toEqual([]);
  });

  it("a deleted person's distinct id gets a new person, hidden from listings until reset_person_distinct_id", async () => {
    const gone = person(3);
    sb.store.delete(gone.id);
    const size = sb.store.size;
    const res = await capture('/batch/', {
      api_key: token,
      batch: [{ event: '$set', distinct_id: gone.distinctId, properties: { $set: { x: 1 } } }],
    });
    expect(res.status).toBe(200);
    await until(() => sb.store.getByDistinctId(gone.distinctId) !== undefined, 'the revived person');
    const revived = sb.store.getByDistinctId(gone.distinctId)!;
    expect(revived.uuid).toBe(uuidFromDistinctId(1, gone.distinctId));
    expect(sb.store.isHidden(revived.id)).toBe(true);
    expect(sb.store.size).toBe(size);
    expect(sb.store.list({ distinctId: gone.distinctId })).toEqual([]);
    sb.store.unblockDistinctId(gone.distinctId);
    expect(sb.store.isHidden(revived.id)).toBe(false);
    expect(sb.store.size).toBe(size + 1);
    expect(sb.store.list({ distinctId: gone.distinctId }).map((p) => p.id)).toEqual([revived.id]);
  });

  it('accepts a well-formed key of no project and drops its events (capture does not look keys up)', async () => {
    const target = person(4);
    const res = await capture('/batch/', {
      api_key: 'phc_unknownunknownunknownunknownunknownxx',
      batch: [{ event: '$set', distinct_id: target.distinctId, properties: { $set: { nope: true } } }],
    });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ status: 'Ok' });
    expect(sb.capture.droppedUnknownKey).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 40));
    expect(sb.store.getById(target.id)!.properties.nope).toBeUndefined();
  });
});

describe('capture errors are plain text with the service status', () => {
  const event = (extra: Record<string, unknown> = {}) => ({ event: '$set', distinct_id: 'd-1', properties: {}, ...extra });

  it.each([
    ['no key', { batch: [event()] }, 401, 'event submitted without an api_key'],
    ['an empty key', { api_key: ' ', batch: [event()] }, 401, 'API key is not valid: empty'],
    ['a personal key', { api_key: 'phx_abc', batch: [event()] }, 401, 'API key is not valid: personal_api_key'],
    ['a key over 64 characters', { api_key: `phc_${'x'.repeat(61)}`, batch: [event()] }, 401, 'API key is not valid: too_long'],
    [
      'two keys',
      { batch: [event({ api_key: 'phc_a' }), event({ api_key: 'phc_b' })] },
      401,
      'batch submitted with inconsistent api_key values',
    ],
    ['an empty batch', { api_key: 'phc_a', batch: [] }, 400, 'request holds no event'],
    ['an event without a name', { api_key: 'phc_a', batch: [event({ event: '' })] }, 400, 'event submitted with an empty event name'],
    [
      'an event without a distinct id',
      { api_key: 'phc_a', batch: [event({ distinct_id: undefined })] },
      400,
      'event submitted without a distinct_id',
    ],
    [
      'a bad timestamp',
      { api_key: 'phc_a', batch: [event({ timestamp: 'yesterday-ish' })] },
      400,
      'event submitted with invalid timestamp',
    ],
  ])('%s', async (_name, body, status, message) => {
    const res = await capture('/batch/', body);
    expect(res.status).toBe(status);
    expect(String(res.headers['content-type'])).toMatch(/^text\/plain/);
    expect(res.text).toBe(message);
  });

  it('400 for a body that is not JSON', async () => {
    const res = await capture('/batch/', '{"api_key": ');
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/^failed to parse request: /);
  });

  it('413 above the size limit, also when only the decompressed body is too large', async () => {
    const big = JSON.stringify({ api_key: token, batch: [event({ properties: { pad: 'x'.repeat(21 * 1024 * 1024) } })] });
    const plain = await capture('/batch/', big);
    expect(plain.status).toBe(413);
    const zipped = await call(sb, '/batch/', {
      method: 'POST',
      key: null,
      headers: { ...JSON_HEADERS, 'content-encoding': 'gzip' },
      body: gzipSync(big) as unknown as string,
    });
    expect(zipped.status).toBe(413);
    expect(zipped.text).toMatch(/^maximum event size exceeded/);
  });
});

describe('POST /i/v0/e/', () => {
  it('takes a single event with its token', async () => {
    const target = person(5);
    const res = await capture('/i/v0/e/', {
      token,
      event: '$identify',
      distinct_id: target.distinctId,
      properties: { $set: { single: 'yes' } },
    });
    expect(res.status).toBe(200);
    await until(() => sb.store.getById(target.id)!.properties.single === 'yes', 'the single event');
  });
});

describe('faults reach capture too', () => {
  it('answers a 502 page when a fault says so', async () => {
    sb.setFaults('502=1,path=/batch');
    try {
      const res = await capture('/batch/', { api_key: token, batch: [{ event: '$set', distinct_id: 'fault-1', properties: {} }] });
      expect(res.status).toBe(502);
    } finally {
      sb.setFaults(undefined);
    }
  });
});

describe('what capture answers, and what ingestion keeps', () => {
  it('answers quota-limited and odd 200s when a fault says so, and ingests nothing then', async () => {
    const target = person(5);
    for (const [kind, body] of [
      // Events of a project over its billing limit: the plain acceptance (v0_endpoint.rs `event()`).
      ['quota-limited', { status: 'Ok' }],
      ['odd-200', { status: 0, error: 'ingestion is paused for this project' }],
    ] as const) {
      sb.setFaults(`${kind}=1,path=/batch`);
      try {
        const res = await capture('/batch/', {
          api_key: token,
          batch: [{ event: '$set', distinct_id: target.distinctId, properties: { $set: { [kind]: true } } }],
        });
        expect(res.status).toBe(200);
        expect(res.json()).toEqual(body);
      } finally {
        sb.setFaults(undefined);
      }
    }
    await new Promise((r) => setTimeout(r, 40));
    expect(sb.store.getById(target.id)!.properties).toEqual(target.properties);
  });

  it('changes nobody in a project that opted out of person processing, and says so on the project', async () => {
    const target = person(6);
    const project = await call(sb, '/api/projects/1/');
    expect(project.json()).toMatchObject({ person_processing_opt_out: false });
    expect((await call(sb, '/_sandbox/projects/1/person-processing-opt-out/on', { method: 'POST', key: null })).status).toBe(200);
    try {
      expect((await call(sb, '/api/projects/1/')).json()).toMatchObject({ person_processing_opt_out: true });
      const before = sb.capture.personless;
      const res = await capture('/batch/', {
        api_key: token,
        batch: [{ event: '$set', distinct_id: target.distinctId, properties: { $set: { personless: true } } }],
      });
      expect(res.status).toBe(200);
      await until(() => sb.capture.personless === before + 1, 'the event to be made personless');
      expect(sb.store.getById(target.id)!.properties.personless).toBeUndefined();
    } finally {
      await call(sb, '/_sandbox/projects/1/person-processing-opt-out/off', { method: 'POST', key: null });
    }
  });

  it('keeps an object value as jsonb does: shorter keys first, then by their bytes', async () => {
    const target = person(7);
    const res = await capture('/batch/', {
      api_key: token,
      batch: [
        {
          event: '$set',
          distinct_id: target.distinctId,
          properties: { $set: { meta: { zeta: 1, b: { yy: 1, x: 2 }, aa: [{ c: 1, bb: 2 }] } } },
        },
      ],
    });
    expect(res.status).toBe(200);
    await until(() => sb.store.getById(target.id)!.properties.meta !== undefined, 'the $set');
    const meta = sb.store.getById(target.id)!.properties.meta as Record<string, unknown>;
    expect(JSON.stringify(meta)).toBe('{"b":{"x":2,"yy":1},"aa":[{"c":1,"bb":2}],"zeta":1}');
  });
});
