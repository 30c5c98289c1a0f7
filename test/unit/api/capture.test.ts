import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { batchBody, readCaptureAnswer, stampToSend, type CaptureEvent } from '../../../src/api/capture.js';

// PostHog/posthog rust/capture/src/api.rs: CaptureResponse { status: Ok | NoContent, quota_limited }.
describe('readCaptureAnswer', () => {
  it('accepts {"status": "Ok"}, the older {"status": 1}, and an empty 204', () => {
    expect(readCaptureAnswer(200, { status: 'Ok' })).toEqual({ accepted: true });
    expect(readCaptureAnswer(200, { status: 1 })).toEqual({ accepted: true });
    expect(readCaptureAnswer(204, null)).toEqual({ accepted: true });
    expect(readCaptureAnswer(200, { status: 'Ok', quota_limited: [] })).toEqual({ accepted: true });
  });

  it('reads quota_limited as a refusal that names the quotas', () => {
    expect(readCaptureAnswer(200, { status: 'Ok', quota_limited: ['events'] })).toEqual({ accepted: false, quotaLimited: ['events'] });
  });

  it('takes nothing else as an acceptance', () => {
    for (const [status, body] of [
      [200, { status: 0, error: 'ingestion is paused' }],
      [200, { status: 'Ok', error: 'partly' }],
      [200, { status: 2 }],
      [200, {}],
      [200, ['Ok']],
      [200, null],
      [201, { status: 'Ok' }],
      [202, null],
      [204, { status: 'Ok' }],
    ] as const) {
      const answer = readCaptureAnswer(status, body);
      expect(answer.accepted, JSON.stringify([status, body])).toBe(false);
      expect(answer).toHaveProperty('unknown');
    }
    expect(readCaptureAnswer(200, { status: 0, error: 'x' })).toEqual({ accepted: false, unknown: '200 {"status":0,"error":"x"}' });
  });
});

describe('stampToSend', () => {
  const recorded = { nonce: 'n', timestamp: '2026-11-22T10:00:00.000Z' };
  const at = (iso: string) => Date.parse(iso);

  it("keeps the journal's time and nonce, so that a request sent again carries the same events", () => {
    expect(stampToSend(recorded, at('2026-11-22T10:49:59Z'))).toBe(recorded);
  });

  it("sends the events afresh, now, when the journal's time is near an hour old, the shortest age a project may drop", () => {
    const now = at('2026-11-22T10:55:00Z');
    expect(stampToSend(recorded, now)).toEqual({ nonce: 'n:2026-11-22T10:55:00.000Z', timestamp: '2026-11-22T10:55:00.000Z' });
  });
});

describe('batchBody', () => {
  it("turns GeoIP off on every event, as posthog-node does: the operator's location is no person's", () => {
    const events: CaptureEvent[] = ['a', 'b'].map((id) => ({
      event: '$set',
      distinct_id: id,
      properties: { $set: { plan: id } },
      timestamp: '2026-11-22T10:00:00Z',
      uuid: `0190a5f2-0000-4000-8000-00000000000${id === 'a' ? 1 : 2}`,
    }));
    const sent = JSON.parse(gunzipSync(batchBody('phc_key', events)).toString('utf8'));
    expect(sent).toMatchObject({ api_key: 'phc_key', historical_migration: false });
    expect(sent.batch.map((e: CaptureEvent) => e.properties)).toEqual([
      { $set: { plan: 'a' }, $geoip_disable: true },
      { $set: { plan: 'b' }, $geoip_disable: true },
    ]);
    // The caller's events (kept in a journal or a receipt) are not changed.
    expect(events[0].properties).toEqual({ $set: { plan: 'a' } });
  });
});
