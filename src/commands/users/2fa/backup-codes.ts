import { Command } from 'commander';
import type { Context } from '../../../context.js';
import { withContext } from '../../../cli/with-context.js';
import { examples } from '../../../cli/help-text.js';
import { ApiError } from '../../../errors.js';
import { confirmOrRefuse } from '../../../cli/confirm.js';
import { writeBackupCodes } from './shared/show-codes.js';
import { unconfirmed } from '../../persons/shared/unconfirmed.js';
import * as api from '../../../api/users.js';

export interface TwoFactorBackupCodesOptions {
  user?: string;
  yes?: boolean;
}

export function twoFactorBackupCodesCommand(): Command {
  return new Command('backup-codes')
    .summary('make five new backup codes (the old ones stop working)')
    .description(
      'Replace the backup codes of a user with five new ones and print them once. Each signs in once in place of a 2FA code. ' +
        'The current codes stop working, so this asks first (pass --yes off a terminal). Needs a signed-in session (`hogctl auth login`).',
    )
    .option('--user <uuid>', 'the user (default: @me, yourself)', '@me')
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', examples('hogctl users 2fa backup-codes', 'hogctl users 2fa backup-codes --yes -o json > codes.json'))
    .action(withContext(twoFactorBackupCodesRun));
}

export async function twoFactorBackupCodesRun(ctx: Context, options: TwoFactorBackupCodesOptions): Promise<void> {
  const user = api.checkUserId(options.user);
  const client = await ctx.api({ auth: 'session' });
  const settings = await ctx.settings();
  const [{ email }, status] = await Promise.all([api.getUser(client, user), api.twoFactorStatus(client, user)]);
  const notEnabled = (status: number, server: { code?: string; detail?: string }) =>
    new ApiError(`2FA is off for ${email}, so it has no backup codes`, status, server, 'turn 2FA on first: `hogctl users 2fa enable`');
  if (!status.is_enabled) throw notEnabled(400, { code: '2fa_not_enabled', detail: '2FA must be enabled first' });
  await confirmOrRefuse(ctx, {
    yes: options.yes,
    summary: `New backup codes will be made for ${email} on ${client.origin} (${ctx.sessionLabel(settings)}); the current backup codes stop working.`,
    question: 'Make new backup codes?',
  });
  let codes: string[];
  try {
    // A lost answer may have replaced the codes with ones nobody saw: the old ones then fail too.
    codes = await unconfirmed(
      `the replacement of the backup codes of ${email}`,
      'if it was applied, the old backup codes no longer work and the new ones were never shown: run `hogctl users 2fa backup-codes` again to make and show a new set (`hogctl users 2fa status` shows how many remain)',
      () => api.twoFactorBackupCodes(client, user),
    );
  } catch (err) {
    if (err instanceof ApiError && err.server.code === '2fa_not_enabled') throw notEnabled(err.status, err.server);
    throw err;
  }
  await writeBackupCodes(ctx, codes, { user, email });
}
