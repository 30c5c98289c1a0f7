import { Command } from 'commander';
import type { Context } from '../../../context.js';
import { withContext } from '../../../cli/with-context.js';
import { examples } from '../../../cli/help-text.js';
import { userName } from '../../../cli/names.js';
import { mark, writeSummary } from '../../../io/summary.js';
import { checkUserId, twoFactorStatus } from '../../../api/users.js';
import { writeBackupCodes } from './shared/show-codes.js';
import { plural } from '../../../io/counts.js';

export interface TwoFactorStatusOptions {
  user?: string;
  showBackupCodes?: boolean;
}

export function twoFactorStatusCommand(): Command {
  return new Command('status')
    .summary('show whether 2FA is on, its method, and how many backup codes remain')
    .description(
      'Show the 2FA state of a user: on or off, the method (TOTP), and how many unused backup codes remain. The codes themselves only with --show-backup-codes. Needs a signed-in session (`hogctl auth login`).',
    )
    .option('--user <uuid>', 'the user (default: @me, yourself)', '@me')
    .option('--show-backup-codes', 'also print the unused backup codes (secrets: a warning goes to stderr)')
    .addHelpText(
      'after',
      examples('hogctl users 2fa status', 'hogctl users 2fa status -o json', 'hogctl users 2fa status --show-backup-codes'),
    )
    .action(withContext(twoFactorStatusRun));
}

export async function twoFactorStatusRun(ctx: Context, options: TwoFactorStatusOptions): Promise<void> {
  const user = checkUserId(options.user);
  const status = await twoFactorStatus(await ctx.api({ auth: 'session' }), user);
  const record: Record<string, unknown> = {
    user,
    enabled: status.is_enabled,
    method: status.method,
    backup_codes_remaining: status.backup_codes.length,
  };
  if (options.showBackupCodes) {
    if (status.backup_codes.length === 0)
      ctx.info(
        status.is_enabled
          ? 'no unused backup codes: make new ones with `hogctl users 2fa backup-codes`'
          : '2FA is off, so there are no backup codes',
      );
    else return writeBackupCodes(ctx, status.backup_codes, record);
  }
  const output = await ctx.output();
  // The session is the user these verbs act on; naming its address tells which account that is.
  const email = user === '@me' ? (await ctx.sessionJar()).user?.email : undefined;
  const who = email ? `you (${email})` : userName(user);
  const codes = status.backup_codes.length;
  const summary = status.is_enabled
    ? mark(
        output,
        true,
        `Two-factor authentication is on for ${who} (${status.method ?? 'TOTP'}), ${codes} unused ${plural(codes, 'backup code')}`,
      )
    : mark(output, false, `Two-factor authentication is off for ${who}: turn it on with \`hogctl users 2fa enable\``);
  await writeSummary(output, [summary], record, { columns: Object.keys(record), fields: [...Object.keys(record), 'backup_codes'] });
}
