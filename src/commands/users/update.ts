import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { collect } from '../../cli/flags.js';
import { checkUserId, updateUser } from '../../api/users.js';
import { parseUserFields } from './shared/fields.js';
import { writeUser } from './shared/write-user.js';
import { signedInClient } from './shared/signed-in-client.js';

export interface UsersUpdateOptions {
  user?: string;
  field?: string[];
}

export function usersUpdateCommand(): Command {
  return new Command('update')
    .summary('change fields of a user: names, e-mail, settings')
    .description(
      'Change fields of the user record with PATCH /api/users/<uuid>/. A new e-mail does not apply at once: it waits in pending_email, and PostHog e-mails a 6-digit code (older servers: a link) to the new address ' +
        '(`hogctl email verify <code>` completes it, `hogctl email cancel-change` drops it). Uses the signed-in session when there is one, else the API key (user:write scope). ' +
        'Passwords cannot be changed here: they would have to be flag values.',
    )
    .option('--user <uuid>', 'the user to change (default: @me, yourself; others need staff rights)', '@me')
    .option(
      '-f, --field <key=value>',
      'a field to set, repeatable: first_name, last_name, email, theme_mode, anonymize_data=true, notification_settings={"...": true}, ...',
      collect,
    )
    .addHelpText(
      'after',
      examples(
        'hogctl users update --field first_name=Lee --field last_name=Ng',
        'hogctl users update --field email=lee@new.example.com',
        'hogctl users update --field theme_mode=dark -o json',
      ),
    )
    .action(withContext(usersUpdateRun));
}

export async function usersUpdateRun(ctx: Context, options: UsersUpdateOptions): Promise<void> {
  const user = checkUserId(options.user);
  if (!options.field?.length)
    throw new UsageError('nothing to change: give at least one --field key=value', 'e.g. `hogctl users update --field first_name=Lee`');
  const body = parseUserFields(options.field);
  // The signed-in user's, as `users me` and the `email` verbs: a pending address put on the key's
  // user would not be the one `hogctl email verify` then finds.
  const updated = await updateUser(await signedInClient(ctx), user, body);
  await writeUser(ctx, updated);
  if (typeof body.email === 'string' && updated.pending_email) {
    ctx.info(
      `✔ updated ${updated.email}; ${updated.pending_email} is pending: PostHog e-mailed it a 6-digit verification code, and the address changes once the code is given (\`hogctl email verify <code>\`; \`hogctl email cancel-change\` drops it)`,
    );
  } else {
    ctx.info(`✔ updated ${Object.keys(body).join(', ')} of ${updated.email}`);
  }
}
