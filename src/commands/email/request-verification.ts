import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { requestEmailVerification } from '../../api/email.js';
import { getUser, checkUuid } from '../../api/users.js';

export interface EmailRequestVerificationOptions {
  uuid?: string;
}

export function emailRequestVerificationCommand(): Command {
  return new Command('request-verification')
    .summary('ask PostHog to send a new verification e-mail')
    .description(
      'Ask PostHog to mail a new verification link (to the pending address when an e-mail change is waiting). Without --uuid, for the signed-in user ' +
        '(the session, or the API key with user:read). PostHog answers the same for unknown uuids, so success does not prove the user exists; it allows a few requests a day per user.',
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
  await requestEmailVerification(await ctx.api({ auth: 'none' }), uuid);
  ctx.info(`✔ asked PostHog to send a verification e-mail${to}${options.uuid ? ` for user ${uuid} (if that user exists)` : ''}`);
}
