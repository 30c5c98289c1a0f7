// The sandbox's session sign-in, CSRF, 2FA and e-mail endpoints (docs/server-contract.md §10, §11, §12),
// driven over HTTP with a clock the tests move.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/server.js';
import { totp, totpStep, TOTP_STEP_SECONDS } from '../src/totp.js';
import { call, errorBody, withSandbox, type Reply } from './helpers.js';

let sb: Sandbox;
let clock = Date.UTC(2026, 0, 5, 12, 0, 0);
const tick = (seconds: number) => (clock += seconds * 1000);

beforeAll(async () => {
  sb = await withSandbox({ persons: 5, now: () => clock, password: 'correct horse battery', loginFailureLimit: 3 });
});
afterAll(() => sb.close());

/** A tiny browser: keeps cookies, sends CSRF headers on unsafe methods when asked. */
class Browser {
  cookies = new Map<string, string>();
  constructor(private readonly csrf = true) {}

  store(reply: Reply): void {
    const raw = reply.headers['set-cookie'];
    for (const line of Array.isArray(raw) ? raw : raw ? [raw] : []) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const maxAge = attrs.map((a) => a.trim()).find((a) => a.toLowerCase().startsWith('max-age='));
      if (maxAge && Number(maxAge.split('=')[1]) <= 0) this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  }

  async send(path: string, method: 'GET' | 'POST' | 'PATCH' = 'GET', body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const h: Record<string, string> = { ...headers };
    if (this.cookies.size) h.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (this.csrf && method !== 'GET' && this.cookies.has('posthog_csrftoken')) h['x-csrftoken'] = this.cookies.get('posthog_csrftoken')!;
    if (body !== undefined) h['content-type'] = 'application/json';
    const reply = await call(sb, path, { method, key: null, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
    this.store(reply);
    return reply;
  }

  login(email: string, password: string) {
    return this.send('/api/login/', 'POST', { email, password });
  }
}

function setCookies(reply: Reply): string[] {
  const raw = reply.headers['set-cookie'];
  return Array.isArray(raw) ? raw : raw ? [raw] : [];
}

/** The next step's code, so a code used a moment ago is never reused by accident. */
function freshCode(secret: string): string {
  tick(TOTP_STEP_SECONDS);
  return totp(secret, clock);
}

describe('password step: POST /api/login/ (docs/server-contract.md §11.1)', () => {
  it('signs in without 2FA: sessionid (HttpOnly) and posthog_csrftoken, no Secure flag over plain HTTP', async () => {
    const b = new Browser();
    const reply = await b.login('SANDBOX@example.com', 'correct horse battery');
    expect(reply.status).toBe(200);
    expect(reply.json()).toEqual({ success: true });
    const cookies = setCookies(reply);
    expect(cookies.find((c) => c.startsWith('sessionid='))).toMatch(/HttpOnly; Max-Age=1209600; Path=\/; SameSite=Lax$/);
    expect(cookies.find((c) => c.startsWith('posthog_csrftoken='))).toMatch(/^posthog_csrftoken=[A-Za-z0-9]{32}; /);
    expect(cookies.join('\n')).not.toContain('Secure');
    const me = await b.send('/api/users/@me/');
    expect(me.status).toBe(200);
    expect(me.json().email).toBe('sandbox@example.com');
    expect(me.json().sensitive_session_expires_at).toBe(new Date(clock + 2 * 3600 * 1000).toISOString());
  });

  it('refuses a wrong password with invalid_credentials, and a missing field with required', async () => {
    const wrong = await new Browser().login('sandbox@example.com', 'nope');
    expect(wrong.status).toBe(400);
    expect(wrong.json()).toEqual(errorBody('validation_error', 'invalid_credentials', 'Invalid email or password.'));
    const missing = await new Browser().send('/api/login/', 'POST', { email: 'sandbox@example.com' });
    expect(missing.json()).toEqual(errorBody('validation_error', 'required', 'This field is required.', 'password'));
  });

  it('locks an e-mail out after repeated failures, even for the right password, for 15 minutes', async () => {
    const b = new Browser();
    const email = 'totp@example.com';
    for (let i = 0; i < 3; i++) expect((await b.login(email, `wrong-${i}`)).status).toBe(400);
    const locked = await b.login(email, sb.twoFactorUser.password);
    expect(locked.status).toBe(403);
    expect(locked.json()).toEqual(
      errorBody('authentication_error', 'too_many_failed_attempts', 'Too many failed login attempts. Please try again in 15 minutes.'),
    );
    tick(15 * 60 + 1);
    expect((await b.login(email, sb.twoFactorUser.password)).status).toBe(401);
  });

  it('answers not_verified for an unverified account and mails a new code', async () => {
    const account = sb.identity.byEmail('sandbox@example.com')!;
    account.emailVerified = false;
    try {
      const before = sb.outbox.length;
      const reply = await new Browser().login('sandbox@example.com', 'correct horse battery');
      expect(reply.json()).toEqual(
        errorBody(
          'validation_error',
          'not_verified',
          'Your account is awaiting verification. Please check your email for a verification link.',
        ),
      );
      expect(sb.outbox.slice(before).map((m) => [m.kind, m.to])).toEqual([['email_verification_code', 'sandbox@example.com']]);
    } finally {
      account.emailVerified = true;
    }
  });
});

describe('second factor: POST /api/login/token/ (docs/server-contract.md §11.2)', () => {
  const email = 'totp@example.com';
  let password: string;
  beforeAll(() => {
    password = sb.twoFactorUser.password;
  });

  it('asks for 2FA with a 401 that sets the pending session cookie, then accepts a TOTP code', async () => {
    const b = new Browser();
    const first = await b.login(email, password);
    expect(first.status).toBe(401);
    expect(first.json()).toEqual(errorBody('authentication_error', '2fa_required', '2FA is required.'));
    expect(setCookies(first).some((c) => c.startsWith('sessionid='))).toBe(true);
    // The pending session is not signed in yet.
    expect((await b.send('/api/users/@me/')).status).toBe(401);

    const code = freshCode(sb.twoFactorUser.totpSecret);
    const second = await b.send('/api/login/token/', 'POST', { token: code });
    expect(second.status).toBe(200);
    const remember = setCookies(second).find((c) => c.startsWith('remember-cookie_'));
    expect(remember).toMatch(/HttpOnly; Max-Age=2592000; Path=\/; SameSite=Strict$/);
    expect((await b.send('/api/users/@me/')).json().email).toBe(email);

    // The same code never works twice.
    const again = new Browser();
    await again.login(email, password);
    const replay = await again.send('/api/login/token/', 'POST', { token: code });
    expect(replay.json()).toEqual(errorBody('validation_error', '2fa_invalid', 'Invalid authentication code'));
  });

  it('accepts one step of drift either way, not two', async () => {
    tick(10 * TOTP_STEP_SECONDS);
    const secret = sb.twoFactorUser.totpSecret;
    const b = new Browser();
    await b.login(email, password);
    const tooOld = totp(secret, clock - 2 * TOTP_STEP_SECONDS * 1000);
    expect((await b.send('/api/login/token/', 'POST', { token: tooOld })).status).toBe(400);
    tick(2);
    const previous = totp(secret, clock - TOTP_STEP_SECONDS * 1000);
    expect(totpStep(clock - TOTP_STEP_SECONDS * 1000)).toBe(totpStep(clock) - 1);
    expect((await b.send('/api/login/token/', 'POST', { token: previous })).status).toBe(200);
  });

  it('throttles a second wrong code straight after the first', async () => {
    const b = new Browser();
    await b.login(email, password);
    expect((await b.send('/api/login/token/', 'POST', { token: '000000' })).json().code).toBe('2fa_invalid');
    expect((await b.send('/api/login/token/', 'POST', { token: '000001' })).json()).toEqual(
      errorBody('validation_error', '2fa_too_many_attempts', 'Too many attempts.'),
    );
    tick(2);
    expect((await b.send('/api/login/token/', 'POST', { token: freshCode(sb.twoFactorUser.totpSecret) })).status).toBe(200);
  });

  it('expires the pending login after 600 seconds, and answers 500 with none pending', async () => {
    const b = new Browser();
    await b.login(email, password);
    tick(601);
    const late = await b.send('/api/login/token/', 'POST', { token: totp(sb.twoFactorUser.totpSecret, clock) });
    expect(late.json()).toEqual(errorBody('validation_error', '2fa_expired', 'Login attempt has expired. Re-enter username/password.'));
    expect((await new Browser().send('/api/login/token/', 'POST', { token: '123456' })).status).toBe(500);
  });

  it('takes a backup code once; the remember cookie then skips 2FA', async () => {
    const code = sb.identity.byEmail(email)!.backupCodes[0];
    expect(code).toMatch(/^[a-z2-7]{8}$/);
    const b = new Browser();
    await b.login(email, password);
    expect((await b.send('/api/login/token/', 'POST', { token: code })).status).toBe(200);
    expect(sb.outbox.at(-1)?.kind).toBe('backup_code_used');

    const c = new Browser();
    await c.login(email, password);
    tick(5);
    expect((await c.send('/api/login/token/', 'POST', { token: code })).json().code).toBe('2fa_invalid');

    // b keeps its remember cookie: a new password step goes straight through.
    b.cookies.delete('sessionid');
    expect((await b.login(email, password)).status).toBe(200);
  });
});

describe('CSRF on unsafe session requests (docs/server-contract.md §11.3)', () => {
  let b: Browser;
  beforeEach(async () => {
    b = new Browser(false);
    expect((await b.login('sandbox@example.com', 'correct horse battery')).status).toBe(200);
  });
  const patch = (headers: Record<string, string>) => b.send('/api/users/@me/', 'PATCH', { first_name: 'Sandy' }, headers);
  const detail = (reply: Reply) => reply.json().detail;

  it('needs X-CSRFToken equal to the csrftoken cookie', async () => {
    const missing = await patch({});
    expect(missing.status).toBe(403);
    expect(missing.json()).toEqual(errorBody('authentication_error', 'permission_denied', 'CSRF Failed: CSRF token missing.'));
    expect(detail(await patch({ 'x-csrftoken': 'a'.repeat(32) }))).toBe(
      "CSRF Failed: CSRF token from the 'X-Csrftoken' HTTP header incorrect.",
    );
    expect(detail(await patch({ 'x-csrftoken': 'short' }))).toBe(
      "CSRF Failed: CSRF token from the 'X-Csrftoken' HTTP header has incorrect length.",
    );
    expect((await patch({ 'x-csrftoken': b.cookies.get('posthog_csrftoken')! })).status).toBe(200);
  });

  it('says when the cookie is missing, and checks Origin and (over HTTPS) Referer', async () => {
    const token = b.cookies.get('posthog_csrftoken')!;
    b.cookies.delete('posthog_csrftoken');
    expect(detail(await patch({ 'x-csrftoken': token }))).toBe('CSRF Failed: CSRF cookie not set.');
    b.cookies.set('posthog_csrftoken', token);
    const host = new URL(sb.url).host;
    expect(detail(await patch({ 'x-csrftoken': token, origin: 'http://evil.example' }))).toBe(
      'CSRF Failed: Origin checking failed - http://evil.example does not match any trusted origins.',
    );
    expect((await patch({ 'x-csrftoken': token, origin: `http://${host}` })).status).toBe(200);
    const https = { 'x-csrftoken': token, 'x-forwarded-proto': 'https' };
    expect(detail(await patch(https))).toBe('CSRF Failed: Referer checking failed - no Referer.');
    expect(detail(await patch({ ...https, referer: 'https://evil.example/' }))).toBe(
      'CSRF Failed: Referer checking failed - https://evil.example/ does not match any trusted origins.',
    );
    expect((await patch({ ...https, referer: `https://${host}/` })).status).toBe(200);
  });

  it('does not check safe methods', async () => {
    expect((await b.send('/api/users/@me/two_factor_status/')).status).toBe(200);
  });
});

describe('2FA setup and management (docs/server-contract.md §10)', () => {
  let b: Browser;
  beforeAll(async () => {
    b = new Browser();
    expect((await b.login('sandbox@example.com', 'correct horse battery')).status).toBe(200);
  });

  it('refuses personal API keys on every session-only action', async () => {
    for (const [path, method] of [
      ['/api/users/@me/two_factor_start_setup/', 'GET'],
      ['/api/users/@me/two_factor_validate/', 'POST'],
      ['/api/users/@me/two_factor_status/', 'GET'],
      ['/api/users/@me/two_factor_backup_codes/', 'POST'],
      ['/api/users/@me/two_factor_disable/', 'POST'],
      ['/api/users/cancel_email_change_request/', 'PATCH'],
    ] as const) {
      const reply = await call(sb, path, { method });
      expect(reply.status, path).toBe(403);
      expect(reply.json(), path).toEqual(
        errorBody('authentication_error', 'permission_denied', 'This action does not support personal API key access'),
      );
    }
  });

  it('keeps the setup key for 10 minutes, refuses wrong codes, and enables TOTP with a right one', async () => {
    expect((await b.send('/api/users/@me/two_factor_validate/', 'POST', { token: '123456' })).json()).toEqual(
      errorBody('validation_error', 'setup_expired', '2FA setup session expired. Please start setup again.'),
    );
    const start = await b.send('/api/users/@me/two_factor_start_setup/');
    expect(start.json()).toEqual({ success: true, secret: expect.stringMatching(/^[A-Z2-7]{32}$/) });
    const wrong = await b.send('/api/users/@me/two_factor_validate/', 'POST', { token: '000000' });
    expect(wrong.json()).toEqual(errorBody('validation_error', 'token_invalid', 'Token is not valid'));
    tick(601);
    expect((await b.send('/api/users/@me/two_factor_validate/', 'POST', { token: totp(start.json().secret, clock) })).json().code).toBe(
      'setup_expired',
    );

    const { secret } = (await b.send('/api/users/@me/start_2fa_setup/')).json();
    const ok = await b.send('/api/users/@me/validate_2fa/', 'POST', { token: totp(secret, clock) });
    expect(ok.json()).toEqual({ success: true });
    expect(sb.outbox.at(-1)).toMatchObject({ kind: '2fa_enabled', to: 'sandbox@example.com' });
    expect((await b.send('/api/users/@me/')).json().is_2fa_enabled).toBe(true);
    expect((await b.send('/api/users/@me/two_factor_status/')).json()).toEqual({ is_enabled: true, backup_codes: [], method: 'TOTP' });
  });

  it('makes five single-use backup codes; a new set replaces the old', async () => {
    const first = (await b.send('/api/users/@me/two_factor_backup_codes/', 'POST')).json().backup_codes;
    expect(first).toHaveLength(5);
    for (const code of first) expect(code).toMatch(/^[a-z2-7]{8}$/);
    const second = (await b.send('/api/users/@me/two_factor_backup_codes/', 'POST')).json().backup_codes;
    expect(second.some((c: string) => first.includes(c))).toBe(false);
    expect((await b.send('/api/users/@me/two_factor_status/')).json().backup_codes).toEqual(second);

    const c = new Browser();
    expect((await c.login('sandbox@example.com', 'correct horse battery')).status).toBe(401);
    expect((await c.send('/api/login/token/', 'POST', { token: first[0] })).json().code).toBe('2fa_invalid');
  });

  it('needs a sign-in within 2 hours for POSTs, not for GETs', async () => {
    sb.ageSessions(2 * 3600 + 1);
    const late = await b.send('/api/users/@me/two_factor_backup_codes/', 'POST');
    expect(late.status).toBe(403);
    expect(late.json()).toEqual(
      errorBody('authentication_error', 'sensitive_action_required_reauth', 'This action requires you to be recently authenticated.'),
    );
    expect((await b.send('/api/users/@me/two_factor_status/')).status).toBe(200);
    // Sign in again (with a code now) and it works.
    b.cookies.delete('sessionid');
    expect((await b.login('sandbox@example.com', 'correct horse battery')).status).toBe(401);
    const secret = sb.identity.byEmail('sandbox@example.com')!.totp!.secret;
    expect((await b.send('/api/login/token/', 'POST', { token: freshCode(secret) })).status).toBe(200);
  });

  it('disables 2FA, after which backup codes cannot be made', async () => {
    expect((await b.send('/api/users/@me/two_factor_disable/', 'POST')).json()).toEqual({ success: true });
    expect((await b.send('/api/users/@me/two_factor_status/')).json()).toEqual({ is_enabled: false, backup_codes: [], method: null });
    expect((await b.send('/api/users/@me/two_factor_backup_codes/', 'POST')).json()).toEqual(
      errorBody('validation_error', '2fa_not_enabled', '2FA must be enabled first'),
    );
    expect(sb.outbox.at(-1)?.kind).toBe('2fa_disabled');
  });

  it('answers 403 for another user to a non-staff caller', async () => {
    const reply = await b.send(`/api/users/${sb.twoFactorUser.uuid}/two_factor_status/`);
    expect(reply.json().detail).toBe("As a non-staff user you're only allowed to access the `@me` user instance.");
  });
});

describe('e-mail verification and changes (docs/server-contract.md §9, §10)', () => {
  let b: Browser;
  beforeAll(async () => {
    b = new Browser();
    expect((await b.login('sandbox@example.com', 'correct horse battery')).status).toBe(200);
  });

  const verify = (body: unknown) =>
    call(sb, '/api/users/verify_email/', {
      method: 'POST',
      key: null,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const requestCode = (uuid: string) =>
    call(sb, '/api/users/request_email_verification/', {
      method: 'POST',
      key: null,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uuid }),
    });
  const lastCode = () => sb.outbox.at(-1)!.code!;
  const wrong = () => (lastCode() === '000000' ? '111111' : '000000');
  const invalidCode = errorBody('validation_error', 'invalid_code', 'This code is invalid or has expired.', 'code');
  const tooMany = errorBody('validation_error', 'too_many_attempts', 'Too many incorrect attempts. Try again later.', 'code');

  it('keeps a new e-mail pending, mails it a code, and verify_email swaps it in and signs in', async () => {
    const patched = await b.send('/api/users/@me/', 'PATCH', { email: 'sandy@example.org', first_name: 'Sandra' });
    expect(patched.status).toBe(200);
    expect(patched.json()).toMatchObject({ email: 'sandbox@example.com', pending_email: 'sandy@example.org', first_name: 'Sandra' });
    const mail = sb.outbox.at(-1)!;
    expect(mail).toMatchObject({ kind: 'email_verification_code', to: 'sandy@example.org' });
    expect(mail.code).toMatch(/^\d{6}$/);
    expect(mail.link).toBeUndefined();
    const uuid = mail.uuid!;

    expect((await verify({ uuid, code: wrong() })).json()).toEqual(invalidCode);
    // normalize_verification_code: spaces and grouping hyphens go, other digits fold to ASCII.
    const spaced = `${mail.code!.slice(0, 3)} - ${[...mail.code!.slice(3)].map((d) => String.fromCharCode(0xff10 + Number(d))).join('')}`;
    const verified = await verify({ uuid, code: spaced });
    expect(verified.json()).toEqual({ success: true });
    expect(setCookies(verified).some((c) => c.startsWith('sessionid='))).toBe(true);
    expect((await b.send('/api/users/@me/')).json()).toMatchObject({
      email: 'sandy@example.org',
      pending_email: null,
      is_email_verified: true,
    });

    // A repeat with nothing left to verify is a success without a session, whatever the code.
    const again = await verify({ uuid, code: wrong() });
    expect(again.json()).toEqual({ success: true, requires_login: true });
    expect(setCookies(again)).toEqual([]);
    // Put the address back for the other tests.
    sb.identity.byEmail('sandy@example.org')!.user.email = 'sandbox@example.com';
  });

  it('wants uuid and a 6-digit code; malformed codes are refused before they count', async () => {
    expect((await verify({ code: '123456' })).json()).toEqual(errorBody('validation_error', 'required', 'This field is required.', 'uuid'));
    expect((await verify({ uuid: sb.twoFactorUser.uuid, token: 'abc-123' })).json()).toEqual(
      errorBody('validation_error', 'required', 'This field is required.', 'code'),
    );
    expect((await verify({ uuid: sb.twoFactorUser.uuid, code: '12345' })).json()).toEqual(
      errorBody('validation_error', 'invalid_input', 'Enter the 6-digit code from your email.', 'code'),
    );
    expect((await verify({ uuid: '00000000-0000-4000-8000-000000000000', code: '123456' })).json()).toEqual(invalidCode);
    expect(sb.identity.byUuid(sb.twoFactorUser.uuid)!.emailCodeAttempts).toBeNull();
  });

  it('counts tries: past 5 even the right code is refused, a new code does not reset it, the window ends', async () => {
    tick(21 * 60); // past the per-uuid throttle of the tests above
    await b.send('/api/users/@me/', 'PATCH', { email: 'max@example.org' });
    const uuid = sb.outbox.at(-1)!.uuid!;
    for (let i = 0; i < 5; i++) expect((await verify({ uuid, code: wrong() })).json()).toEqual(invalidCode);
    expect((await verify({ uuid, code: lastCode() })).json()).toEqual(tooMany);
    tick(21 * 60);
    expect((await requestCode(uuid)).json()).toEqual({ success: true });
    expect((await verify({ uuid, code: lastCode() })).json()).toEqual(tooMany);
    tick(10 * 60); // 31 minutes after the first try: the count is gone, the 10-minute-old code is not
    expect((await verify({ uuid, code: lastCode() })).json()).toEqual({ success: true });
    sb.identity.byEmail('max@example.org')!.user.email = 'sandbox@example.com';
  });

  it('a code expires after 30 minutes, proves only its own address, and dies when replaced', async () => {
    tick(21 * 60);
    await b.send('/api/users/@me/', 'PATCH', { email: 'one@example.org' });
    const uuid = sb.outbox.at(-1)!.uuid!;
    const first = lastCode();
    tick(30 * 60 + 1);
    expect((await verify({ uuid, code: first })).json()).toEqual(invalidCode);

    expect((await requestCode(uuid)).json()).toEqual({ success: true });
    const forOne = lastCode();
    // Another change staged since: the code for one@ does not prove two@.
    tick(1);
    await b.send('/api/users/@me/', 'PATCH', { email: 'two@example.org' });
    const forTwo = lastCode();
    if (forOne !== forTwo) expect((await verify({ uuid, code: forOne })).json()).toEqual(invalidCode);
    expect((await verify({ uuid, code: forTwo })).json()).toEqual({ success: true });
    expect(sb.identity.byUuid(uuid)!.user.email).toBe('two@example.org');
    sb.identity.byUuid(uuid)!.user.email = 'sandbox@example.com';
  });

  it('request_email_verification: success for unknown uuids, already_verified with nothing to verify, 6 a day', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const before = sb.outbox.length;
    expect((await requestCode(unknown)).json()).toEqual({ success: true });
    expect(sb.outbox.length).toBe(before);
    expect((await requestCode(sb.twoFactorUser.uuid)).json()).toEqual(
      errorBody('validation_error', 'already_verified', 'Email is already verified.'),
    );
    expect(sb.outbox.length).toBe(before);
    for (let i = 0; i < 5; i++) expect((await requestCode(unknown)).status).toBe(200);
    const limited = await requestCode(unknown);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe(String(24 * 3600));
  });

  it('older servers: mail a link, and verify_email takes its token once', async () => {
    sb.identity.linkVerification = true;
    try {
      tick(21 * 60);
      // Two hours have passed since the sign-in of beforeAll: changing the e-mail needs a fresh one.
      expect((await b.login('sandbox@example.com', 'correct horse battery')).status).toBe(200);
      await b.send('/api/users/@me/', 'PATCH', { email: 'sandy@example.net' });
      const mail = sb.outbox.at(-1)!;
      expect(mail).toMatchObject({ kind: 'email_verification', to: 'sandy@example.net' });
      expect(mail.link).toBe(`${sb.url}/verify_email/${mail.uuid}/${mail.token}`);
      expect((await call(sb, '/_sandbox/outbox', { key: null })).json().at(-1).link).toBe(mail.link);
      expect((await verify({ uuid: mail.uuid, code: '123456' })).json()).toEqual(
        errorBody('validation_error', 'required', 'This field is required.', 'token'),
      );
      const verified = await verify({ uuid: mail.uuid, token: mail.token });
      expect(verified.json()).toEqual({ success: true, token: mail.token });
      expect((await verify({ uuid: mail.uuid, token: mail.token })).json()).toEqual(
        errorBody('validation_error', 'invalid_token', 'This verification token is invalid or has expired.', 'token'),
      );
      sb.identity.byEmail('sandy@example.net')!.user.email = 'sandbox@example.com';
    } finally {
      sb.identity.linkVerification = false;
    }
  });

  it('cancels a pending change, and says when there is none', async () => {
    const none = await b.send('/api/users/cancel_email_change_request/', 'PATCH');
    expect(none.json()).toEqual(errorBody('validation_error', 'email_change_request_not_found', 'No active email change requests found.'));
    await b.send('/api/users/@me/', 'PATCH', { email: 'elsewhere@example.org' });
    const cancelled = await b.send('/api/users/cancel_email_change_request/', 'PATCH');
    expect(cancelled.status).toBe(200);
    expect(cancelled.json()).toMatchObject({ email: 'sandbox@example.com', pending_email: null });
  });

  it('ages sessions through /_sandbox/sessions/age/<seconds>', async () => {
    const reply = await call(sb, '/_sandbox/sessions/age/7201', { method: 'POST', key: null });
    expect(reply.json().sessions).toBeGreaterThan(0);
    expect((await b.send('/api/users/@me/', 'PATCH', { first_name: 'Late' })).json().code).toBe('sensitive_action_required_reauth');
  });
});

describe('web throttles for sessions (docs/server-contract.md §5)', () => {
  it('count a session against the persons web limits, per user', async () => {
    const b = new Browser();
    expect((await b.login('sandbox@example.com', 'correct horse battery')).status).toBe(200);
    sb.setRateLimit('web=2/min');
    try {
      expect((await b.send('/api/projects/1/persons/')).status).toBe(200);
      expect((await b.send('/api/projects/1/persons/')).status).toBe(200);
      const third = await b.send('/api/projects/1/persons/');
      expect(third.status).toBe(429);
      expect(third.json().code).toBe('throttled');
      // The personal API key has its own budget.
      expect((await call(sb, '/api/projects/1/persons/')).status).toBe(200);
    } finally {
      sb.setRateLimit(undefined);
    }
  });
});
