// Error shapes, routing, projects, users, the environments alias and the recording endpoints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as errors from '../src/errors.js';
import { parseRequestData } from '../src/body.js';
import type { Sandbox } from '../src/server.js';
import { call, errorBody, withSandbox } from './helpers.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await withSandbox({ persons: 30 });
});
afterAll(() => sb.close());

describe('error bodies (docs/server-contract.md §4)', () => {
  it('builds every row of the table', () => {
    const shape = (e: errors.ErrorResponse) => [e.status, e.body, e.headers];
    expect(shape(errors.fieldError('email', 'required', 'This field is required.'))).toEqual([
      400,
      errorBody('validation_error', 'required', 'This field is required.', 'email'),
      {},
    ]);
    expect(shape(errors.validationError('text'))).toEqual([400, errorBody('validation_error', 'invalid_input', 'text'), {}]);
    expect(shape(errors.validationError('text', 'x'))).toEqual([400, errorBody('validation_error', 'x', 'text'), {}]);
    expect(shape(errors.parseError('Expecting value: line 1 column 1 (char 0)'))[1]).toEqual(
      errorBody('invalid_request', 'parse_error', 'JSON parse error - Expecting value: line 1 column 1 (char 0)'),
    );
    expect(shape(errors.permissionDenied('nope'))).toEqual([403, errorBody('authentication_error', 'permission_denied', 'nope'), {}]);
    expect(shape(errors.notFound())).toEqual([404, errorBody('invalid_request', 'not_found', 'Not found.'), {}]);
    expect(shape(errors.methodNotAllowed('PUT'))[1]).toEqual(
      errorBody('invalid_request', 'method_not_allowed', 'Method "PUT" not allowed.'),
    );
    expect(shape(errors.unsupportedMediaType('text/plain'))).toEqual([
      415,
      errorBody('invalid_request', 'unsupported_media_type', 'Unsupported media type "text/plain" in request.'),
      {},
    ]);
    expect(shape(errors.throttled(11.2))).toEqual([
      429,
      errorBody('throttled_error', 'throttled', 'Request was throttled. Expected available in 12 seconds.'),
      { 'Retry-After': '12' },
    ]);
    expect(shape(errors.throttled(0.4))).toEqual([
      429,
      errorBody('throttled_error', 'throttled', 'Request was throttled. Expected available in 1 second.'),
      { 'Retry-After': '1' },
    ]);
    expect(shape(errors.serverError())).toEqual([500, errorBody('server_error', 'error', 'A server error occurred.'), {}]);
    expect(shape(errors.databaseUnavailable())).toEqual([
      503,
      errorBody('server_error', 'database_unavailable', "We couldn't reach the database just now. Please try again in a moment."),
      { 'Retry-After': '1' },
    ]);
    expect(errors.swappedRequiredError('properties').body).toEqual({
      attr: 'properties',
      code: 'This field is required.',
      detail: 'required',
      type: 'validation_error',
    });
  });

  it('parses request data with DRF rules', () => {
    expect(parseRequestData(Buffer.from(''), 'application/json', 'json')).toEqual({});
    expect(parseRequestData(Buffer.from('{"a":1}'), 'application/json; charset=utf-8', 'json')).toEqual({ a: 1 });
    expect(parseRequestData(Buffer.from('a=1'), 'application/x-www-form-urlencoded', 'default')).toEqual({ a: '1' });
    expect(() => parseRequestData(Buffer.from('a=1'), 'application/x-www-form-urlencoded', 'json')).toThrow(
      'Unsupported media type "application/x-www-form-urlencoded" in request.',
    );
    expect(() => parseRequestData(Buffer.from('{"a":'), 'application/json', 'json')).toThrow(
      'JSON parse error - Expecting value: line 1 column 6 (char 5)',
    );
    expect(() => parseRequestData(Buffer.from('{a}'), 'application/json', 'json')).toThrow(
      /Expecting property name enclosed in double quotes: line 1 column 2 \(char 1\)/,
    );
  });

  it('answers malformed JSON with 400 parse_error and non-JSON bodies on persons with 415', async () => {
    // With no Authorization header the server reads the body looking for personal_api_key.
    const malformed = await call(sb, '/api/projects/1/persons/', {
      key: null,
      method: 'POST',
      body: '{"personal_api_key": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json()).toMatchObject({ type: 'invalid_request', code: 'parse_error', attr: null });
    expect(malformed.json().detail).toMatch(/^JSON parse error - /);
    const text = await call(sb, '/api/projects/1/persons/', {
      key: null,
      method: 'POST',
      body: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(text.json()).toEqual(errorBody('invalid_request', 'unsupported_media_type', 'Unsupported media type "text/plain" in request.'));
  });

  it('answers unknown routes with a JSON 404', async () => {
    for (const path of ['/api/nothing/', '/api/projects/1/persons/1/nothing/', '/', '/favicon.ico']) {
      const reply = await call(sb, path);
      expect(reply.status).toBe(404);
      expect(reply.headers['content-type']).toBe('application/json');
      expect(reply.json()).toEqual(errorBody('invalid_request', 'not_found', 'Not found.'));
    }
  });

  it('answers 406 when no renderer fits the Accept header', async () => {
    const reply = await call(sb, '/api/projects/', { headers: { accept: 'application/xml' } });
    expect(reply.status).toBe(406);
    expect(reply.json().code).toBe('not_acceptable');
    expect((await call(sb, '/api/projects/', { headers: { accept: 'application/xml, */*;q=0.1' } })).status).toBe(200);
  });

  it('answers HEAD and OPTIONS like DRF', async () => {
    const head = await call(sb, '/api/projects/1/persons/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    const options = await call(sb, '/api/projects/1/persons/', { method: 'OPTIONS' });
    expect(options.status).toBe(200);
    expect(options.json().parses).toEqual(['application/json']);
  });
});

describe('projects (docs/server-contract.md §8)', () => {
  it('lists the projects of all the user’s organisations as a DRF page', async () => {
    const page = (await call(sb, '/api/projects/')).json();
    expect(page.count).toBe(2);
    expect(page.next).toBeNull();
    expect(page.previous).toBeNull();
    expect(page.results.map((p: any) => p.id)).toEqual([1, 2]);
    expect(Object.keys(page.results[0]).sort()).toEqual(
      [
        'access_control',
        'api_token',
        'completed_snippet_onboarding',
        'has_completed_onboarding_for',
        'id',
        'ingested_event',
        'is_demo',
        'name',
        'organization',
        'timezone',
        'uuid',
      ].sort(),
    );
    expect(page.results[0].api_token).toMatch(/^phc_/);
  });

  it('filters by ?search= and pages with DRF links', async () => {
    expect((await call(sb, '/api/projects/?search=STAG')).json().results.map((p: any) => p.name)).toEqual(['Staging']);
    const first = (await call(sb, '/api/projects/?limit=1')).json();
    expect(first.next).toBe(`${sb.url}/api/projects/?limit=1&offset=1`);
    const second = (await call(sb, '/api/projects/?limit=1&offset=1')).json();
    expect(second.results[0].id).toBe(2);
    expect(second.next).toBeNull();
    expect(second.previous).toBe(`${sb.url}/api/projects/?limit=1`);
  });

  it('serves @current and project ids', async () => {
    expect((await call(sb, '/api/projects/@current/')).json().id).toBe(1);
    expect((await call(sb, '/api/projects/2')).json().name).toBe('Staging');
    expect((await call(sb, '/api/projects/3/')).status).toBe(403);
    expect((await call(sb, '/api/projects/77/')).json().detail).toBe('Project not found.');
    expect((await call(sb, '/api/projects/@current/persons/?limit=3')).json().results).toHaveLength(3);
  });
});

describe('users (docs/server-contract.md §9)', () => {
  it('returns the caller with the documented fields', async () => {
    const me = (await call(sb, '/api/users/@me/')).json();
    for (const field of [
      'date_joined',
      'uuid',
      'distinct_id',
      'first_name',
      'last_name',
      'email',
      'pending_email',
      'is_email_verified',
      'id',
      'is_staff',
      'team',
      'organization',
      'organizations',
      'is_2fa_enabled',
      'has_password',
    ]) {
      expect(me).toHaveProperty(field);
    }
    expect(me.email).toBe('sandbox@example.com');
    expect(me.team.id).toBe(1);
    expect(me.organizations).toHaveLength(1);
    expect((await call(sb, `/api/users/${me.uuid}/`)).json().uuid).toBe(me.uuid);
    const other = await call(sb, '/api/users/0190aaaa-aaaa-7aaa-8aaa-aaaaaaaaaaaa/');
    expect(other.status).toBe(403);
    expect(other.json().detail).toBe("As a non-staff user you're only allowed to access the `@me` user instance.");
  });
});

describe('/api/environments/ alias (docs/server-contract.md §1)', () => {
  it('serves persons on the called URL with the three deprecation headers', async () => {
    const reply = await call(sb, '/api/environments/1/persons/?limit=2&search=user');
    expect(reply.status).toBe(200);
    expect(reply.headers.deprecation).toBe('true');
    expect(reply.headers.link).toBe('</api/projects/1/persons/?limit=2&search=user>; rel="successor-version"');
    expect(reply.headers.sunset).toBe('Fri, 31 Jul 2026 00:00:00 GMT');
    expect(reply.json().results).toEqual((await call(sb, '/api/projects/1/persons/?limit=2&search=user')).json().results);
    const detail = await call(sb, '/api/environments/1/persons/3');
    expect(detail.json().id).toBe(3);
    expect(detail.headers.link).toBe('</api/projects/1/persons/3>; rel="successor-version"');
  });

  it('keeps the headers on errors and leaves paths without a projects counterpart alone', async () => {
    const unauthenticated = await call(sb, '/api/environments/1/persons/', { key: null });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.deprecation).toBe('true');
    const none = await call(sb, '/api/environments/1/');
    expect(none.status).toBe(404);
    expect(none.headers.deprecation).toBeUndefined();
    expect((await call(sb, '/api/projects/1/persons/')).headers.deprecation).toBeUndefined();
  });
});

describe('recorded requests', () => {
  it('records what the server received, in memory and at /_sandbox/requests, without auth', async () => {
    const marker = `marker-${Date.now()}`;
    await call(sb, `/api/projects/1/persons/?search=${marker}&x=1&x=2`, { method: 'GET', headers: { 'x-test': marker } });
    const mine = sb.requests.filter((r) => r.headers['x-test'] === marker);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      method: 'GET',
      path: '/api/projects/1/persons/',
      query: { search: marker, x: ['1', '2'] },
      status: 200,
      body: '',
    });
    expect(mine[0].headers.authorization).toBe(`Bearer ${sb.defaultKey}`);

    const remote = await call(sb, '/_sandbox/requests', { key: null });
    expect(remote.status).toBe(200);
    expect(remote.json().filter((r: any) => r.headers['x-test'] === marker)).toHaveLength(1);
    // Test plumbing is not itself recorded.
    expect(sb.requests.some((r) => r.path.startsWith('/_sandbox/'))).toBe(false);
  });

  it('reports counts at /_sandbox/state', async () => {
    const state = (await call(sb, '/_sandbox/state', { key: null })).json();
    expect(state.persons).toBe(30);
    expect(state.persons_deleted).toBe(0);
    expect(state.projects['2'].persons).toBe(20);
    expect(state.requests).toBe(sb.requests.length);
  });
});
