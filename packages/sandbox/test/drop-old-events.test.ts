// A project's `drop_events_older_than` (posthog/models/team/team.py): ingestion drops an event
// whose age when it arrives (capture time minus its timestamp) is above the threshold, with the
// ingestion warning `event_dropped_too_old`, after capture answered 200 (PostHog/posthog
// nodejs/src/ingestion/common/steps/event-processing/drop-old-events-step.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/server.js';
import { call, withSandbox } from './helpers.js';

/** 2026-11-22 10:00:00 UTC: the sandbox's clock, so ages are exact. */
const NOW = Date.UTC(2026, 10, 22, 10, 0, 0);
const HOUR = 3_600_000;

let sb: Sandbox;
let token: string;
beforeAll(async () => {
  sb = await withSandbox({ persons: 5, applyDelayMs: 5, eventsPerPerson: 0, now: () => NOW });
  token = sb.world.projects[0].apiToken;
});
afterAll(() => sb.close());

let n = 0;
const fresh = () => `old-${++n}-${Math.random().toString(36).slice(2, 8)}`;

async function capture(distinctId: string, timestamp: number): Promise<void> {
  const event = { event: '$set', distinct_id: distinctId, properties: { $geoip_disable: true, $set: { seen: true } } };
  const body = JSON.stringify({ api_key: token, batch: [{ ...event, timestamp: new Date(timestamp).toISOString() }] });
  const res = await call(sb, '/batch/', { method: 'POST', headers: { 'content-type': 'application/json' }, body, key: null });
  expect([res.status, res.text]).toEqual([200, '{"status":"Ok"}']);
}

const setting = (value: string) => call(sb, `/_sandbox/projects/1/drop-events-older-than/${value}`, { method: 'POST', key: null });
const ingested = () => sb.ingestion.get(1)!.stats.events + sb.ingestion.get(1)!.stats.droppedTooOld;

async function settle(count: number): Promise<void> {
  for (let i = 0; i < 400 && ingested() < count; i++) await new Promise((r) => setTimeout(r, 5));
  expect(ingested()).toBe(count);
}

describe('drop_events_older_than', () => {
  it('drops an event older than the threshold with event_dropped_too_old, and keeps younger and future ones', async () => {
    expect((await setting('7200')).json()).toEqual({ project: 1, drop_events_older_than_seconds: 7200 });
    try {
      const [old, young, future] = [fresh(), fresh(), fresh()];
      const before = ingested();
      await capture(old, NOW - 3 * HOUR);
      await capture(young, NOW - 1 * HOUR);
      await capture(future, NOW + 1 * HOUR);
      await settle(before + 3);
      expect(sb.store.getByDistinctId(old)).toBeUndefined();
      expect(sb.store.getByDistinctId(young)?.properties.seen).toBe(true);
      expect(sb.store.getByDistinctId(future)?.properties.seen).toBe(true);
      const warning = sb.ingestion.get(1)!.warnings.find((w) => w.targetDistinctId === old);
      expect(warning).toMatchObject({
        type: 'event_dropped_too_old',
        details: {
          event: '$set',
          eventTimestamp: new Date(NOW - 3 * HOUR).toISOString(),
          ageInSeconds: 10_800,
          dropThresholdSeconds: 7200,
        },
      });
      let stored = false;
      sb.events.get(1)!.forEachRow((row) => void (stored ||= sb.events.get(1)!.distinctId(row) === old));
      expect(stored).toBe(false);
    } finally {
      await setting('off');
    }
  });

  it('keeps every event when off, the default', async () => {
    expect(sb.world.projects[0].dropEventsOlderThanSeconds).toBeNull();
    const id = fresh();
    const before = ingested();
    await capture(id, NOW - 400 * 24 * HOUR);
    await settle(before + 1);
    expect(sb.store.getByDistinctId(id)?.properties.seen).toBe(true);
  });

  it('refuses a threshold under an hour (MinValueValidator), and is not on the project REST answer', async () => {
    expect((await setting('3599')).status).toBe(400);
    expect(sb.world.projects[0].dropEventsOlderThanSeconds).toBeNull();
    // No serializer of posthog/api/team.py or posthog/api/project.py has the field.
    expect((await call(sb, '/api/projects/1/')).json()).not.toHaveProperty('drop_events_older_than');
  });
});
