// The keyset reader of a set of distinct ids' events (docs/server-contract.md §15.1), run against a
// sandbox over HTTP: every event once, in (timestamp, uuid) order, ties on timestamp included,
// within the fixed upper bound, resumable from any page's cursor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '@hogctl/sandbox';
import { request } from 'undici';
import { eventLine, eventsPageQuery, walkEvents, type EventRecord, type EventsWalk } from '../../../src/hogql/events.js';
import type { HogQLResponse } from '../../../src/api/query.js';

let sandbox: Sandbox;
let queries = 0;
async function run(query: string, values: Record<string, unknown>): Promise<HogQLResponse> {
  queries++;
  const res = await request(`${sandbox.url}/api/projects/${sandbox.projectId}/query/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbox.defaultKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: { kind: 'HogQLQuery', query, values } }),
  });
  const body = (await res.body.json()) as HogQLResponse;
  expect(res.statusCode, JSON.stringify(body)).toBe(200);
  return body;
}

const SAME_TIME = '2025-03-01T10:00:00.000000Z';
let ids: string[];
beforeAll(async () => {
  sandbox = await startSandbox({ persons: 40, eventsPerPerson: 30, applyDelayMs: 1, quiet: true });
  ids = [...sandbox.store].slice(0, 6).flatMap((p) => p.distinctIds);
  // Five events at one instant: only the uuid orders them.
  const batch = Array.from({ length: 5 }, (_, i) => ({ event: `tie-${i}`, distinct_id: ids[0], timestamp: SAME_TIME, properties: {} }));
  await request(`${sandbox.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: sandbox.world.projects[0].apiToken, batch }),
  });
  for (let i = 0; i < 400 && sandbox.ingestion.get(1)!.stats.events < 5; i++) await new Promise((r) => setTimeout(r, 5));
});
afterAll(() => sandbox.close());

const until = new Date(Date.now() + 60_000).toISOString();

async function all(walk: EventsWalk, pageSize: number, range = { distinctIds: ids, until }): Promise<EventRecord[]> {
  const out: EventRecord[] = [];
  for await (const page of walkEvents(range, walk, run, pageSize)) out.push(...page);
  return out;
}

/** What the events table holds for the ids, straight from the sandbox's store. */
function expected(bound = until): string[] {
  const events = sandbox.events.get(1)!;
  const rows: { ts: number; uuid: string }[] = [];
  const wanted = new Set(ids);
  events.forEachRow((row) => {
    if (wanted.has(events.distinctId(row)) && events.timestamp(row) <= Date.parse(bound) * 1000)
      rows.push({ ts: events.timestamp(row), uuid: events.uuid(row) });
  });
  rows.sort((a, b) => a.ts - b.ts || (a.uuid < b.uuid ? -1 : 1));
  return rows.map((r) => r.uuid);
}

describe('walkEvents', () => {
  it('reads every event of the distinct ids once, in (timestamp, uuid) order, ties included', async () => {
    const walk: EventsWalk = { queries: 0, events: 0 };
    const events = await all(walk, 7);
    expect(events.map((e) => e.uuid)).toEqual(expected());
    expect(events.filter((e) => e.timestamp === SAME_TIME)).toHaveLength(5);
    expect(walk.events).toBe(events.length);
    expect(walk.queries).toBe(Math.floor(events.length / 7) + 1);
    expect(events.every((e) => ids.includes(e.distinct_id) && typeof JSON.parse(eventLine(e)).properties === 'object')).toBe(true);
  });

  it('continues from any cursor with exactly the rest', async () => {
    const whole = (await all({ queries: 0, events: 0 }, 50_000)).map((e) => e.uuid);
    const first: EventsWalk = { queries: 0, events: 0 };
    const it = walkEvents({ distinctIds: ids, until }, first, run, 11);
    await it.next();
    await it.next();
    await it.next(); // the cursor moves past the second page when the third is asked for
    await it.return(undefined);
    const rest = await all({ queries: 0, events: 0, after: first.after }, 11);
    expect([...whole.slice(0, 22), ...rest.map((e) => e.uuid)]).toEqual(whole);
  });

  it('keeps to the upper bound fixed at the start', async () => {
    const bound = '2025-03-01T10:00:00Z';
    const events = await all({ queries: 0, events: 0 }, 50_000, { distinctIds: ids, until: bound });
    expect(events.map((e) => e.uuid)).toEqual(expected(bound));
  });

  it('one query when everything fits a page of 50,000', async () => {
    const before = queries;
    await all({ queries: 0, events: 0 }, 50_000);
    expect(queries - before).toBe(1);
  });

  it('goes on past a page of exactly 10,000 (an older server caps there), and ends on a shorter one', async () => {
    const pages = [10_000, 10_000, 3];
    let k = 0;
    const fake = async (): Promise<HogQLResponse> => {
      const n = pages[k++] ?? 0;
      return {
        columns: [],
        results: Array.from({ length: n }, (_, i) => [
          `00000000-0000-0000-0000-${String(k * 100_000 + i).padStart(12, '0')}`,
          'e',
          'd',
          `2025-01-01T00:00:00.${String(i).padStart(6, '0')}Z`,
          '{}',
          null,
          '',
        ]),
      };
    };
    const walk: EventsWalk = { queries: 0, events: 0 };
    for await (const _ of walkEvents({ distinctIds: ['d'], until }, walk, fake)) void _;
    expect(walk).toMatchObject({ queries: 3, events: 20_003 });
  });

  it('goes on past a short page that says hasMore: true (a server that cut it), from its last event', async () => {
    const cut = async (query: string, values: Record<string, unknown>): Promise<HogQLResponse> => {
      const res = await run(query, values);
      return { ...res, results: res.results.slice(0, 5), hasMore: res.results.length > 5 };
    };
    const walk: EventsWalk = { queries: 0, events: 0 };
    const events: EventRecord[] = [];
    for await (const page of walkEvents({ distinctIds: ids, until }, walk, cut)) events.push(...page);
    expect(events.map((e) => e.uuid)).toEqual(expected());
    expect(walk.queries).toBe(Math.ceil(events.length / 5));
  });
});

describe('eventLine', () => {
  it('writes the properties as the object their text is, and text that is not one as a string', () => {
    const e = { uuid: 'u', event: 'e', distinct_id: 'd', timestamp: 't', $session_id: null, elements_chain: '' };
    expect(JSON.parse(eventLine({ ...e, properties: '{"a":{"b":[1]}}' })).properties).toEqual({ a: { b: [1] } });
    expect(JSON.parse(eventLine({ ...e, properties: '{"a":' })).properties).toBe('{"a":');
    expect(JSON.parse(eventLine({ ...e, properties: '[1]' })).properties).toBe('[1]');
  });
});

describe('eventsPageQuery', () => {
  it('passes ids, bounds and the cursor as values, never in the text', () => {
    const page = eventsPageQuery({ distinctIds: ["o'brien"], until, from: '2024-01-01T00:00:00Z' }, 50_000, {
      timestamp: '2025-01-01T00:00:00.000001Z',
      uuid: 'x',
    });
    expect(page.query).not.toContain("o'brien");
    expect(page.query).toContain('LIMIT 50000');
    expect(page.values).toMatchObject({ hogctl_ids: ["o'brien"], hogctl_after_uuid: 'x', hogctl_from: '2024-01-01T00:00:00Z' });
  });
});
