import { Command } from 'commander';
import type { Context } from '../../../context.js';
import { withContext } from '../../../cli/with-context.js';
import { examples } from '../../../cli/help-text.js';
import { checkOtpCode } from '../../../cli/otp-code.js';
import { checkUserId, twoFactorValidate } from '../../../api/users.js';
import { explainValidateError } from './shared/setup.js';

export interface TwoFactorValidateOptions {
  user?: string;
}

export function twoFactorValidateCommand(): Command {
  return new Command('validate')
    .summary('finish 2FA setup with a code from the authenticator app')
    .description(
      'Turn 2FA on by sending the current code of the secret from `hogctl users 2fa start` (same profile, within 10 minutes). ' +
        'Uses two_factor_validate, or validate_2fa on older servers. Make backup codes next with `hogctl users 2fa backup-codes`.',
    )
    .argument('<code>', 'the 6-digit code your authenticator app shows now')
    .option('--user <uuid>', 'the user (default: @me, yourself)', '@me')
    .addHelpText('after', examples('hogctl users 2fa validate 123456'))
    .action(withContext(twoFactorValidateRun));
}

export async function twoFactorValidateRun(ctx: Context, options: TwoFactorValidateOptions, code: string): Promise<void> {
  const user = checkUserId(options.user);
  const token = checkOtpCode(code, { backupCodes: false });
  try {
    await twoFactorValidate(await ctx.api({ auth: 'session' }), user, token);
  } catch (err) {
    throw explainValidateError(err);
  }
  const email = user === '@me' ? (await ctx.sessionJar()).user?.email : undefined;
  ctx.info(
    `✔ 2FA is on${email ? ` for ${email}` : ''}; make backup codes now with \`hogctl users 2fa backup-codes\`, in case the authenticator app is lost`,
  );
}
