// The credentials a users write goes with: the signed-in user's. The API key is used only when it
// is that same user's (its writes are not held to PostHog's 2-hour re-authentication rule for
// sessions); a key of another user would change the wrong account.
import type { Context } from '../../../context.js';
import type { ApiClient } from '../../../http/client.js';
import { getUser } from '../../../api/users.js';

export async function signedInClient(ctx: Context): Promise<ApiClient> {
  const jar = await ctx.sessionJar();
  if (jar.state !== 'active') return ctx.api({ auth: 'prefer-key' });
  if ((await ctx.settings()).apiKey && jar.user) {
    const keyed = await ctx.api();
    // A key that may not read its user (no user:read) cannot be shown to be the session's.
    const keyUser = await getUser(keyed, '@me').catch(() => undefined);
    if (keyUser?.uuid === jar.user.uuid) return keyed;
  }
  return ctx.api({ auth: 'session' });
}
