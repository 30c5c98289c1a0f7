// Session credentials on the wire (docs/server-contract.md §11.3): cookies, X-CSRFToken on unsafe methods,
// a same-origin Referer, no Authorization header, Set-Cookie applied, secrets redacted, and
// refusals reworded.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionJar } from '../../../src/config/session-jar.js';
import { sessionCredentials } from '../../../src/http/session-credentials.js';
import { twoFactorValidate, twoFactorStartSetup } from '../../../src/api/users.js';
import { FakeApi, makeClient, ORIGIN, rejection } from '../helpers.js';

let api: FakeApi;
let dir: string;
let jar: SessionJar;

beforeEach(() => {
  api = new FakeApi();
  dir = mkdtempSync(join(tmpdir(), 'hogctl-cred-'));
  jar = SessionJar.load(join(dir, 'sessions', 'p.json'), ORIGIN);
  jar.applySetCookie(new URL(`${ORIGIN}/api/login/`), [
    'sessionid=sess-value-1; Path=/; HttpOnly; Secure',
    'csrftoken=csrf-value-1; Path=/; Secure',
  ]);
});
afterEach(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

const client = () => makeClient(api, { credentials: sessionCredentials(jar, { autosave: true, label: 'profile "p"' }) });

describe('session credentials', () => {
  it('send cookies and Referer always, X-CSRFToken on unsafe methods only, and no Authorization', async () => {
    api.on('GET', '/api/users/@me/two_factor_status/', [{ status: 200, body: { is_enabled: false, backup_codes: [], method: null } }]);
    api.on('POST', '/api/users/@me/two_factor_validate/', [{ status: 200, body: { success: true } }]);
    const { client: c } = client();
    await c.get('/api/users/@me/two_factor_status/');
    await twoFactorValidate(c, '@me', '123456');
    const [get, post] = api.requests;
    expect(get.headers.cookie).toBe('sessionid=sess-value-1; csrftoken=csrf-value-1');
    expect(get.headers.referer).toBe(`${ORIGIN}/`);
    expect(get.headers['x-csrftoken']).toBeUndefined();
    expect(post.headers['x-csrftoken']).toBe('csrf-value-1');
    expect(post.headers.authorization).toBeUndefined();
    expect(get.headers.authorization).toBeUndefined();
  });

  it('apply every Set-Cookie and save the jar, and keep cookie values out of the debug log', async () => {
    api.on('GET', '/api/users/@me/?sessionid=sess-value-1', [
      { status: 200, body: {}, headers: { 'set-cookie': 'csrftoken=csrf-value-2; Path=/; Secure' } },
    ]);
    const { client: c, logs } = client();
    await c.get('/api/users/@me/', { sessionid: 'sess-value-1' });
    expect(jar.csrfToken()).toBe('csrf-value-2');
    expect(SessionJar.load(jar.file, ORIGIN).csrfToken()).toBe('csrf-value-2');
    expect(logs.join('\n')).not.toContain('sess-value-1');
    expect(logs.join('\n')).toContain('[redacted]');
  });

  it('reword 401, CSRF and re-auth refusals, all exit 4', async () => {
    api.on('GET', '/api/users/@me/two_factor_status/', [
      {
        status: 401,
        body: {
          type: 'authentication_error',
          code: 'not_authenticated',
          detail: 'Authentication credentials were not provided.',
          attr: null,
        },
      },
    ]);
    api.on('POST', '/api/users/@me/two_factor_disable/', [
      {
        status: 403,
        body: { type: 'authentication_error', code: 'permission_denied', detail: 'CSRF Failed: CSRF token missing.', attr: null },
      },
      {
        status: 403,
        body: {
          type: 'authentication_error',
          code: 'sensitive_action_required_reauth',
          detail: 'This action requires you to be recently authenticated.',
          attr: null,
        },
      },
    ]);
    const { client: c } = client();
    const expired = await rejection(() => c.get('/api/users/@me/two_factor_status/'));
    expect(expired.message).toBe('session missing or expired: run `hogctl auth login`');
    expect(expired.hint).toContain('profile "p"');
    expect(expired.exitCode).toBe(4);
    const csrf = await rejection(() => c.post('/api/users/@me/two_factor_disable/'));
    expect(csrf.message).toBe("the server refused the request's CSRF check: CSRF Failed: CSRF token missing.");
    expect(csrf.exitCode).toBe(4);
    const reauth = await rejection(() => c.post('/api/users/@me/two_factor_disable/'));
    expect(reauth.message).toBe(
      'this action needs a recent sign-in: POST /api/users/@me/two_factor_disable/ was refused because the session signed in more than 2 hours ago',
    );
    expect(reauth.hint).toBe('run `hogctl auth login` again (profile "p"), then repeat the command');
    expect(reauth.exitCode).toBe(4);
  });
});

describe('2FA paths on older servers', () => {
  it('fall back to validate_2fa and start_2fa_setup when the new names are 404', async () => {
    const notFound = { status: 404, body: { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null } };
    api.on('POST', '/api/users/@me/two_factor_validate/', [notFound]);
    api.on('POST', '/api/users/@me/validate_2fa/', [{ status: 200, body: { success: true } }]);
    api.on('GET', '/api/users/@me/two_factor_start_setup/', [notFound]);
    api.on('GET', '/api/users/@me/start_2fa_setup/', [{ status: 200, body: { success: true, secret: 'JBSWY3DPEHPK3PXP' } }]);
    const { client: c } = client();
    await twoFactorValidate(c, '@me', '123456');
    expect((await twoFactorStartSetup(c, '@me')).secret).toBe('JBSWY3DPEHPK3PXP');
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/users/@me/two_factor_validate/',
      'POST /api/users/@me/validate_2fa/',
      'GET /api/users/@me/two_factor_start_setup/',
      'GET /api/users/@me/start_2fa_setup/',
    ]);
    expect(api.requests[1].body).toEqual({ token: '123456' });
  });
});
