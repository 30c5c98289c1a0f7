// Signing a user in with a session, as Django's login() does after a password, a second factor
// or an e-mailed code (routes/login.ts), or after 2FA is set up (routes/user-security.ts).

import type { RequestContext, Services } from './context.js';
import type { Account } from './identity.js';
import { isSecure, loginCookies, parseCookies, type Session } from './session.js';

/** The session the request's cookie names, if it is live. */
export function currentSession(ctx: RequestContext, app: Services): Session | undefined {
  return app.identity.sessions.get(parseCookies(ctx.headers.cookie).sessionid);
}

/** Django's login(): new session key, CSRF rotated, last_login updated, failures forgiven. */
export function signIn(ctx: RequestContext, app: Services, account: Account): string[] {
  const id = app.identity;
  const session = id.sessions.login(currentSession(ctx, app), account.user.id);
  account.lastLoginAt = app.now();
  id.clearFailures(account.user.email);
  return loginCookies(session, app.now(), isSecure(ctx.headers));
}
