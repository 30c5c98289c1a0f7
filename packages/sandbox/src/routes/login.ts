// Signing in with a session (docs/server-contract.md §11.1, §11.2, §11.5): the password step
// `POST /api/login/`, the second factor `POST /api/login/token/`, and for accounts without TOTP
// the e-mailed code (`POST /api/login/code-based-verification/` and `.../resend/`, from
// PostHog/posthog posthog/api/test/test_code_based_verification.py), with PostHog's answers for
// every outcome, django-axes lockout, the 600-second window for the code, django-otp's
// throttling and the remember cookie that lets a later password step skip 2FA or the code.

import type { Handler, RequestContext, SandboxResponse, Services } from '../context.js';
import { json } from '../context.js';
import { ErrorResponse, serverError, throttled, validationError, fieldError } from '../errors.js';
import type { Identity, Account } from '../identity.js';
import type { Router } from '../router.js';
import { isSecure, parseCookies, sessionCookie, setCookie } from '../session.js';
import { currentSession, signIn } from '../sign-in.js';
import { verifyTotp } from '../totp.js';

/** TWO_FACTOR_LOGIN_TIMEOUT */
export const TWO_FACTOR_LOGIN_TIMEOUT_MS = 600 * 1000;
/** The e-mailed sign-in code's lifetime: 10 minutes. */
export const LOGIN_CODE_TTL_MS = 10 * 60 * 1000;
/** CODE_MAX_ATTEMPTS (posthog/helpers/two_factor_session.py) [I: the value]. */
export const CODE_MAX_ATTEMPTS = 5;
/** A new code at most once a minute. */
export const LOGIN_CODE_RESEND_MS = 60 * 1000;
/** TWO_FACTOR_REMEMBER_COOKIE_AGE: 30 days. */
export const REMEMBER_COOKIE_AGE_MS = 30 * 24 * 3600 * 1000;
export const REMEMBER_COOKIE_PREFIX = 'remember-cookie_';

function identity(app: Services): Identity {
  return app.identity;
}

function body(ctx: RequestContext): Record<string, unknown> {
  const data = ctx.data();
  return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

function requiredString(data: Record<string, unknown>, field: string): string {
  const value = data[field];
  if (value === undefined || value === null)
    throw fieldError(
      field,
      value === null ? 'null' : 'required',
      value === null ? 'This field may not be null.' : 'This field is required.',
    );
  const text = String(value);
  if (text.trim() === '') throw fieldError(field, 'blank', 'This field may not be blank.');
  return text;
}

function twoFactorRequired(cookies: string[]): SandboxResponse {
  return {
    ...json(401, { type: 'authentication_error', code: '2fa_required', detail: '2FA is required.', attr: null }),
    headers: { 'Content-Type': 'application/json', 'Set-Cookie': cookies },
  };
}

function withCookies(response: SandboxResponse, cookies: string[]): SandboxResponse {
  return { ...response, headers: { ...response.headers, 'Set-Cookie': cookies } };
}

function hasValidRememberCookie(ctx: RequestContext, app: Services, account: Account): boolean {
  for (const [name, value] of Object.entries(parseCookies(ctx.headers.cookie))) {
    if (name.startsWith(REMEMBER_COOKIE_PREFIX) && value && identity(app).checkRemember(account, value, REMEMBER_COOKIE_AGE_MS))
      return true;
  }
  return false;
}

const login: Handler = (ctx, app) => {
  const id = identity(app);
  const data = body(ctx);
  const email = requiredString(data, 'email');
  const password = requiredString(data, 'password');

  const minutes = id.lockedOutFor(email);
  if (minutes !== null) {
    throw new ErrorResponse(403, {
      type: 'authentication_error',
      code: 'too_many_failed_attempts',
      detail: `Too many failed login attempts. Please try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`,
      attr: null,
    });
  }
  const account = id.byEmail(email);
  if (!account || !account.user.isActive || !id.checkPassword(account, password)) {
    id.recordFailure(email);
    throw validationError('Invalid email or password.', 'invalid_credentials');
  }
  if (account.emailVerified === false) {
    id.sendVerification(account);
    throw validationError('Your account is awaiting verification. Please check your email for a verification link.', 'not_verified');
  }
  if (account.totp && !hasValidRememberCookie(ctx, app, account)) {
    // The pending login lives in an anonymous session whose cookie the client must keep.
    const session = currentSession(ctx, app) ?? id.sessions.create();
    session.userId = null;
    session.loginAt = null;
    session.pendingTwoFactor = { userId: account.user.id, at: app.now() };
    return twoFactorRequired([sessionCookie(session, app.now(), isSecure(ctx.headers))]);
  }
  if (!account.totp && account.codeVerification && !hasValidRememberCookie(ctx, app, account)) {
    // Like the 2FA step, the pending sign-in lives in an anonymous session; the code is mailed on
    // every password attempt.
    const session = currentSession(ctx, app) ?? id.sessions.create();
    session.userId = null;
    session.loginAt = null;
    session.pendingCode = { userId: account.user.id, code: id.sendLoginCode(account), sentAt: app.now(), attempts: 0 };
    return {
      ...json(401, { type: 'authentication_error', code: 'code_based_verification_required', detail: account.user.email, attr: null }),
      headers: { 'Content-Type': 'application/json', 'Set-Cookie': [sessionCookie(session, app.now(), isSecure(ctx.headers))] },
    };
  }
  return withCookies(json(200, { success: true }), signIn(ctx, app, account));
};

function rememberCookie(ctx: RequestContext, app: Services, account: Account): string {
  return setCookie(`${REMEMBER_COOKIE_PREFIX}${account.user.uuid.replace(/-/g, '')}`, identity(app).rememberValue(account), {
    maxAgeMs: REMEMBER_COOKIE_AGE_MS,
    now: app.now(),
    httpOnly: true,
    sameSite: 'Strict',
    secure: isSecure(ctx.headers),
  });
}

function codeError(code: string, detail: string): ErrorResponse {
  return validationError(detail, code);
}

const verifyLoginCode: Handler = (ctx, app) => {
  const session = currentSession(ctx, app);
  const pending = session?.pendingCode;
  if (!session || !pending) throw codeError('no_pending_verification', 'There is no pending sign-in to verify. Please log in again.');
  if (pending.attempts >= CODE_MAX_ATTEMPTS) {
    session.pendingCode = null;
    throw codeError('too_many_attempts', 'Too many attempts. Please log in again.');
  }
  const given = String(body(ctx).code ?? '').trim();
  if (given !== pending.code || app.now() > pending.sentAt + LOGIN_CODE_TTL_MS) {
    pending.attempts++;
    throw codeError('invalid_code', 'Invalid or expired code.');
  }
  const account = identity(app).accounts.get(pending.userId)!;
  session.pendingCode = null;
  return withCookies(json(200, { success: true }), [...signIn(ctx, app, account), rememberCookie(ctx, app, account)]);
};

const resendLoginCode: Handler = (ctx, app) => {
  const session = currentSession(ctx, app);
  const pending = session?.pendingCode;
  if (!session || !pending) throw codeError('no_pending_verification', 'There is no pending sign-in to verify. Please log in again.');
  const wait = pending.sentAt + LOGIN_CODE_RESEND_MS - app.now();
  if (wait > 0) throw throttled(wait / 1000);
  const account = identity(app).accounts.get(pending.userId)!;
  // A fresh code supersedes the old one; the attempt count stays.
  pending.code = identity(app).sendLoginCode(account);
  pending.sentAt = app.now();
  return json(200, { success: true });
};

/** django-otp's ThrottlingMixin: after n failures in a row, wait 2^(n-1) seconds. */
function throttledFor(account: Account, now: number): boolean {
  const { count, at } = account.otpFailures;
  return count > 0 && now < at + 2 ** (count - 1) * 1000;
}

const loginToken: Handler = (ctx, app) => {
  const id = identity(app);
  const session = currentSession(ctx, app);
  const pending = session?.pendingTwoFactor;
  // The real view reads the session keys without a default: a KeyError, so a 500.
  if (!session || !pending) throw serverError();
  const data = body(ctx);
  if (data.token === undefined || data.token === null) throw serverError();
  const token = String(data.token).trim();
  if (app.now() > pending.at + TWO_FACTOR_LOGIN_TIMEOUT_MS) {
    throw validationError('Login attempt has expired. Re-enter username/password.', '2fa_expired');
  }
  const account = id.accounts.get(pending.userId);
  if (!account?.totp) throw validationError('Invalid authentication code', '2fa_invalid');
  if (throttledFor(account, app.now())) throw validationError('Too many attempts.', '2fa_too_many_attempts');

  let ok = false;
  const step = verifyTotp(account.totp.secret, token, app.now(), account.totp.lastStep);
  if (step !== null) {
    account.totp.lastStep = step;
    ok = true;
  } else {
    const index = account.backupCodes.indexOf(token.toLowerCase());
    if (index !== -1) {
      account.backupCodes.splice(index, 1);
      ok = true;
      id.send({
        to: account.user.email,
        subject: 'A backup code was used to sign in',
        text: `A backup code was used to sign in to your account. ${account.backupCodes.length} remain.`,
        kind: 'backup_code_used',
      });
    }
  }
  if (!ok) {
    account.otpFailures = { count: account.otpFailures.count + 1, at: app.now() };
    throw validationError('Invalid authentication code', '2fa_invalid');
  }
  account.otpFailures = { count: 0, at: 0 };
  return withCookies(json(200, { success: true }), [...signIn(ctx, app, account), rememberCookie(ctx, app, account)]);
};

/**
 * `POST /logout` (and `/api/logout/`): Django's logout ends the session on the server (the CSRF
 * check of a signed-in session applies) and redirects to the login page. Remember cookies are
 * left alone, so the next sign-in from the same browser skips 2FA or the e-mailed code
 * (test_code_based_verification.py logs out and signs in again without a code).
 */
const logout: Handler = (ctx, app) => {
  if (ctx.principal?.kind === 'session') identity(app).sessions.delete(ctx.principal.sessionId);
  const cleared = setCookie('sessionid', '""', { maxAgeMs: 0, now: app.now(), secure: isSecure(ctx.headers) });
  return { status: 302, headers: { Location: '/login', 'Set-Cookie': [cleared] }, body: '' };
};

export function registerLoginRoutes(router: Router): void {
  for (const pattern of ['/logout', '/api/logout']) {
    router.add({
      pattern,
      scopeObject: 'user',
      detail: false,
      requiresAuth: false,
      throttle: () => null,
      methods: { POST: { action: 'logout', handler: logout, requiredScopes: null } },
    });
  }
  // AllowAny: no credentials needed; a live session still has to pass CSRF (docs/server-contract.md §11.3).
  router.add({
    pattern: '/api/login',
    scopeObject: 'user',
    detail: false,
    requiresAuth: false,
    throttle: () => null,
    methods: { POST: { action: 'create', handler: login, requiredScopes: null } },
  });
  router.add({
    pattern: '/api/login/token',
    scopeObject: 'user',
    detail: false,
    requiresAuth: false,
    throttle: () => null,
    methods: { POST: { action: 'create', handler: loginToken, requiredScopes: null } },
  });
  router.add({
    pattern: '/api/login/code-based-verification',
    scopeObject: 'user',
    detail: false,
    requiresAuth: false,
    throttle: () => null,
    methods: { POST: { action: 'create', handler: verifyLoginCode, requiredScopes: null } },
  });
  router.add({
    pattern: '/api/login/code-based-verification/resend',
    scopeObject: 'user',
    detail: false,
    requiresAuth: false,
    throttle: () => null,
    methods: { POST: { action: 'create', handler: resendLoginCode, requiredScopes: null } },
  });
}
