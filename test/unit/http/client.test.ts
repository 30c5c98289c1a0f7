import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../src/http/client.js';
import { isLoopback } from '../../../src/http/loopback.js';
import { ApiError, ExitCode, RateLimitedError, UnavailableError, UsageError } from '../../../src/errors.js';
import { bearer, FakeApi, KEY, makeClient, ORIGIN, rejection, thrown } from '../helpers.js';

const PATH = '/api/projects/1/persons/';
const THROTTLED = {
  type: 'throttled_error',
  code: 'throttled',
  detail: 'Request was throttled. Expected available in 7 seconds.',
  attr: null,
};
const OK = { results: [{ id: 'p1' }], next: null };

let api: FakeApi;
afterEach(async () => {
  await api?.close();
});

describe('429 handling', () => {
  it('waits exactly Retry-After, once, then returns the success', async () => {
    api = new FakeApi().on('GET', PATH, [
      { status: 429, body: THROTTLED, headers: { 'retry-after': '7' } },
      { status: 200, body: OK },
    ]);
    const { client, sleeps } = makeClient(api);
    const res = await client.get(PATH);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(OK);
    expect(sleeps).toEqual([7000]);
    expect(api.requests).toHaveLength(2);
  });

  it('gives up after maxRetries with RateLimitedError (exit 6), waiting Retry-After each time', async () => {
    const replies = Array.from({ length: 4 }, () => ({ status: 429, body: THROTTLED, headers: { 'retry-after': '7' } }));
    api = new FakeApi().on('GET', PATH, replies);
    const { client, sleeps } = makeClient(api, { retry: { maxRetries: 3 } });
    const err = await rejection(() => client.get(PATH));
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.exitCode).toBe(ExitCode.rateLimited);
    expect(err.exitCode).toBe(6);
    expect(err.message).toContain('429');
    expect(err.message).toContain('after 4 attempts');
    expect(err.hint).toBeTruthy();
    expect(sleeps).toEqual([7000, 7000, 7000]);
    expect(api.requests).toHaveLength(4);
  });

  it('retries a POST on 429 too (the server refused before doing anything)', async () => {
    api = new FakeApi().on('POST', PATH, [
      { status: 429, body: THROTTLED, headers: { 'retry-after': '2' } },
      { status: 201, body: { id: 'new' } },
    ]);
    const { client, sleeps } = makeClient(api);
    const res = await client.post(PATH, { a: 1 });
    expect(res.status).toBe(201);
    expect(sleeps).toEqual([2000]);
  });

  it('backs off exponentially with jitter when Retry-After is absent', async () => {
    const replies = Array.from({ length: 5 }, () => ({ status: 429, body: THROTTLED }));
    api = new FakeApi().on('GET', PATH, [...replies, { status: 200, body: OK }]);
    const randoms = [0.9, 0.1, 0.6, 0.3, 1];
    let i = 0;
    const { client, sleeps } = makeClient(api, {
      random: () => randoms[i++ % randoms.length],
      retry: { maxRetries: 5, baseDelayMs: 500, maxDelayMs: 60_000 },
    });
    const res = await client.get(PATH);
    expect(res.status).toBe(200);
    expect(sleeps).toHaveLength(5);
    const steps = [500, 1000, 2000, 4000, 8000];
    sleeps.forEach((delay, n) => {
      expect(delay).toBeGreaterThanOrEqual(steps[n] / 2);
      expect(delay).toBeLessThanOrEqual(steps[n]);
    });
    for (let n = 1; n < sleeps.length; n++) expect(sleeps[n]).toBeGreaterThan(sleeps[n - 1]);
    expect(sleeps).toEqual([475, 550, 1600, 2600, 8000]);
  });

  it('does not wait a Retry-After longer than maxRetryAfterMs, and says how long the server asked', async () => {
    api = new FakeApi().on('GET', PATH, [
      { status: 429, body: THROTTLED, headers: { 'retry-after': '600' } },
      { status: 200, body: OK },
    ]);
    const { client, sleeps } = makeClient(api, { retry: { maxRetryAfterMs: 60_000 } });
    const err = await rejection(() => client.get(PATH));
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.message).toContain('600s');
    expect(sleeps).toEqual([]);
    expect(api.requests).toHaveLength(1);
  });
});

describe('5xx and network failures', () => {
  const DB_DOWN = {
    type: 'server_error',
    code: 'database_unavailable',
    detail: "We couldn't reach the database just now. Please try again in a moment.",
    attr: null,
  };
  const BAD_GATEWAY = { type: 'server_error', code: 'error', detail: 'upstream exploded', attr: null };

  it('retries a POST on 503 with Retry-After: 1', async () => {
    api = new FakeApi().on('POST', PATH, [
      { status: 503, body: DB_DOWN, headers: { 'retry-after': '1' } },
      { status: 200, body: { ok: true } },
    ]);
    const { client, sleeps } = makeClient(api);
    const res = await client.post(PATH, { ids: ['a'] });
    expect(res.body).toEqual({ ok: true });
    expect(sleeps).toEqual([1000]);
    expect(api.requests).toHaveLength(2);
  });

  it('does not retry a POST on 502: one request, ApiError exit 7 with the server message', async () => {
    api = new FakeApi().on('POST', PATH, [
      { status: 502, body: BAD_GATEWAY },
      { status: 200, body: { ok: true } },
    ]);
    const { client, sleeps } = makeClient(api);
    const err = await rejection(() => client.post(PATH, { ids: ['a'] }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.exitCode).toBe(7);
    expect(err.status).toBe(502);
    expect(err.message).toContain('upstream exploded');
    expect(err.message).toContain(`POST ${PATH}`);
    expect(api.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(api.pending()).toBe(1);
  });

  it('retries a GET on 502', async () => {
    api = new FakeApi().on('GET', PATH, [
      { status: 502, body: BAD_GATEWAY },
      { status: 200, body: OK },
    ]);
    const { client, sleeps } = makeClient(api);
    const res = await client.get(PATH);
    expect(res.body).toEqual(OK);
    expect(sleeps).toHaveLength(1);
    expect(api.requests).toHaveLength(2);
  });

  it('reports the attempts when 502 persists for a GET', async () => {
    api = new FakeApi().on('GET', PATH, [
      { status: 502, body: BAD_GATEWAY },
      { status: 502, body: BAD_GATEWAY },
    ]);
    const { client, sleeps } = makeClient(api, { retry: { maxRetries: 1 } });
    const err = await rejection(() => client.get(PATH));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.exitCode).toBe(7);
    expect(err.message).toContain('after 2 attempts');
    expect(sleeps).toHaveLength(1);
  });

  it('retries a GET after a network error', async () => {
    api = new FakeApi();
    api.agent.get(ORIGIN).intercept({ path: PATH, method: 'GET' }).replyWithError(new Error('socket hang up'));
    api.on('GET', PATH, [{ status: 200, body: OK }]);
    const { client, sleeps } = makeClient(api);
    const res = await client.get(PATH);
    expect(res.body).toEqual(OK);
    expect(sleeps).toHaveLength(1);
    expect(api.pending()).toBe(0);
  });

  it('does not retry a POST after a network error: UnavailableError exit 7', async () => {
    api = new FakeApi();
    api.agent.get(ORIGIN).intercept({ path: PATH, method: 'POST' }).replyWithError(new Error('socket hang up'));
    api.on('POST', PATH, [{ status: 200, body: { ok: true } }]);
    const { client, sleeps } = makeClient(api);
    const err = await rejection(() => client.post(PATH, { ids: ['a'] }));
    expect(err).toBeInstanceOf(UnavailableError);
    expect(err.exitCode).toBe(7);
    expect(err.message).toContain('socket hang up');
    expect(err.hint).toContain(ORIGIN);
    expect(sleeps).toEqual([]);
    // The success stays unused: no second attempt was made.
    expect(api.pending()).toBe(1);
  });

  it('retries a POST after a network error when the caller marks it idempotent', async () => {
    api = new FakeApi();
    api.agent.get(ORIGIN).intercept({ path: PATH, method: 'POST' }).replyWithError(new Error('socket hang up'));
    api.on('POST', PATH, [{ status: 200, body: { ok: true } }]);
    const { client, sleeps } = makeClient(api);
    const res = await client.post(PATH, { q: 1 }, { idempotent: true });
    expect(res.body).toEqual({ ok: true });
    expect(sleeps).toHaveLength(1);
  });

  it('treats a 2xx whose JSON is cut off as a network failure, retried for GET', async () => {
    api = new FakeApi();
    api.agent
      .get(ORIGIN)
      .intercept({ path: PATH, method: 'GET' })
      .reply(200, '{"results": [{"id": "p', { headers: { 'content-type': 'application/json' } });
    api.on('GET', PATH, [{ status: 200, body: OK }]);
    const { client, sleeps, logs } = makeClient(api);
    const res = await client.get(PATH);
    expect(res.body).toEqual(OK);
    expect(sleeps).toHaveLength(1);
    expect(logs.some((l) => l.includes('cut off'))).toBe(true);
  });
});

describe('error bodies become messages (through the client)', () => {
  async function failWith(status: number, body: unknown, method = 'GET', headers?: Record<string, string>) {
    api = new FakeApi().on(method, PATH, [{ status, body, headers }]);
    const { client } = makeClient(api, { retry: { maxRetries: 0 } });
    return rejection(() => client.request({ method, path: PATH, body: method === 'GET' ? undefined : {} }));
  }

  it('keeps detail, code and attr of the standard shape (400 → exit 5)', async () => {
    const err = await failWith(
      400,
      { type: 'validation_error', code: 'blank', detail: 'This field may not be blank.', attr: 'email' },
      'POST',
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(err.exitCode).toBe(5);
    expect(err.message).toContain('This field may not be blank.');
    expect(err.message).toContain('blank');
    expect(err.message).toContain('email');
    expect(err.server).toEqual({ type: 'validation_error', code: 'blank', detail: 'This field may not be blank.', attr: 'email' });
  });

  it('unswaps the persons-update body whose code and detail are exchanged', async () => {
    const err = await failWith(
      400,
      { type: 'validation_error', code: 'This field is required.', detail: 'required', attr: 'properties' },
      'PATCH',
    );
    expect(err.exitCode).toBe(5);
    expect(err.server.code).toBe('required');
    expect(err.server.detail).toBe('This field is required.');
    expect(err.message).toBe(`PATCH ${PATH} failed with 400 required: This field is required. (field "properties")`);
  });

  it('keeps {message, detail}', async () => {
    const err = await failWith(400, { message: 'Cohort is not ready', detail: 'still calculating' });
    expect(err.message).toContain('Cohort is not ready');
    expect(err.message).toContain('still calculating');
  });

  it('keeps {error}', async () => {
    const err = await failWith(404, { error: 'could not find person at that time' });
    expect(err.exitCode).toBe(3);
    expect(err.message).toContain('could not find person at that time');
  });

  it('shows the <title> of an HTML 502 page, not its markup', async () => {
    const html =
      '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr><center>nginx</center></body></html>';
    const err = await failWith(502, html, 'POST');
    expect(err.exitCode).toBe(7);
    expect(err.message).toContain('502 Bad Gateway');
    expect(err.message).not.toContain('<');
    expect(err.message).not.toContain('nginx');
  });

  it('401 not_authenticated → exit 4 with a hint', async () => {
    const err = await failWith(401, {
      type: 'authentication_error',
      code: 'not_authenticated',
      detail: 'Authentication credentials were not provided.',
      attr: null,
    });
    expect(err.exitCode).toBe(4);
    expect(err.hint).toMatch(/hogctl profile add|HOGCTL_API_KEY/);
  });

  it('401 authentication_failed → exit 4 with a hint', async () => {
    const err = await failWith(401, {
      type: 'authentication_error',
      code: 'authentication_failed',
      detail: 'Personal API key found in request Authorization header is invalid.',
      attr: null,
    });
    expect(err.exitCode).toBe(4);
    expect(err.hint).toMatch(/API key/);
  });

  it('403 "does not support Personal API Key access" → exit 4, hint says hogctl auth login', async () => {
    const err = await failWith(403, {
      type: 'authentication_error',
      code: 'permission_denied',
      detail: 'This action does not support Personal API Key access',
      attr: null,
    });
    expect(err.exitCode).toBe(4);
    expect(err.hint).toContain('hogctl auth login');
  });

  it('matches the personal-API-key refusal case-insensitively', async () => {
    const err = await failWith(403, {
      type: 'authentication_error',
      code: 'permission_denied',
      detail: 'this action does not support personal api key access',
      attr: null,
    });
    expect(err.exitCode).toBe(4);
    expect(err.hint).toContain('hogctl auth login');
  });

  it('404 → exit 3, 400 → exit 5', async () => {
    expect((await failWith(404, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null })).exitCode).toBe(3);
    await api.close();
    expect((await failWith(400, { type: 'validation_error', code: 'invalid_input', detail: 'bad', attr: null }, 'POST')).exitCode).toBe(5);
  });

  it('returns a non-2xx answer instead of throwing when acceptStatus says so', async () => {
    api = new FakeApi().on('GET', PATH, [{ status: 404, body: { detail: 'Not found.' } }]);
    const { client } = makeClient(api);
    const res = await client.get(PATH, undefined, { acceptStatus: (s) => s === 404 });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not found.' });
  });
});

describe('request headers', () => {
  it('sends User-Agent hogctl/..., Accept json and the bearer key', async () => {
    api = new FakeApi().on('GET', PATH, [{ status: 200, body: OK }]);
    const { client } = makeClient(api);
    await client.get(PATH);
    const [seen] = api.requests;
    expect(seen.headers['user-agent']).toMatch(/^hogctl\//);
    expect(seen.headers['user-agent']).toBe('hogctl/9.8.7 node/20');
    expect(seen.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen.headers.accept).toContain('application/json');
    expect(seen.headers['content-type']).toBeUndefined();
  });

  it('sends a JSON body with Content-Type application/json', async () => {
    api = new FakeApi().on('POST', PATH, [{ status: 200, body: { ok: true } }]);
    const { client } = makeClient(api);
    await client.post(PATH, { ids: ['a', 'b'], keep_person: false });
    const [seen] = api.requests;
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.body).toEqual({ ids: ['a', 'b'], keep_person: false });
    expect(seen.headers['user-agent']).toMatch(/^hogctl\//);
  });

  it('sends no authorization when the client has no credentials', async () => {
    api = new FakeApi().on('GET', PATH, [{ status: 200, body: OK }]);
    const { client } = makeClient(api, { credentials: undefined });
    await client.get(PATH);
    expect(api.requests[0].headers.authorization).toBeUndefined();
  });
});

describe('response bodies', () => {
  it('is null for an empty 204 or 202', async () => {
    api = new FakeApi().on('DELETE', `${PATH}abc/`, [{ status: 204 }]).on('POST', `${PATH}bulk_delete/`, [{ status: 202 }]);
    const { client } = makeClient(api);
    const deleted = await client.request({ method: 'DELETE', path: `${PATH}abc/` });
    expect(deleted).toMatchObject({ status: 204, body: null });
    const queued = await client.post(`${PATH}bulk_delete/`, { ids: ['abc'] });
    expect(queued).toMatchObject({ status: 202, body: null });
  });

  it('keeps a CSV export as text when asked', async () => {
    api = new FakeApi();
    api.agent
      .get(ORIGIN)
      .intercept({ path: `${PATH}?format=csv`, method: 'GET' })
      .reply(200, 'id,email\n1,a@x\n', { headers: { 'content-type': 'text/csv' } });
    const { client } = makeClient(api);
    const res = await client.get(PATH, { format: 'csv' }, { text: true });
    expect(res.body).toBe('id,email\n1,a@x\n');
  });
});

describe('url()', () => {
  it('resolves paths under a base with a path prefix and encodes the query', () => {
    const client = new ApiClient({
      baseUrl: 'https://host.test/posthog',
      userAgent: 'hogctl/1',
      timeoutMs: 1000,
      dispatcher: new FakeApi().agent,
    });
    const url = client.url('/api/projects/1/persons/', {
      search: 'a b',
      distinct_id: ['x', 'y'],
      flag: true,
      off: false,
      none: null,
      gone: undefined,
      limit: 10,
    });
    expect(url.origin).toBe('https://host.test');
    expect(url.pathname).toBe('/posthog/api/projects/1/persons/');
    expect(url.searchParams.get('search')).toBe('a b');
    expect(url.searchParams.getAll('distinct_id')).toEqual(['x', 'y']);
    expect(url.searchParams.get('flag')).toBe('true');
    expect(url.searchParams.get('limit')).toBe('10');
    expect(url.searchParams.has('off')).toBe(false);
    expect(url.searchParams.has('none')).toBe(false);
    expect(url.searchParams.has('gone')).toBe(false);
  });

  it('keeps an absolute URL (a next link) as it is', () => {
    const client = new ApiClient({ baseUrl: ORIGIN, userAgent: 'hogctl/1', timeoutMs: 1000, dispatcher: new FakeApi().agent });
    expect(client.url('https://other.test/api/x/?cursor=abc').href).toBe('https://other.test/api/x/?cursor=abc');
  });
});

describe('debug log', () => {
  it('has method, URL, status and timing, and never the key', async () => {
    api = new FakeApi().on('GET', `${PATH}?search=x`, [
      { status: 429, body: THROTTLED, headers: { 'retry-after': '1' } },
      { status: 200, body: OK },
    ]);
    const { client, logs } = makeClient(api);
    await client.get(PATH, { search: 'x' });
    expect(logs.length).toBeGreaterThanOrEqual(3);
    expect(logs[0]).toBe(`GET ${ORIGIN}${PATH}?search=x → 429 (25ms)`);
    expect(logs).toContain('waiting 1.0s before retrying');
    expect(logs.at(-1)).toBe(`GET ${ORIGIN}${PATH}?search=x → 200 (25ms)`);
    for (const line of logs) expect(line).not.toContain(KEY);
  });

  it('redacts the key when it appears in a URL query, as personal_api_key= or elsewhere', async () => {
    const otherKey = 'phx_someotherkeyzzzz9999';
    api = new FakeApi();
    api.agent
      .get(ORIGIN)
      .intercept({ path: (p) => p.startsWith(PATH), method: 'GET' })
      .reply(200, OK, { headers: { 'content-type': 'application/json' } });
    api.agent
      .get(ORIGIN)
      .intercept({ path: (p) => p.startsWith(PATH), method: 'GET' })
      .replyWithError(new Error(`boom ${KEY}`));
    const { client, logs } = makeClient(api, { retry: { maxRetries: 0 } });
    await client.get(PATH, { personal_api_key: otherKey, token: KEY });
    await rejection(() => client.get(PATH, { personal_api_key: KEY }));
    expect(logs.length).toBe(2);
    expect(logs[0]).toContain('GET');
    expect(logs[0]).toContain(`${ORIGIN}${PATH}`);
    expect(logs[0]).toContain('200');
    expect(logs[0]).toContain('personal_api_key=[redacted]');
    expect(logs[1]).toContain('✗');
    for (const line of logs) {
      expect(line).not.toContain(KEY);
      expect(line).not.toContain(otherKey);
    }
  });

  it('redact() removes every secret the credentials know of', () => {
    const client = new ApiClient({
      baseUrl: ORIGIN,
      credentials: bearer(),
      userAgent: 'hogctl/1',
      timeoutMs: 1000,
      dispatcher: new FakeApi().agent,
    });
    expect(client.redact(`a ${KEY} b ${KEY}`)).toBe('a [redacted] b [redacted]');
    expect(client.redact('x?personal_api_key=abc&y=1')).toBe('x?personal_api_key=[redacted]&y=1');
  });
});

describe('plain http with credentials', () => {
  const make = (baseUrl: string, extra: { allowInsecureHttp?: boolean; withKey?: boolean } = {}) =>
    new ApiClient({
      baseUrl,
      credentials: extra.withKey === false ? undefined : bearer(),
      userAgent: 'hogctl/1',
      timeoutMs: 1000,
      allowInsecureHttp: extra.allowInsecureHttp,
      dispatcher: new FakeApi().agent,
    });

  it('refuses a non-loopback host with a UsageError (exit 2)', () => {
    for (const base of ['http://posthog.example.com', 'http://10.0.0.5:8000', 'http://localhost.evil.test', 'http://127.0.0.1.nip.io']) {
      const err = thrown(() => make(base));
      expect(err).toBeInstanceOf(UsageError);
      expect(err.exitCode).toBe(2);
      expect(err.hint).toContain('--allow-insecure-http');
    }
  });

  it('allows loopback hosts', () => {
    for (const base of ['http://127.0.0.1:8000', 'http://localhost:8000', 'http://[::1]:8000', 'http://LOCALHOST']) {
      expect(make(base).origin).toBe(new URL(base).origin);
    }
  });

  it('allows it when the profile says so, and without credentials', () => {
    expect(make('http://posthog.example.com', { allowInsecureHttp: true }).origin).toBe('http://posthog.example.com');
    expect(make('http://posthog.example.com', { withKey: false }).origin).toBe('http://posthog.example.com');
  });

  it('isLoopback', () => {
    expect(isLoopback('127.0.0.1')).toBe(true);
    expect(isLoopback('127.1.2.3')).toBe(true);
    expect(isLoopback('[::1]')).toBe(true);
    expect(isLoopback('localhost')).toBe(true);
    expect(isLoopback('example.com')).toBe(false);
    expect(isLoopback('128.0.0.1')).toBe(false);
  });
});

describe('timeout', () => {
  it('turns a slow answer into UnavailableError exit 7 mentioning the timeout', async () => {
    api = new FakeApi();
    api.agent.get(ORIGIN).intercept({ path: PATH, method: 'GET' }).reply(200, OK).delay(200);
    const { client } = makeClient(api, { timeoutMs: 50, retry: { maxRetries: 0 } });
    const err = await rejection(() => client.get(PATH));
    expect(err).toBeInstanceOf(UnavailableError);
    expect(err.exitCode).toBe(7);
    expect(err.message).toMatch(/timed out/);
    expect(err.hint).toMatch(/timeout/);
  });

  it('retries a GET that timed out', async () => {
    api = new FakeApi();
    api.agent.get(ORIGIN).intercept({ path: PATH, method: 'GET' }).reply(200, { slow: true }).delay(200);
    api.on('GET', PATH, [{ status: 200, body: OK }]);
    const { client, sleeps } = makeClient(api, { timeoutMs: 50 });
    const res = await client.get(PATH);
    expect(res.body).toEqual(OK);
    expect(sleeps).toHaveLength(1);
  });
});
