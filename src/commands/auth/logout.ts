import { Command } from 'commander';
import type { Context } from '../../context.js';
import { CliError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { sessionCredentials } from '../../http/session-credentials.js';

export interface AuthLogoutOptions {
  forget?: boolean;
}

export function authLogoutCommand(): Command {
  return new Command('logout')
    .summary('end the signed-in session of the profile, on the server and here')
    .description(
      'End the session on the server (POST /logout, as the web app does: deleting the cookies alone would leave it valid for up to 14 days), then delete its cookies here. ' +
        'The remember cookie is kept, as a browser keeps it, so the next sign-in skips 2FA or the e-mailed code; --forget drops it too. ' +
        'When the server cannot be reached the cookies are deleted all the same, and hogctl says the server session may stay valid until it expires. ' +
        'The API key of the profile is kept; `hogctl profile remove` deletes that.',
    )
    .option('--forget', 'also drop the remember cookie: the next sign-in asks for 2FA or an e-mailed code again')
    .addHelpText('after', examples('hogctl auth logout', 'hogctl auth logout --profile prod --forget'))
    .action(withContext(authLogoutRun));
}

export async function authLogoutRun(ctx: Context, options: AuthLogoutOptions = {}): Promise<void> {
  const settings = await ctx.settings();
  const jar = await ctx.sessionJar();
  const label = ctx.sessionLabel(settings);
  const who = jar.user ? ` (${jar.user.email} on ${jar.origin})` : '';
  if (!jar.exists) {
    ctx.info(`not signed in (${label}); nothing to forget`);
    return;
  }
  let ended = 'the session had expired here';
  if (jar.state === 'active' || jar.state === 'awaiting_code') {
    const client = await ctx.client(settings, sessionCredentials(jar, { autosave: false, label }));
    try {
      // Django's logout answers with a redirect to the login page; that is its success.
      await client.request({
        method: 'POST',
        path: '/logout',
        returnRedirects: true,
        acceptStatus: (s) => s >= 300 && s < 400,
        retry: { maxRetries: 0 },
      });
      ended = 'ended the session on the server';
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      ctx.warn(`could not end the session on the server (${err.message}): it may stay valid there until it expires (up to 14 days)`);
      ended = 'the server session may stay valid until it expires';
    }
  }
  if (options.forget) jar.delete();
  else {
    jar.forgetSession();
    if (jar.hasCookies) jar.save();
    else jar.delete();
  }
  ctx.info(
    `✔ signed out${who}: ${ended}; deleted the session cookies of ${label}${options.forget || !jar.hasCookies ? '' : ' (kept the remember cookie: --forget drops it)'}`,
  );
}
