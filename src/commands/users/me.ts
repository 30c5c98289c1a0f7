import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { getUser } from '../../api/users.js';
import { writeUser } from './shared/write-user.js';

export function usersMeCommand(): Command {
  return new Command('me')
    .summary('show the signed-in user')
    .description(
      'Show the user behind the credentials: the signed-in session (`hogctl auth login`) when the profile has one, else the personal API key (which needs the user:read scope). ' +
        'A terminal shows a summary; -o json shows every field.',
    )
    .addHelpText(
      'after',
      examples('hogctl users me', 'hogctl users me -o json', 'hogctl users me --fields email,is_2fa_enabled,organization.name'),
    )
    .action(withContext(usersMeRun));
}

export async function usersMeRun(ctx: Context): Promise<void> {
  // The session first, as the help says: a profile signed in as one user with the key of another
  // means the person at the keyboard is the signed-in one.
  const user = await getUser(await ctx.api({ auth: 'prefer-session' }), '@me');
  await writeUser(ctx, user);
}
