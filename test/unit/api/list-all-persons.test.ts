// persons list --all on a list that changes between pages: a server simulated in memory (offset
// paging, newest first, `next` built from the asked limit as PostHog does), with persons deleted
// above the current page, and created at the top, between requests.
import { afterEach, describe, expect, it } from 'vitest';
import { listAllPersons, OVERLAP, type ListPosition } from '../../../src/api/list-all-persons.js';
import { FakeApi, makeClient, ORIGIN, rejection } from '../helpers.js';
import { NotPostHogApiError } from '../../../src/errors.js';

let api: FakeApi;
afterEach(async () => {
  await api?.close();
});

interface Row {
  id: string;
  created_at: string;
}

/** n persons, newest first; some share a created_at (ties are common in imports). */
function persons(n: number, from = 0): Row[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `p${from + i}`,
    created_at: new Date(Date.UTC(2025, 0, 1) - Math.floor((from + i) / 3) * 1000).toISOString(),
  }));
}

function serve(list: Row[], between: (request: number) => void): string[] {
  const asked: string[] = [];
  api.agent
    .get(ORIGIN)
    .intercept({ path: (p) => p.startsWith('/api/projects/1/persons/'), method: 'GET' })
    .reply((opts) => {
      between(asked.length);
      asked.push(opts.path);
      const q = new URL(opts.path, ORIGIN).searchParams;
      const limit = Number(q.get('limit') ?? 100);
      const offset = Number(q.get('offset') ?? 0);
      const results = list.slice(offset, offset + limit);
      const next = results.length >= limit ? `${ORIGIN}/api/projects/1/persons/?limit=${limit}&offset=${offset + limit}` : null;
      return {
        statusCode: 200,
        data: JSON.stringify({ results, next }),
        responseOptions: { headers: { 'content-type': 'application/json' } },
      };
    })
    .persist();
  return asked;
}

async function all(pageSize: number, onShift?: (n: number) => void): Promise<string[]> {
  const { client } = makeClient(api);
  const out: string[] = [];
  for await (const page of listAllPersons(client, '1', { properties: [] }, { pageSize, onShift })) out.push(...page.map((p) => p.id));
  return out;
}

describe('listAllPersons', () => {
  it('with nothing changing, lists each person once, each page starting OVERLAP rows early', async () => {
    api = new FakeApi();
    const list = persons(250);
    const asked = serve(list, () => {});
    expect(await all(100)).toEqual(list.map((p) => p.id));
    expect(asked[1]).toContain(`offset=${100 - OVERLAP}`);
    expect(asked[1]).toContain(`limit=${100 + OVERLAP}`);
  });

  it('when more persons are deleted above the page than the overlap covers, asks again from further back and misses no survivor', async () => {
    api = new FakeApi();
    const list = persons(1000);
    const original = list.slice();
    const shifts: number[] = [];
    // Before each request after the first: the 60 newest persons are deleted.
    serve(list, (n) => {
      if (n > 0 && list.length > 0) list.splice(0, 60);
    });
    const listed = await all(100, (n) => shifts.push(n));
    expect(new Set(listed).size).toBe(listed.length);
    const survivors = original.filter((p) => list.includes(p));
    expect(survivors.filter((p) => !listed.includes(p.id))).toEqual([]);
    expect(shifts.length).toBeGreaterThan(0);
  });

  it('persons created at the top meanwhile push rows down: nothing is listed twice', async () => {
    api = new FakeApi();
    const list = persons(400, 100);
    let made = 0;
    serve(list, (n) => {
      if (n > 0) list.unshift(...persons(7, 100 - (made += 7)).map((p) => ({ ...p, created_at: '2026-01-01T00:00:00.000Z' })));
    });
    const listed = await all(50);
    expect(new Set(listed).size).toBe(listed.length);
    expect(persons(400, 100).every((p) => listed.includes(p.id))).toBe(true);
  });

  it('stopped after a page, continues from its position: each person once, across a created_at shared by the boundary', async () => {
    api = new FakeApi();
    const list = persons(400);
    const asked = serve(list, () => {});
    const { client } = makeClient(api);
    const position: ListPosition = { offset: 0 };
    const first: string[] = [];
    for await (const page of listAllPersons(client, '1', { properties: [] }, { pageSize: 100, position })) {
      first.push(...page.map((p) => p.id));
      break;
    }
    // p99 shares its created_at with p100 and p101, which come on the next page.
    expect(position).toEqual({ offset: 100, after: { createdAt: list[99].created_at, ids: ['p99'] } });
    const rest: string[] = [];
    for await (const page of listAllPersons(client, '1', { properties: [] }, { pageSize: 100, position: { ...position } })) {
      rest.push(...page.map((p) => p.id));
    }
    expect([...first, ...rest]).toEqual(list.map((p) => p.id));
    expect(asked[1]).toContain(`offset=${100 - OVERLAP}`);
  });

  it('a continuation finds its place again when persons above it were deleted meanwhile', async () => {
    api = new FakeApi();
    const list = persons(400);
    const original = list.map((p) => p.id);
    serve(list, () => {});
    const { client } = makeClient(api);
    const position: ListPosition = { offset: 200, after: { createdAt: list[199].created_at, ids: ['p198', 'p199'] } };
    list.splice(20, 80);
    const rest: string[] = [];
    for await (const page of listAllPersons(client, '1', { properties: [] }, { pageSize: 100, position }))
      rest.push(...page.map((p) => p.id));
    expect(rest).toEqual(original.slice(200));
  });

  it('sends every request through the caller, which may wait out a rate limit with its own retry policy', async () => {
    api = new FakeApi();
    serve(persons(150), () => {});
    const { client } = makeClient(api);
    let sent = 0;
    const send = <T>(request: (retry?: { maxRetryAfterMs: number }) => Promise<T>) => (sent++, request({ maxRetryAfterMs: 0 }));
    for await (const page of listAllPersons(client, '1', { properties: [] }, { pageSize: 100, send }))
      expect(page.length).toBeGreaterThan(0);
    expect(sent).toBe(2);
  });

  for (const dated of [true, false]) {
    it(`stops with an error when the next links go round in a circle, A → B → A (${dated ? 'rows with created_at' : 'plain paging'})`, async () => {
      api = new FakeApi();
      const rows = persons(4).map((p) => (dated ? p : { id: p.id }));
      let answered = 0;
      api.agent
        .get(ORIGIN)
        .intercept({ path: (p) => p.startsWith('/api/projects/1/persons/'), method: 'GET' })
        .reply((opts) => {
          // A bound on the old endless loop: past it, an answer that is no page at all.
          if (++answered > 20) return { statusCode: 200, data: '{}', responseOptions: { headers: { 'content-type': 'application/json' } } };
          const q = new URL(opts.path, ORIGIN).searchParams;
          const offset = Number(q.get('offset') ?? 0);
          const limit = Number(q.get('limit'));
          // Offset paging whose last page links back to the first.
          const next = `${ORIGIN}/api/projects/1/persons/?limit=${limit}&offset=${offset + limit >= rows.length ? 0 : offset + limit}`;
          return {
            statusCode: 200,
            data: JSON.stringify({ results: rows.slice(offset, offset + limit), next }),
            responseOptions: { headers: { 'content-type': 'application/json' } },
          };
        })
        .persist();
      const { client } = makeClient(api);
      const listed: string[] = [];
      const error = await rejection(async () => {
        for await (const page of listAllPersons(client, '1', { properties: [] }, { pageSize: 2 })) listed.push(...page.map((p) => p.id));
      });
      expect(error).toBeInstanceOf(NotPostHogApiError);
      expect(error.message).toMatch(
        /^app\.posthog\.test handed out a next link back to a page already read \(\/api\/projects\/1\/persons\/\?limit=\d+&offset=\d+\)/,
      );
      expect(listed).toEqual(['p0', 'p1', 'p2', 'p3']);
      expect(answered).toBeLessThanOrEqual(4);
    });
  }
});
