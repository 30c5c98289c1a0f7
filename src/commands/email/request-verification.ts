import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { ApiError } from '../../errors.js';
import { requestEmailVerification } from '../../api/email.js';
import { getUser, checkUuid } from '../../api/users.js';

export interface EmailRequestVerificationOptions {
  uuid?: string;
}

export function emailRequestVerificationCommand(): Command {
  return new Command('request-verification')
    .summary('ask PostHog to e-mail a new verification code')
    .description(
      "Ask PostHog to e-mail a new 6-digit verification code (older servers: a link) to the pending address when an e-mail change is waiting, else to the account's address; " +
        'the previous code stops working, and `hogctl email verify` takes the new one. Without --uuid, for the signed-in user ' +
        '(the session, or the API key with user:read). PostHog answers the same for unknown uuids, so success does not prove the user exists; it allows a few requests a day per user, ' +
        'and a new code does not reset the count of wrong tries.',
    )
    .option('--uuid <uuid>', 'the user (default: yourself)')
    .addHelpText(
      'after',
      examples('hogctl email request-verification', 'hogctl email request-verification --uuid 0190c0de-aaaa-7bbb-8ccc-000000000001'),
    )
    .action(withContext(emailRequestVerificationRun));
}

export async function emailRequestVerificationRun(ctx: Context, options: EmailRequestVerificationOptions): Promise<void> {
  let uuid = options.uuid === undefined ? undefined : checkUuid(options.uuid, '--uuid');
  let to = '';
  if (uuid === undefined) {
    const me = await getUser(await ctx.api({ auth: 'prefer-session' }), '@me');
    uuid = me.uuid;
    to = ` to ${me.pending_email ?? me.email}`;
  }
  try {
    await requestEmailVerification(await ctx.api({ auth: 'none' }), uuid);
  } catch (err) {
    // Current servers send nothing to an account with nothing to verify (posthog/api/user.py).
    if (err instanceof ApiError && err.server.code === 'already_verified') {
      ctx.info('nothing to verify: PostHog says the address is already verified and no change is pending; it sent nothing');
      return;
    }
    throw err;
  }
  ctx.info(
    `✔ asked PostHog to e-mail a new verification code${to}${options.uuid ? ` for user ${uuid} (if that user exists)` : ''}; ` +
      'the previous one stops working (finish with `hogctl email verify`)',
  );
}
