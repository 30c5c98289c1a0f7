// POST /api/projects/{id}/query/ over HTTP: request validation, scopes, the OFFSET refusal for
// personal keys, the error shape, async refresh modes and the environments alias.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/server.js';
import { OFFSET_REFUSED } from '../src/routes/query.js';
import { call, errorBody, withSandbox } from './helpers.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await withSandbox({ persons: 300, seed: 5, applyDelayMs: 30 });
});
afterAll(() => sb.close());

function post(body: unknown, opts: { key?: string | null; path?: string } = {}) {
  return call(sb, opts.path ?? '/api/projects/1/query/', {
    method: 'POST',
    key: opts.key,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const hogql = (query: string, values?: Record<string, unknown>) => ({
  query: { kind: 'HogQLQuery', query, ...(values ? { values } : {}) },
  name: 't',
  refresh: 'blocking',
});

describe('POST /query/', () => {
  it('answers the HogQLQueryResponse shape', async () => {
    const res = await post(hogql('SELECT id, properties.email FROM persons WHERE properties.plan = {plan} LIMIT 5', { plan: 'team' }));
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body.columns).toEqual(['id', 'email']);
    expect(body.types).toEqual([
      ['id', 'UUID'],
      ['email', 'Nullable(String)'],
    ]);
    expect(body.results).toHaveLength(5);
    expect(body).toMatchObject({
      hasMore: null,
      limit: null,
      offset: null,
      is_cached: false,
      query_status: null,
      hogql: expect.any(String),
    });
    const team = [...sb.store].filter((p) => p.properties.plan === 'team').slice(0, 5);
    expect(body.results.map((r: unknown[]) => r[0])).toEqual(team.map((p) => p.uuid));
  });

  it("refuses OFFSET for personal keys with the server's exact words, before running", async () => {
    const res = await post(hogql('SELECT id FROM persons LIMIT 5 OFFSET 10'));
    expect(res.status).toBe(400);
    expect(res.json()).toEqual(errorBody('validation_error', 'invalid_input', OFFSET_REFUSED));
    expect(OFFSET_REFUSED).toMatch(
      /^OFFSET is not supported on queries made with a personal API key\. For pagination, use keyset pagination/,
    );
  });

  it('answers 400 validation_error for syntax and resolution errors', async () => {
    const syntax = await post(hogql('SELEC id FROM persons'));
    expect(syntax.status).toBe(400);
    expect(syntax.json()).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr: null });
    expect(syntax.json().detail).toBe("mismatched input 'SELEC' expecting {SELECT, WITH, '{', '(', '<'}");
    const unknown = await post(hogql('SELECT nope FROM persons'));
    expect(unknown.json()).toEqual(errorBody('validation_error', 'invalid_input', 'Unable to resolve field: nope'));
  });

  it('validates the request body', async () => {
    expect((await post({ name: 'x' })).json()).toEqual(errorBody('validation_error', 'required', 'This field is required.', 'query'));
    const kind = await post({ query: { kind: 'EventsQuery', select: ['*'] } });
    expect(kind.status).toBe(400);
    expect(kind.json().detail).toMatch(/Unsupported query kind: "EventsQuery"/);
    expect((await post({ ...hogql('SELECT id FROM persons'), refresh: 'sometimes' })).json().attr).toBe('refresh');
  });

  it('needs query:read, which a write-only key lacks', async () => {
    const ok = await post(hogql('SELECT count() FROM persons'), { key: sb.addKey(['query:read']) });
    expect(ok.status).toBe(200);
    expect(ok.json().results).toEqual([[sb.store.size]]);
    const denied = await post(hogql('SELECT count() FROM persons'), { key: sb.addKey(['person:read']) });
    expect(denied.status).toBe(403);
    expect(denied.json()).toEqual(errorBody('authentication_error', 'permission_denied', "API key missing required scope 'query:read'"));
    expect((await post(hogql('SELECT 1 FROM persons'), { key: null })).status).toBe(401);
  });

  it('serves /api/environments/ too, with the deprecation headers', async () => {
    const res = await post(hogql('SELECT id FROM persons LIMIT 1'), { path: '/api/environments/1/query/' });
    expect(res.status).toBe(200);
    expect(res.headers.deprecation).toBe('true');
  });

  it('runs async refresh modes: 202 with query_status, then GET /query/{id}/ until complete', async () => {
    const started = await post({ ...hogql('SELECT id FROM persons LIMIT 2'), refresh: 'async' });
    expect(started.status).toBe(202);
    const { query_status: status } = started.json();
    expect(status).toMatchObject({ complete: false, error: false, results: null });
    let poll = await call(sb, `/api/projects/1/query/${status.id}/`);
    for (let i = 0; poll.status === 202 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 10));
      poll = await call(sb, `/api/projects/1/query/${status.id}/`);
    }
    expect(poll.status).toBe(200);
    expect(poll.json().query_status).toMatchObject({ id: status.id, complete: true, error: false });
    expect(poll.json().query_status.results.results).toHaveLength(2);
    expect((await call(sb, '/api/projects/1/query/no-such-query/')).status).toBe(404);
  });

  it('an async query that fails answers the poll with 400 and query_status.error_message, not the POST', async () => {
    const started = await post({ ...hogql('SELECT nosuchfunction(id) FROM persons'), refresh: 'async' });
    expect(started.status).toBe(202);
    const { id } = started.json().query_status;
    let poll = await call(sb, `/api/projects/1/query/${id}/`);
    for (let i = 0; poll.status === 202 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 10));
      poll = await call(sb, `/api/projects/1/query/${id}/`);
    }
    expect(poll.status).toBe(400);
    expect(poll.json().query_status).toMatchObject({
      id,
      complete: true,
      error: true,
      error_message: expect.stringContaining('nosuchfunction'),
    });
  });

  it('is throttled as a query when rate limits are on', async () => {
    sb.setRateLimit('query=2/min');
    try {
      const key = sb.addKey(['query:read']);
      expect((await post(hogql('SELECT id FROM persons LIMIT 1'), { key })).status).toBe(200);
      expect((await post(hogql('SELECT id FROM persons LIMIT 1'), { key })).status).toBe(200);
      const limited = await post(hogql('SELECT id FROM persons LIMIT 1'), { key });
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBeDefined();
    } finally {
      sb.setRateLimit(undefined);
    }
  });
});
