import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findKeyWithSource, parseKeySpec } from '../src/auth.js';
import type { Sandbox } from '../src/server.js';
import { call, errorBody, withSandbox } from './helpers.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await withSandbox({
    persons: 20,
    keys: ['phx_readonly:person:read', 'phx_writer:person:write', 'phx_nothing:', 'phx_p2:person:read,project:read@2'],
  });
});
afterAll(() => sb.close());

const persons = '/api/projects/1/persons/';
const wwwAuthenticate = () => `Bearer resource_metadata="${sb.url}/.well-known/oauth-protected-resource"`;

describe('401s (docs/server-contract.md §3.1, §3.2)', () => {
  it('answers not_authenticated with WWW-Authenticate when no key is sent', async () => {
    const reply = await call(sb, persons, { key: null });
    expect(reply.status).toBe(401);
    expect(reply.json()).toEqual(errorBody('authentication_error', 'not_authenticated', 'Authentication credentials were not provided.'));
    expect(reply.headers['www-authenticate']).toBe(wwwAuthenticate());
  });

  it('names where an invalid key was found: header, body or query string', async () => {
    const header = await call(sb, persons, { key: 'phx_unknown' });
    expect(header.status).toBe(401);
    expect(header.json()).toEqual(
      errorBody('authentication_error', 'authentication_failed', 'Personal API key found in request Authorization header is invalid.'),
    );
    expect(header.headers['www-authenticate']).toBe(wwwAuthenticate());

    const query = await call(sb, `${persons}?personal_api_key=phx_unknown`, { key: null });
    expect(query.json().detail).toBe('Personal API key found in request query string is invalid.');

    const body = await call(sb, persons, {
      key: null,
      method: 'POST',
      body: JSON.stringify({ personal_api_key: 'phx_unknown' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(body.status).toBe(401);
    expect(body.json().detail).toBe('Personal API key found in request body is invalid.');
  });

  it('accepts the key in the body or the query string', async () => {
    const query = await call(sb, `${persons}?personal_api_key=${sb.defaultKey}&limit=1`, { key: null });
    expect(query.status).toBe(200);
    // A valid body key authenticates, so POST reaches the handler's 405.
    const body = await call(sb, persons, {
      key: null,
      method: 'POST',
      body: JSON.stringify({ personal_api_key: sb.defaultKey }),
      headers: { 'content-type': 'application/json' },
    });
    expect(body.status).toBe(405);
  });

  it('matches the Bearer header like the server: whitespace tolerated, case-sensitive keyword', async () => {
    expect((await call(sb, persons, { headers: { authorization: `Bearer    ${sb.defaultKey}   ` } })).status).toBe(200);
    const lower = await call(sb, persons, { headers: { authorization: `bearer ${sb.defaultKey}` } });
    expect(lower.status).toBe(401);
    expect(lower.json().code).toBe('not_authenticated');
    // The header wins over the query string, so the bad query key is never looked at.
    expect((await call(sb, `${persons}?personal_api_key=phx_unknown`)).status).toBe(200);
  });
});

describe('scopes (docs/server-contract.md §3.3)', () => {
  it('lets person:read list but not write', async () => {
    expect((await call(sb, persons, { key: 'phx_readonly' })).status).toBe(200);
    const post = await call(sb, persons, {
      key: 'phx_readonly',
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(post.status).toBe(403);
    expect(post.json()).toEqual(errorBody('authentication_error', 'permission_denied', "API key missing required scope 'person:write'"));
  });

  it('lets person:write also read', async () => {
    expect((await call(sb, persons, { key: 'phx_writer' })).status).toBe(200);
  });

  it('denies keys with empty scopes and names the missing scope', async () => {
    const reply = await call(sb, persons, { key: 'phx_nothing' });
    expect(reply.status).toBe(403);
    expect(reply.json().detail).toBe("API key missing required scope 'person:read'");
  });

  it('checks the scope object of each route', async () => {
    const projects = await call(sb, '/api/projects/', { key: 'phx_readonly' });
    expect(projects.status).toBe(403);
    expect(projects.json().detail).toBe("API key missing required scope 'project:read'");
    const me = await call(sb, '/api/users/@me/', { key: 'phx_readonly' });
    expect(me.json().detail).toBe("API key missing required scope 'user:read'");
  });

  it('refuses unmapped methods to keys as an unsupported action, and answers 405 for PATCH on a list', async () => {
    const del = await call(sb, persons, { method: 'DELETE' });
    expect(del.status).toBe(403);
    expect(del.json()).toEqual(
      errorBody('authentication_error', 'permission_denied', 'This action does not support personal API key access'),
    );
    const patch = await call(sb, persons, { method: 'PATCH', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(patch.status).toBe(405);
    expect(patch.json()).toEqual(errorBody('invalid_request', 'method_not_allowed', 'Method "PATCH" not allowed.'));
    expect(patch.headers.allow).toBe('GET, POST, HEAD, OPTIONS');
    // Authentication comes first: without credentials the same call is a 401.
    expect((await call(sb, persons, { method: 'DELETE', key: null })).status).toBe(401);
  });

  it('adds keys at run time with addKey', async () => {
    const key = sb.addKey(['project:read']);
    expect(key).toMatch(/^phx_[0-9A-Za-z]{43}$/);
    expect((await call(sb, '/api/projects/', { key })).status).toBe(200);
    expect((await call(sb, persons, { key })).status).toBe(403);
  });
});

describe('projects and scoped keys (docs/server-contract.md §3.4)', () => {
  it('tells unknown projects (404) from forbidden ones (403)', async () => {
    const unknown = await call(sb, '/api/projects/99/persons/');
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toEqual(errorBody('invalid_request', 'not_found', 'Project not found.'));
    const forbidden = await call(sb, '/api/projects/3/persons/');
    expect(forbidden.status).toBe(403);
    expect(forbidden.json()).toEqual(errorBody('authentication_error', 'permission_denied', "You don't have access to the project."));
    expect((await call(sb, '/api/projects/2/persons/')).status).toBe(200);
  });

  it('confines a project-scoped key to its projects', async () => {
    expect((await call(sb, '/api/projects/2/persons/', { key: 'phx_p2' })).status).toBe(200);
    const other = await call(sb, persons, { key: 'phx_p2' });
    expect(other.status).toBe(403);
    expect(other.json().detail).toBe('API key does not have access to the requested project: ID 1.');
    const current = await call(sb, '/api/projects/@current/persons/', { key: 'phx_p2' });
    expect(current.json().detail).toBe('API key does not have access to the requested project: ID 1.');
  });

  it('refuses project-scoped keys on non-project endpoints but not on /users/@me/', async () => {
    const list = await call(sb, '/api/projects/', { key: 'phx_p2' });
    expect(list.status).toBe(403);
    expect(list.json().detail).toBe('API keys with scoped projects are only supported on project-based endpoints.');
    const scopedAll = sb.addKey(['*'], { scopedTeams: [1] });
    expect((await call(sb, '/api/users/@me/', { key: scopedAll })).status).toBe(200);
    expect((await call(sb, '/api/projects/1/', { key: scopedAll })).status).toBe(200);
    expect((await call(sb, '/api/projects/2/', { key: scopedAll })).status).toBe(403);
  });
});

describe('findKeyWithSource', () => {
  const input = (authorization: string | undefined, data: unknown = {}, query = '') => ({
    headers: { authorization },
    query: new URLSearchParams(query),
    data: () => data,
  });

  it('strips the token and hands OAuth and project secret tokens to other authenticators', () => {
    expect(findKeyWithSource(input('Bearer \t phx_abc  '))).toEqual({ value: 'phx_abc', source: 'Authorization header' });
    expect(findKeyWithSource(input('Bearer pha_abc'))).toBeNull();
    expect(findKeyWithSource(input('Bearer phs_abc'))).toBeNull();
  });

  it('falls back to the body, then the last query value, when the header does not match', () => {
    expect(findKeyWithSource(input('Token phx_abc', { personal_api_key: 'phx_body' }, 'personal_api_key=phx_q'))).toEqual({
      value: 'phx_body',
      source: 'body',
    });
    expect(findKeyWithSource(input(undefined, [], 'personal_api_key=phx_1&personal_api_key=phx_2'))).toEqual({
      value: 'phx_2',
      source: 'query string',
    });
    // `(\S.+)` needs two characters.
    expect(findKeyWithSource(input('Bearer x'))).toBeNull();
  });
});

describe('parseKeySpec', () => {
  it('parses names, scopes and projects', () => {
    expect(parseKeySpec('phx_all')).toEqual({ value: 'phx_all', scopes: ['*'], scopedTeams: null });
    expect(parseKeySpec('phx_ro:person:read,query:read')).toEqual({
      value: 'phx_ro',
      scopes: ['person:read', 'query:read'],
      scopedTeams: null,
    });
    expect(parseKeySpec('phx_x:person:read@42')).toEqual({ value: 'phx_x', scopes: ['person:read'], scopedTeams: [42] });
    expect(parseKeySpec('phx_x:*@1,2')).toEqual({ value: 'phx_x', scopes: ['*'], scopedTeams: [1, 2] });
    expect(parseKeySpec('phx_none:')).toEqual({ value: 'phx_none', scopes: [], scopedTeams: null });
  });

  it('rejects malformed specs with a message naming the problem', () => {
    expect(() => parseKeySpec('abc:person:read')).toThrow(/must start with phx_/);
    expect(() => parseKeySpec('phx_x:person:reed')).toThrow(/scope "person:reed"/);
    expect(() => parseKeySpec('phx_x:person:read@one')).toThrow(/project ids/);
  });
});
