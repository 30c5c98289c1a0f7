import { Command } from 'commander';
import type { Context } from '../../../context.js';
import { withContext } from '../../../cli/with-context.js';
import { examples } from '../../../cli/help-text.js';
import { confirmOrRefuse } from '../../../cli/confirm.js';
import { unconfirmed } from '../../persons/shared/unconfirmed.js';
import * as api from '../../../api/users.js';

export interface TwoFactorDisableOptions {
  user?: string;
  yes?: boolean;
}

export function twoFactorDisableCommand(): Command {
  return new Command('disable')
    .summary('turn 2FA off (asks you to type the e-mail of the account)')
    .description(
      'Turn 2FA off for a user: the authenticator app and the backup codes stop working, and signing in needs only the password. ' +
        'On a terminal you confirm by typing the e-mail of the account; off a terminal pass --yes. Needs a signed-in session (`hogctl auth login`).',
    )
    .option('--user <uuid>', 'the user (default: @me, yourself)', '@me')
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', examples('hogctl users 2fa disable', 'hogctl users 2fa disable --yes'))
    .action(withContext(twoFactorDisableRun));
}

export async function twoFactorDisableRun(ctx: Context, options: TwoFactorDisableOptions): Promise<void> {
  const user = api.checkUserId(options.user);
  const client = await ctx.api({ auth: 'session' });
  const settings = await ctx.settings();
  const [{ email }, status] = await Promise.all([api.getUser(client, user), api.twoFactorStatus(client, user)]);
  if (!status.is_enabled) {
    ctx.info(`2FA is already off for ${email}; nothing to do`);
    return;
  }
  await confirmOrRefuse(ctx, {
    yes: options.yes,
    summary: `2FA will be turned off for ${email} on ${client.origin} (${ctx.sessionLabel(settings)}): signing in will need only the password, and the backup codes stop working.`,
    question: 'Turn 2FA off?',
    typeToConfirm: email,
  });
  await unconfirmed(
    `turning 2FA off for ${email}`,
    'check with `hogctl users 2fa status`, and run the command again if 2FA is still on',
    () => api.twoFactorDisable(client, user),
  );
  ctx.info(`✔ 2FA is off for ${email}`);
}
