import { Command } from 'commander';
import type { Context } from '../../context.js';
import { ApiError, UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { parseVerificationLink, checkVerification, verifyEmail } from '../../api/email.js';
import { readSecretFromStdin } from '../../io/read-secret.js';

export interface EmailVerifyOptions {
  uuid?: string;
  token?: string;
}

export function emailVerifyCommand(): Command {
  return new Command('verify')
    .summary('verify an e-mail address with the link PostHog mailed')
    .description(
      'Verify an e-mail address (a new account, or a pending change of address) with the link from the verification e-mail: ' +
        '{site}/verify_email/{uuid}/{token}. Give the link, "-" to read it from standard input, or --uuid and --token. Needs no credentials. ' +
        'Each link works once, and stops working when a newer one is sent.',
    )
    .argument('[link]', 'the link from the e-mail, or - to read it from standard input')
    .option('--uuid <uuid>', 'the user uuid (the second-to-last part of the link)')
    .option('--token <token>', 'the token (the last part of the link)')
    .addHelpText(
      'after',
      examples(
        'hogctl email verify https://us.posthog.com/verify_email/0190c0de-.../c5x2ab-3f9e...',
        'pbpaste | hogctl email verify -',
        'hogctl email verify --uuid <uuid> --token <token>',
      ),
    )
    .action(withContext(emailVerifyRun));
}

export async function emailVerifyRun(ctx: Context, options: EmailVerifyOptions, link?: string): Promise<void> {
  const byParts = options.uuid !== undefined || options.token !== undefined;
  if ((link === undefined) === !byParts)
    throw new UsageError(
      'give either the link from the e-mail, or --uuid and --token',
      'e.g. `hogctl email verify "https://us.posthog.com/verify_email/<uuid>/<token>"`',
    );
  if (byParts && (options.uuid === undefined || options.token === undefined))
    throw new UsageError('--uuid and --token go together', 'both are in the link: .../verify_email/<uuid>/<token>');

  let target: { uuid: string; token: string; origin?: string };
  if (link !== undefined) {
    let text = link;
    if (link === '-') {
      text = await readSecretFromStdin(ctx.io.stdin, 'verification link', 'verify -');
    }
    target = parseVerificationLink(text);
  } else {
    target = checkVerification(options.uuid as string, options.token as string);
  }

  const settings = await ctx.settings();
  const site = new URL(settings.baseUrl).origin;
  if (target.origin && target.origin !== site) {
    throw new UsageError(
      `the link is for ${target.origin}, but hogctl is set to ${site}`,
      `pass --base-url ${target.origin}, or --profile with the profile of that site`,
    );
  }
  try {
    await verifyEmail(await ctx.api({ auth: 'none' }), target.uuid, target.token);
  } catch (err) {
    if (err instanceof ApiError && err.server.code === 'invalid_token') {
      throw new ApiError(
        'the verification link is invalid or has expired',
        err.status,
        err.server,
        'each link works once and dies when a newer one is sent or the address changes; get a new one with `hogctl email request-verification`',
      );
    }
    throw err;
  }
  ctx.info(`✔ e-mail address verified for user ${target.uuid}`);
}
