// Users (docs/server-contract.md §9): reading and updating a user. A new e-mail goes to pending_email and
// a verification mail; the 2FA and e-mail actions are in user-security.ts.

import type { Handler } from '../context.js';
import { fieldError } from '../errors.js';
import { render } from '../render.js';
import type { Router } from '../router.js';
import { serializeUser } from '../user-format.js';
import { requireRecentLogin, targetAccount } from '../user-access.js';

const retrieveUser: Handler = (ctx, app) => render(ctx, 200, serializeUser(targetAccount(ctx, app).user, app, ctx));

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
/** Writable UserSerializer fields the sandbox keeps as given, with the type DRF would check. */
const EXTRA_FIELDS: Record<string, 'boolean' | 'string' | 'object' | 'any'> = {
  notification_settings: 'object',
  anonymize_data: 'boolean',
  toolbar_mode: 'string',
  events_column_config: 'object',
  has_seen_product_intro_for: 'object',
  theme_mode: 'string',
  hedgehog_config: 'object',
  role_at_organization: 'string',
};

function text(value: unknown, field: string, max = 150): string {
  if (typeof value !== 'string' && typeof value !== 'number') throw fieldError(field, 'invalid_input', 'Not a valid string.');
  const s = String(value);
  if (s.length > max) throw fieldError(field, 'max_length', `Ensure this field has no more than ${max} characters.`);
  return s;
}

/** PATCH/PUT: names, settings, and a new e-mail that waits in pending_email until verified. */
const updateUser: Handler = (ctx, app) => {
  requireRecentLogin(ctx, app);
  const account = targetAccount(ctx, app);
  const raw = ctx.data();
  const data = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const user = account.user;

  const changes: Array<() => void> = [];
  if ('first_name' in data) {
    const v = text(data.first_name, 'first_name');
    changes.push(() => (user.firstName = v));
  }
  if ('last_name' in data) {
    const v = text(data.last_name, 'last_name');
    changes.push(() => (user.lastName = v));
  }
  for (const [field, kind] of Object.entries(EXTRA_FIELDS)) {
    if (!(field in data)) continue;
    const v = data[field];
    if (kind === 'boolean' && typeof v !== 'boolean') throw fieldError(field, 'invalid_input', 'Must be a valid boolean.');
    if (kind === 'string') text(v, field, 200);
    if (kind === 'object' && (v === null || typeof v !== 'object' || Array.isArray(v)))
      throw fieldError(field, 'invalid_input', 'Value must be valid JSON.');
    changes.push(() => (account.extra[field] = v));
  }
  if ('password' in data) {
    if (data.current_password === undefined) throw fieldError('current_password', 'required', 'This field is required.');
    if (!app.identity.checkPassword(account, String(data.current_password)))
      throw fieldError('current_password', 'invalid_input', 'Your current password is incorrect.');
    const password = text(data.password, 'password', 128);
    if (password.length < 8)
      throw fieldError('password', 'password_too_short', 'This password is too short. It must contain at least 8 characters.');
    changes.push(() => app.identity.setPassword(account, password));
  }
  let verification = false;
  if ('email' in data) {
    const email = text(data.email, 'email', 254).trim();
    if (!EMAIL.test(email)) throw fieldError('email', 'invalid_input', 'Enter a valid email address.');
    const owner = app.identity.byEmail(email);
    if (owner && owner !== account) throw fieldError('email', 'invalid_input', 'There is already an account with this email address.');
    if (email.toLowerCase() !== user.email.toLowerCase()) {
      changes.push(() => (account.pendingEmail = email));
      verification = true;
    }
  }
  for (const change of changes) change();
  // The code is bound to the new address (UserSerializer.update: send_code(target_email=...)).
  if (verification) app.identity.sendVerification(account, account.pendingEmail!);
  return render(ctx, 200, serializeUser(user, app, ctx));
};

export function registerUserRoutes(router: Router): void {
  router.add({
    pattern: '/api/users/:uuid',
    scopeObject: 'user',
    detail: true,
    throttle: () => null,
    methods: {
      GET: { action: 'retrieve', handler: retrieveUser },
      PATCH: { action: 'partial_update', handler: updateUser },
      PUT: { action: 'update', handler: updateUser },
    },
  });
}
