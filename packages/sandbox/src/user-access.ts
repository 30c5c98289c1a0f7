// The permission rules every /api/users/ view shares (docs/server-contract.md §3.5, §9): which user a
// request addresses, and TimeSensitiveActionPermission's 2-hour window for sessions.

import type { RequestContext, Services } from './context.js';
import { notFound, permissionDenied } from './errors.js';
import type { Account } from './identity.js';
import { isUuid } from './store.js';

/** SESSION_SENSITIVE_ACTIONS_AGE */
export const SENSITIVE_ACTIONS_AGE_MS = 2 * 3600 * 1000;
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A session's unsafe request needs a sign-in within 2 hours; keys are not affected. */
export function requireRecentLogin(ctx: RequestContext, app: Services): void {
  const principal = ctx.principal;
  if (principal?.kind !== 'session' || SAFE.has(ctx.method)) return;
  const session = app.identity.sessions.get(principal.sessionId);
  if (!session?.loginAt || app.now() - session.loginAt > SENSITIVE_ACTIONS_AGE_MS) {
    // Older servers, before the code existed, sent only the detail (docs/server-contract.md §11.6).
    throw permissionDenied(
      'This action requires you to be recently authenticated.',
      app.identity.olderReauth ? undefined : 'sensitive_action_required_reauth',
    );
  }
}

/** UserViewSet.get_object: `@me` or your own uuid; another user's only for staff. */
export function targetAccount(ctx: RequestContext, app: Services): Account {
  const caller = ctx.principal!.user;
  const wanted = ctx.params.uuid;
  if (wanted === '@me' || wanted === caller.uuid) return app.identity.account(caller);
  if (!caller.isStaff) throw permissionDenied("As a non-staff user you're only allowed to access the `@me` user instance.");
  const account = isUuid(wanted) ? app.identity.byUuid(wanted) : undefined;
  if (!account) throw notFound();
  return account;
}
