import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, withContext } from '../with-context.js';

export function authLogoutCommand(): Command {
  return new Command('logout')
    .summary('forget the signed-in session of the profile')
    .description(
      'Delete the session file of the profile, with its cookies (the 2FA remember cookie too, so the next sign-in asks for a code). ' +
        'The API key of the profile is kept; `hogctl profile remove` deletes that.',
    )
    .addHelpText('after', examples('hogctl auth logout', 'hogctl auth logout --profile prod'))
    .action(withContext(authLogoutRun));
}

export async function authLogoutRun(ctx: Context): Promise<void> {
  const settings = await ctx.settings();
  const jar = await ctx.sessionJar();
  const label = ctx.sessionLabel(settings);
  const who = jar.user ? ` (${jar.user.email} on ${jar.origin})` : '';
  if (!jar.delete()) {
    ctx.info(`not signed in (${label}); nothing to forget`);
    return;
  }
  ctx.info(`✔ signed out: forgot the session of ${label}${who}`);
}
