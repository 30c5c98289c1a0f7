// The session-only user actions (docs/server-contract.md §10): 2FA setup, validation, status, backup
// codes and disabling, and the e-mail actions: verify_email and request_email_verification
// (AllowAny) and cancel_email_change_request. None has a scope mapping, so personal API keys get
// 403 from the permission layer; unsafe methods of a session need a sign-in within 2 hours.

import { randomUUID } from 'node:crypto';
import type { Handler, RequestContext, Services } from '../context.js';
import { json } from '../context.js';
import { ErrorResponse, fieldError, serverError, validationError } from '../errors.js';
import { requireRecentLogin, targetAccount } from '../user-access.js';
import type { Router } from '../router.js';
import { newBackupCodes, newTotpSecret, verifyTotp } from '../totp.js';
import { signIn } from './login.js';
import { serializeUser } from './users.js';

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

const verifyEmail: Handler = (ctx, app) => {
  const body = data(ctx);
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
};

const requestEmailVerification: Handler = (ctx, app) => {
  const body = data(ctx);
  if (body.uuid === undefined || body.uuid === null) throw serverError();
  const uuid = String(body.uuid);
  app.identity.throttleVerification('request', uuid);
  // Unknown uuids get the same answer, so the endpoint tells nobody which accounts exist.
  const account = app.identity.byUuid(uuid);
  if (account) app.identity.sendVerification(account);
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
