// Who ran a bulk job, for its receipt: the user of the API key the run used, by e-mail address,
// so that a receipt handed on names the account that made the changes.
import type { Context } from '../../context.js';
import { getUser } from '../../api/users.js';

/** The key's user's e-mail (GET /api/users/@me/), or null when the key may not read it (no
 * user:read scope) or the server cannot answer: the receipt is written all the same. */
export async function runBy(ctx: Context): Promise<string | null> {
  try {
    return (await getUser(await ctx.api(), '@me')).email;
  } catch {
    return null;
  }
}
