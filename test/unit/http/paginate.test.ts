import { afterEach, describe, expect, it } from 'vitest';
import { paginate } from '../../../src/http/paginate.js';
import { FakeApi, KEY, makeClient, ORIGIN, rejection } from '../helpers.js';
import { NotPostHogApiError } from '../../../src/errors.js';

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

  it('stops with an error naming the host and the link if a page links to itself', async () => {
    api = new FakeApi().on('GET', `${PATH}?offset=0`, [{ status: 200, body: { results: people('a'), next: `${ORIGIN}${PATH}?offset=0` } }]);
    const { client } = makeClient(api);
    const pages: { id: string }[][] = [];
    const error = await rejection(async () => {
      for await (const page of paginate<{ id: string }>(client, PATH, { offset: 0 })) pages.push(page);
    });
    expect(error).toBeInstanceOf(NotPostHogApiError);
    expect(error.message).toContain(`${new URL(ORIGIN).host} handed out a next link back to a page already read (${PATH}?offset=0)`);
    expect(pages).toEqual([people('a')]);
    expect(api.requests).toHaveLength(1);
  });

  it('stops with an error (exit 7) when the links go round in a circle of two pages, A → B → A', async () => {
    api = new FakeApi()
      .on('GET', `${PATH}?limit=1`, [{ status: 200, body: { results: people('a'), next: `${ORIGIN}${PATH}?limit=1&offset=1` } }])
      .on('GET', `${PATH}?limit=1&offset=1`, [{ status: 200, body: { results: people('b'), next: `${ORIGIN}${PATH}?limit=1` } }]);
    const { client } = makeClient(api);
    const pages: { id: string }[][] = [];
    const error = await rejection(async () => {
      for await (const page of paginate<{ id: string }>(client, PATH, { limit: 1 })) pages.push(page);
    });
    expect(error).toBeInstanceOf(NotPostHogApiError);
    expect((error as NotPostHogApiError).exitCode).toBe(7);
    expect(error.message).toMatch(
      /handed out a next link back to a page already read \(\/api\/projects\/1\/persons\/\?limit=1\): its pages go round in a circle/,
    );
    expect(pages).toEqual([people('a'), people('b')]);
    expect(api.requests).toHaveLength(2);
  });

  it('refuses a next link to another host after printing the page it came with: nothing is sent there, and the error names that host', async () => {
    api = new FakeApi()
      .on('GET', PATH, [{ status: 200, body: { results: people('a'), next: `${OTHER}${PATH}?offset=1` } }])
      .on('GET', `${PATH}?offset=1`, [{ status: 200, body: { results: people('b'), next: null } }], OTHER);
    const { client } = makeClient(api);
    const pages: { id: string }[][] = [];
    const error = await rejection(async () => {
      for await (const page of paginate<{ id: string }>(client, PATH, {})) pages.push(page);
    });
    expect(pages).toEqual([people('a')]);
    expect(api.requests.map((r) => r.origin)).toEqual([ORIGIN]);
    expect(error).toBeInstanceOf(NotPostHogApiError);
    expect(error.exitCode).toBe(7);
    expect(error.message).toBe(
      "the server's next page is at mirror.posthog.test, not app.posthog.test: the server handed out links to another host, so paging stops without sending anything there",
    );
    expect(error.hint).toMatch(/^check the server's SITE_URL and proxy settings/);
  });

  it('a next link whose path starts with // on the same host stays on the base URL, not the host that path names', async () => {
    // Rewritten to the base URL's origin (a proxy's scheme), the path "//mirror.posthog.test/…" is
    // kept as a path: read as a URL it would be a link to another host, queries and all.
    const { client } = makeClient(new FakeApi());
    const link = client.link(`http://app.posthog.test//mirror.posthog.test${PATH}?search=lee%40example.net`);
    expect(new URL(link).host).toBe('app.posthog.test');
    expect(link).toBe(`${ORIGIN}//mirror.posthog.test${PATH}?search=lee%40example.net`);
  });

  it('an absolute URL on another origin gets no credentials, and its answer is not shown to them', async () => {
    api = new FakeApi().on('GET', PATH, [{ status: 200, body: { results: people('b'), next: null } }], OTHER);
    const seenBy: string[] = [];
    const { client, logs } = makeClient(api, {
      credentials: {
        headers: () => ({ authorization: `Bearer ${KEY}`, cookie: 'sessionid=s3cret', 'x-csrftoken': 'tok' }),
        onResponse: (url) => {
          seenBy.push(url.origin);
        },
        secrets: () => [KEY, 's3cret', 'tok'],
      },
    });
    await client.get(`${OTHER}${PATH}`);
    const [request] = api.requests;
    expect(request.origin).toBe(OTHER);
    expect(request.headers.authorization).toBeUndefined();
    expect(request.headers.cookie).toBeUndefined();
    expect(request.headers['x-csrftoken']).toBeUndefined();
    expect(Object.values(request.headers).join(' ')).not.toContain(KEY);
    expect(seenBy).toEqual([]);
    expect(logs.some((l) => l.includes('other origin'))).toBe(true);
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
