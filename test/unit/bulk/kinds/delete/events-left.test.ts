// What an erasure counts as left once PostHog's event deletion has run, against a sandbox in this
// process: the events of erased distinct ids up to the request, never those collected after it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Readable, PassThrough } from 'node:stream';
import { startSandbox, type Sandbox } from '@hogctl/sandbox';
import { Context } from '../../../../../src/context.js';
import { describeEventsLeft, eventsLeft, EVENTS_LEFT_YEARS, isHashedDistinctId } from '../../../../../src/bulk/kinds/delete/events-left.js';

const DAY = 86_400_000;
let sandbox: Sandbox;
let ctx: Context;

/** Events of `distinctId` at these times, captured as posthog-node sends them (GeoIP off). */
async function capture(distinctId: string, times: number[]): Promise<void> {
  const token = sandbox.world.projects.find((p) => p.id === 1)!.apiToken;
  const batch = times.map((t) => ({
    event: '$pageview',
    distinct_id: distinctId,
    timestamp: new Date(t).toISOString(),
    properties: { $process_person_profile: false, $geoip_disable: true },
  }));
  const res = await fetch(`${sandbox.url}/batch/`, { method: 'POST', body: JSON.stringify({ api_key: token, batch }) });
  expect(res.status).toBe(200);
  const stored = () => [...sandbox.ingestion.values()].reduce((k, x) => k + x.stats.events, 0);
  for (let i = 0; i < 500 && stored() < sandbox.capture.events; i++) await new Promise((r) => setTimeout(r, 10));
}

beforeAll(async () => {
  sandbox = await startSandbox({ quiet: true, persons: 5, applyDelayMs: 0 });
  const sink = new PassThrough();
  ctx = new Context(
    {
      io: { stdout: sink, stderr: sink, stdin: Readable.from([]) as unknown as NodeJS.ReadStream },
      env: { HOGCTL_BASE_URL: sandbox.url, HOGCTL_PROJECT_ID: '1', HOGCTL_API_KEY: sandbox.defaultKey, HOGCTL_CONFIG_DIR: '/nonexistent' },
    },
    {},
  );
});
afterAll(async () => {
  await sandbox.close();
});

describe('eventsLeft', () => {
  it('counts per distinct id the events up to the request, not those collected after it or older than the bound', async () => {
    const requestedAt = Date.now() - DAY;
    await capture('anon-left', [requestedAt - 3 * DAY, requestedAt - 2 * DAY, requestedAt + 3_600_000]);
    await capture('device-left', [requestedAt - 1_000]);
    await capture('too-old', [requestedAt - (EVENTS_LEFT_YEARS + 1) * 366 * DAY]);
    const client = await ctx.api();
    const left = await eventsLeft(
      ctx,
      client,
      '1',
      ['anon-left', 'device-left', 'too-old', 'never-seen'],
      { maxWaitMs: 0, flag: '--max-wait' },
      requestedAt,
    );
    expect(Object.fromEntries(left)).toEqual({ 'anon-left': 2, 'device-left': 1 });
  });
});

describe('describeEventsLeft', () => {
  it('says how many events carry how many of the ids, naming three at most', () => {
    const left = new Map([
      ['a', 2],
      ['b', 1],
      ['c', 1],
      ['d', 1],
    ]);
    expect(describeEventsLeft(left)).toBe('5 events still carry 4 of the erased distinct ids (a, b, c, …)');
    expect(describeEventsLeft(new Map([['anon-1', 1]]))).toBe('1 event still carries 1 of the erased distinct ids (anon-1)');
  });
});

describe('isHashedDistinctId', () => {
  it('tells an id kept by its HMAC from one kept in clear', () => {
    expect(isHashedDistinctId(`hmac:${'a'.repeat(64)}`)).toBe(true);
    expect(isHashedDistinctId(`hmac:${'a'.repeat(63)}`)).toBe(false);
    expect(isHashedDistinctId('user-1971')).toBe(false);
  });
});
