// The session-only user actions (docs/server-contract.md §10): 2FA setup, validation, status, backup
// codes and disabling, and the e-mail actions: verify_email and request_email_verification
// (AllowAny; the e-mailed code of posthog/api/email_verification.py, or the link of older servers)
// and cancel_email_change_request. None has a scope mapping, so personal API keys get
// 403 from the permission layer; unsafe methods of a session need a sign-in within 2 hours.

import { randomUUID } from 'node:crypto';
import type { Handler, RequestContext, Services } from '../context.js';
import { json } from '../context.js';
import { ErrorResponse, fieldError, serverError, validationError } from '../errors.js';
import { requireRecentLogin, targetAccount } from '../user-access.js';
import type { Router } from '../router.js';
import { newBackupCodes, newTotpSecret, verifyTotp } from '../totp.js';
import { EMAIL_CODE_MAX_ATTEMPTS } from '../identity.js';
import { signIn } from '../sign-in.js';
import { serializeUser } from '../user-format.js';

/** How long the two_factor_start_setup key stays in the session. */
export const TWO_FACTOR_SETUP_MS = 10 * 60 * 1000;

function session(ctx: RequestContext, app: Services) {
  const principal = ctx.principal;
  return principal?.kind === 'session' ? app.identity.sessions.get(principal.sessionId) : undefined;
}

function data(ctx: RequestContext): Record<string, unknown> {
  const value = ctx.data();
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

const startSetup: Handler = (ctx, app) => {
  targetAccount(ctx, app);
  const s = session(ctx, app);
  if (!s) throw serverError();
  s.twoFactorSetup = { secret: newTotpSecret(), at: app.now() };
  return json(200, { success: true, secret: s.twoFactorSetup.secret });
};

const validate: Handler = (ctx, app) => {
  requireRecentLogin(ctx, app);
  const account = targetAccount(ctx, app);
  const s = session(ctx, app);
  const setup = s?.twoFactorSetup;
  if (!setup || app.now() > setup.at + TWO_FACTOR_SETUP_MS) {
    throw validationError('2FA setup session expired. Please start setup again.', 'setup_expired');
  }
  const body = data(ctx);
  // request.data["token"] without a default: a KeyError, so a 500.
  if (body.token === undefined || body.token === null) throw serverError();
  const step = verifyTotp(setup.secret, String(body.token).trim(), app.now());
  if (step === null) throw validationError('Token is not valid', 'token_invalid');
  account.totp = { secret: setup.secret, lastStep: step, persistentId: randomUUID() };
  s!.twoFactorSetup = null;
  app.identity.send({
    to: account.user.email,
    subject: 'Two-factor authentication enabled',
    text: 'Two-factor authentication was switched on for your account.',
    kind: '2fa_enabled',
  });
  return json(200, { success: true });
};

const status: Handler = (ctx, app) => {
  const account = targetAccount(ctx, app);
  const enabled = account.totp !== null;
  return json(200, { is_enabled: enabled, backup_codes: enabled ? [...account.backupCodes] : [], method: enabled ? 'TOTP' : null });
};

const backupCodes: Handler = (ctx, app) => {
  requireRecentLogin(ctx, app);
  const account = targetAccount(ctx, app);
  if (!account.totp) throw validationError('2FA must be enabled first', '2fa_not_enabled');
  account.backupCodes = newBackupCodes();
  return json(200, { backup_codes: [...account.backupCodes] });
};

const disable: Handler = (ctx, app) => {
  requireRecentLogin(ctx, app);
  const account = targetAccount(ctx, app);
  account.totp = null;
  account.backupCodes = [];
  app.identity.send({
    to: account.user.email,
    subject: 'Two-factor authentication disabled',
    text: 'Two-factor authentication was switched off for your account.',
    kind: '2fa_disabled',
  });
  return json(200, { success: true });
};

/** A required serializer string field: DRF's `required`, `null` and `blank` errors. */
function requiredText(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (value === undefined) throw fieldError(field, 'required', 'This field is required.');
  if (value === null) throw fieldError(field, 'null', 'This field may not be null.');
  const text = String(value).trim();
  if (text === '') throw fieldError(field, 'blank', 'This field may not be blank.');
  return text;
}

/**
 * normalize_verification_code: spaces, invisible characters and grouping hyphens go, and other
 * scripts' digits fold to ASCII, before the code must be exactly six digits.
 */
function normalizeCode(raw: string): string {
  return raw.normalize('NFKC').replace(/[\s\u200b-\u200d\u2060\ufeff\u00ad\u2010-\u2015\u2212-]/gu, '');
}

/**
 * verify_email on current servers (posthog/api/user.py, PostHog/posthog#86493 and #90177): `{uuid,
 * code}` with the 6-digit code mailed by EmailVerificationCodeVerifier. Unknown users answer like
 * a wrong code; an account with nothing to verify answers success (a repeated submit), without a
 * session. Every try counts against the attempt window, and past it even the right code is
 * refused, but the code stays alive so that a stranger with the uuid cannot destroy it.
 */
const verifyEmail: Handler = (ctx, app) => {
  const id = app.identity;
  const body = data(ctx);
  if (id.linkVerification) return verifyEmailWithToken(ctx, app, body);
  // The throttles run before the view: UserVerifyEmailThrottle counts per uuid.
  id.throttleVerification('verify', String(body.uuid ?? ''));
  const uuid = requiredText(body, 'uuid');
  const code = normalizeCode(requiredText(body, 'code'));
  if (!/^\d{6}$/.test(code)) throw fieldError('code', 'invalid_input', 'Enter the 6-digit code from your email.');
  const account = id.byUuid(uuid);
  const live = account && account.user.isActive ? account : undefined;
  if (live && live.emailVerified === true && !live.pendingEmail) return json(200, { success: true, requires_login: true });
  const invalid = () => fieldError('code', 'invalid_code', 'This code is invalid or has expired.');
  if (!live) throw invalid();
  if (id.reserveVerificationAttempt(live) > EMAIL_CODE_MAX_ATTEMPTS)
    throw fieldError('code', 'too_many_attempts', 'Too many incorrect attempts. Try again later.');
  if (!id.checkVerificationCode(live, code)) throw invalid();
  id.invalidateVerificationCode(live);
  // An unverified account's code proves its own address; its staged change stays pending.
  if (live.pendingEmail && live.emailVerified !== false) {
    const owner = id.byEmail(live.pendingEmail);
    if (owner && owner !== live)
      throw fieldError(
        'email',
        'email_taken',
        'Another account now uses this email address. Start the change again with a different address.',
      );
    live.user.email = live.pendingEmail;
    live.pendingEmail = null;
  }
  live.emailVerified = true;
  if (live.totp) return json(200, { success: true, requires_2fa: true });
  const cookies = signIn(ctx, app, live);
  return { ...json(200, { success: true }), headers: { 'Content-Type': 'application/json', 'Set-Cookie': cookies } };
};

/** verify_email on servers before PostHog/posthog#86493: `{uuid, token}` from the mailed link. */
function verifyEmailWithToken(ctx: RequestContext, app: Services, body: Record<string, unknown>) {
  if (body.token === undefined || body.token === null || body.token === '')
    throw fieldError('token', 'required', 'This field is required.');
  // request.data["uuid"] without a default: a KeyError, so a 500.
  if (body.uuid === undefined || body.uuid === null) throw serverError();
  const uuid = String(body.uuid);
  app.identity.throttleVerification('verify', uuid);
  const account = app.identity.byUuid(uuid);
  const token = String(body.token);
  if (!account || !app.identity.checkEmailToken(account, token)) {
    throw fieldError('token', 'invalid_token', 'This verification token is invalid or has expired.');
  }
  if (account.pendingEmail) {
    account.user.email = account.pendingEmail;
    account.pendingEmail = null;
  }
  account.emailVerified = true;
  const cookies = signIn(ctx, app, account);
  return { ...json(200, { success: true, token }), headers: { 'Content-Type': 'application/json', 'Set-Cookie': cookies } };
}

/**
 * request_email_verification: a new code (older servers: a link) for the uuid, and the same answer
 * for unknown uuids. Current servers refuse an account with nothing to verify.
 */
const requestEmailVerification: Handler = (ctx, app) => {
  const body = data(ctx);
  if (body.uuid === undefined || body.uuid === null) throw serverError();
  const uuid = String(body.uuid);
  app.identity.throttleVerification('request', uuid);
  // Unknown uuids get the same answer, so the endpoint tells nobody which accounts exist.
  const account = app.identity.byUuid(uuid);
  if (account) {
    if (!app.identity.linkVerification && account.emailVerified === true && !account.pendingEmail)
      throw validationError('Email is already verified.', 'already_verified');
    app.identity.sendVerification(account);
  }
  return json(200, { success: true });
};

const cancelEmailChange: Handler = (ctx, app) => {
  requireRecentLogin(ctx, app);
  const account = app.identity.account(ctx.principal!.user);
  if (!account.pendingEmail)
    throw new ErrorResponse(400, {
      type: 'validation_error',
      code: 'email_change_request_not_found',
      detail: 'No active email change requests found.',
      attr: null,
    });
  account.pendingEmail = null;
  // The code for the dropped address can no longer match; its state goes too.
  app.identity.invalidateVerificationCode(account);
  return json(200, serializeUser(account.user, app, ctx));
};

function detailAction(router: Router, name: string, method: 'GET' | 'POST', handler: Handler): void {
  router.add({
    pattern: `/api/users/:uuid/${name}`,
    scopeObject: 'user',
    detail: true,
    throttle: () => null,
    methods: { [method]: { action: name, handler, requiredScopes: null } },
  });
}

export function registerUserSecurityRoutes(router: Router): void {
  detailAction(router, 'two_factor_start_setup', 'GET', startSetup);
  detailAction(router, 'start_2fa_setup', 'GET', startSetup);
  detailAction(router, 'two_factor_validate', 'POST', validate);
  detailAction(router, 'validate_2fa', 'POST', validate);
  detailAction(router, 'two_factor_status', 'GET', status);
  detailAction(router, 'two_factor_backup_codes', 'POST', backupCodes);
  detailAction(router, 'two_factor_disable', 'POST', disable);
  router.add({
    pattern: '/api/users/verify_email',
    scopeObject: 'user',
    detail: false,
    requiresAuth: false,
    throttle: () => null,
    methods: { POST: { action: 'verify_email', handler: verifyEmail, requiredScopes: null } },
  });
  router.add({
    pattern: '/api/users/request_email_verification',
    scopeObject: 'user',
    detail: false,
    requiresAuth: false,
    throttle: () => null,
    methods: { POST: { action: 'request_email_verification', handler: requestEmailVerification, requiredScopes: null } },
  });
  router.add({
    pattern: '/api/users/cancel_email_change_request',
    scopeObject: 'user',
    detail: false,
    throttle: () => null,
    methods: { PATCH: { action: 'cancel_email_change_request', handler: cancelEmailChange, requiredScopes: null } },
  });
}
