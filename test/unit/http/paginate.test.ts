import { afterEach, describe, expect, it } from 'vitest';
import { paginate } from '../../../src/http/paginate.js';
import { FakeApi, KEY, makeClient, ORIGIN } from '../helpers.js';

const PATH = '/api/projects/1/persons/';
const OTHER = 'https://mirror.posthog.test';

let api: FakeApi;
afterEach(async () => {
  await api?.close();
});

async function collect<T>(pages: AsyncIterable<T[]>): Promise<T[][]> {
  const out: T[][] = [];
  for await (const page of pages) out.push(page);
  return out;
}

const people = (...ids: string[]) => ids.map((id) => ({ id }));

describe('paginate', () => {
  it('follows next until it is null', async () => {
    api = new FakeApi()
      .on('GET', `${PATH}?limit=2`, [{ status: 200, body: { results: people('a', 'b'), next: `${ORIGIN}${PATH}?limit=2&offset=2` } }])
      .on('GET', `${PATH}?limit=2&offset=2`, [{ status: 200, body: { results: people('c'), next: null } }]);
    const { client } = makeClient(api);
    const pages = await collect(paginate<{ id: string }>(client, PATH, { limit: 2 }));
    expect(pages).toEqual([people('a', 'b'), people('c')]);
    expect(api.requests.map((r) => r.path)).toEqual([`${PATH}?limit=2`, `${PATH}?limit=2&offset=2`]);
  });

  it('stops on an empty page (a full last page still links onwards)', async () => {
    api = new FakeApi()
      .on('GET', `${PATH}?limit=2`, [{ status: 200, body: { results: people('a', 'b'), next: `${ORIGIN}${PATH}?limit=2&offset=2` } }])
      .on('GET', `${PATH}?limit=2&offset=2`, [{ status: 200, body: { results: [], next: `${ORIGIN}${PATH}?limit=2&offset=4` } }])
      .on('GET', `${PATH}?limit=2&offset=4`, [{ status: 200, body: { results: people('zombie'), next: null } }]);
    const { client } = makeClient(api);
    const pages = await collect(paginate<{ id: string }>(client, PATH, { limit: 2 }));
    expect(pages).toEqual([people('a', 'b')]);
    expect(api.requests).toHaveLength(2);
    expect(api.pending()).toBe(1);
  });

  it('refuses a JSON answer without results: it is not a page, and not an empty one', async () => {
    api = new FakeApi().on('GET', PATH, [{ status: 200, body: { next: `${ORIGIN}${PATH}?offset=100` } }]);
    const { client } = makeClient(api);
    await expect(collect(paginate(client, PATH, {}))).rejects.toThrow(
      /JSON that is not a page of results: this does not look like a PostHog API/,
    );
    expect(api.requests).toHaveLength(1);
  });

  it('honours limit across pages, cutting the last page and asking for no more', async () => {
    api = new FakeApi()
      .on('GET', PATH, [{ status: 200, body: { results: people('a', 'b', 'c'), next: `${ORIGIN}${PATH}?offset=3` } }])
      .on('GET', `${PATH}?offset=3`, [{ status: 200, body: { results: people('d', 'e', 'f'), next: `${ORIGIN}${PATH}?offset=6` } }])
      .on('GET', `${PATH}?offset=6`, [{ status: 200, body: { results: people('g'), next: null } }]);
    const { client } = makeClient(api);
    const pages = await collect(paginate<{ id: string }>(client, PATH, {}, { limit: 5 }));
    expect(pages).toEqual([people('a', 'b', 'c'), people('d', 'e')]);
    expect(api.requests).toHaveLength(2);
    expect(api.pending()).toBe(1);
  });

  it('makes no request at all for limit 0', async () => {
    api = new FakeApi().on('GET', PATH, [{ status: 200, body: { results: people('a'), next: null } }]);
    const { client } = makeClient(api);
    expect(await collect(paginate(client, PATH, {}, { limit: 0 }))).toEqual([]);
    expect(api.requests).toHaveLength(0);
  });

  it('stops if a page links to itself', async () => {
    api = new FakeApi().on('GET', `${PATH}?offset=0`, [
      { status: 200, body: { results: people('a'), next: `${ORIGIN}${PATH}?offset=0` } },
      { status: 200, body: { results: people('a'), next: `${ORIGIN}${PATH}?offset=0` } },
    ]);
    const { client } = makeClient(api);
    const pages = await collect(paginate<{ id: string }>(client, PATH, { offset: 0 }));
    expect(pages).toEqual([people('a')]);
    expect(api.requests).toHaveLength(1);
  });

  it('never sends the key to another origin named by next', async () => {
    api = new FakeApi()
      .on('GET', PATH, [{ status: 200, body: { results: people('a'), next: `${OTHER}${PATH}?offset=1` } }])
      .on('GET', `${PATH}?offset=1`, [{ status: 200, body: { results: people('b'), next: null } }], OTHER);
    const { client, logs } = makeClient(api);
    const pages = await collect(paginate<{ id: string }>(client, PATH, {}));
    expect(pages).toEqual([people('a'), people('b')]);
    const [first, second] = api.requests;
    expect(first.origin).toBe(ORIGIN);
    expect(first.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(second.origin).toBe(OTHER);
    expect(second.headers.authorization).toBeUndefined();
    expect(second.headers.cookie).toBeUndefined();
    expect(Object.values(second.headers).join(' ')).not.toContain(KEY);
    expect(logs.some((l) => l.includes('other origin'))).toBe(true);
  });

  it('hands only same-origin answers to the credentials (session cookies stay home)', async () => {
    api = new FakeApi()
      .on('GET', PATH, [{ status: 200, body: { results: people('a'), next: `${OTHER}${PATH}?offset=1` } }])
      .on('GET', `${PATH}?offset=1`, [{ status: 200, body: { results: people('b'), next: null } }], OTHER);
    const seenBy: string[] = [];
    const { client } = makeClient(api, {
      credentials: {
        headers: () => ({ cookie: 'sessionid=s3cret', 'x-csrftoken': 'tok' }),
        onResponse: (url) => {
          seenBy.push(url.origin);
        },
        secrets: () => ['s3cret', 'tok'],
      },
    });
    await collect(paginate(client, PATH, {}));
    expect(api.requests[0].headers.cookie).toBe('sessionid=s3cret');
    expect(api.requests[1].headers.cookie).toBeUndefined();
    expect(api.requests[1].headers['x-csrftoken']).toBeUndefined();
    expect(seenBy).toEqual([ORIGIN]);
  });

  it('follows a link with another scheme on the same host (a TLS proxy) on the configured origin, with its credentials', async () => {
    const insecure = ORIGIN.replace('https:', 'http:');
    api = new FakeApi()
      .on('GET', PATH, [{ status: 200, body: { results: people('a'), next: `${insecure}${PATH}?offset=1` } }])
      .on('GET', `${PATH}?offset=1`, [{ status: 200, body: { results: people('b'), next: null } }]);
    const { client } = makeClient(api);
    await collect(paginate(client, PATH, {}));
    expect(api.requests[1].origin).toBe(ORIGIN);
    expect(api.requests[1].headers.authorization).toBeDefined();
  });
});
