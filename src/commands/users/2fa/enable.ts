import { Command } from 'commander';
import type { Context } from '../../../context.js';
import { ApiError, CliError, UsageError } from '../../../errors.js';
import { withContext } from '../../../cli/with-context.js';
import { examples } from '../../../cli/help-text.js';
import { checkOtpCode } from '../../../cli/otp-code.js';
import { setupText, SECRET_WARNING, SETUP_INTRO, explainValidateError } from './shared/setup.js';
import { writeBackupCodes } from './shared/show-codes.js';
import * as api from '../../../api/users.js';
import { plural } from '../../../io/counts.js';

export interface TwoFactorEnableOptions {
  user?: string;
}

const ATTEMPTS = 3;

export function twoFactorEnableCommand(): Command {
  return new Command('enable')
    .summary('turn 2FA on in one go: QR code, code from the app, backup codes')
    .description(
      'The whole 2FA setup on a terminal: starts the setup, shows the QR code and secret (on stderr), asks for the code your authenticator app shows, ' +
        'turns 2FA on, and prints five new backup codes once on stdout. Needs a signed-in session (`hogctl auth login`). ' +
        'Off a terminal, use `hogctl users 2fa start` and `hogctl users 2fa validate <code>`.',
    )
    .option('--user <uuid>', 'the user (default: @me, yourself)', '@me')
    .addHelpText('after', examples('hogctl users 2fa enable', 'hogctl users 2fa enable > backup-codes.txt'))
    .action(withContext(twoFactorEnableRun));
}

export async function twoFactorEnableRun(ctx: Context, options: TwoFactorEnableOptions): Promise<void> {
  const user = api.checkUserId(options.user);
  const prompter = await ctx.prompter();
  if (!prompter.interactive) {
    throw new UsageError(
      '`hogctl users 2fa enable` asks for a code, so it needs a terminal',
      'off a terminal, run `hogctl users 2fa start`, then `hogctl users 2fa validate <code>` and `hogctl users 2fa backup-codes --yes`',
    );
  }
  const client = await ctx.api({ auth: 'session' });
  const [account, status] = await Promise.all([api.getUser(client, user), api.twoFactorStatus(client, user)]);
  if (status.is_enabled) {
    throw new UsageError(
      `2FA is already on for ${account.email}`,
      'for new backup codes, `hogctl users 2fa backup-codes`; to start over, `hogctl users 2fa disable` first',
    );
  }

  const { secret } = await api.twoFactorStartSetup(client, user);
  // The warning first: the code must be the last thing above the prompt, whole on a 24-line screen.
  ctx.warn(SECRET_WARNING);
  ctx.info(SETUP_INTRO);
  ctx.io.stderr.write(await setupText(account.email, secret, { qr: true, columns: ctx.io.stderr.columns }));
  for (let attempt = 1; ; attempt++) {
    const token = checkOtpCode(await prompter.password('Code from the app (input hidden):'), { backupCodes: false });
    try {
      await api.twoFactorValidate(client, user, token);
      break;
    } catch (err) {
      const explained = explainValidateError(err);
      if (!(err instanceof ApiError) || err.server.code !== 'token_invalid' || attempt >= ATTEMPTS) throw explained;
      ctx.warn(
        `${(explained as Error).message}; try the next code (${ATTEMPTS - attempt} ${plural(ATTEMPTS - attempt, 'try', 'tries')} left)`,
      );
    }
  }
  ctx.info(`✔ 2FA is on for ${account.email}`);

  let codes: string[];
  try {
    codes = await api.twoFactorBackupCodes(client, user);
  } catch (err) {
    const why = err instanceof CliError ? err.message : String(err);
    throw new CliError(`2FA is on, but making backup codes failed: ${why}`, 'make them with `hogctl users 2fa backup-codes`');
  }
  await writeBackupCodes(ctx, codes, { user, email: account.email });
  ctx.info('these codes are shown once; `hogctl users 2fa status --show-backup-codes` lists the unused ones later');
}
