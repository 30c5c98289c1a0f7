import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { ApiError } from '../../errors.js';
import { cancelEmailChange } from '../../api/email.js';
import { getUser } from '../../api/users.js';
import { writeUser } from '../users/shared/write-user.js';

export function emailCancelChangeCommand(): Command {
  return new Command('cancel-change')
    .summary('cancel a pending change of your e-mail address')
    .description(
      'Drop the pending e-mail address (set by `hogctl users update --field email=...`): the current address stays and the code (older servers: the link) sent to the new one stops working. Needs a signed-in session (`hogctl auth login`).',
    )
    .addHelpText('after', examples('hogctl email cancel-change'))
    .action(withContext(emailCancelChangeRun));
}

export async function emailCancelChangeRun(ctx: Context): Promise<void> {
  const client = await ctx.api({ auth: 'session' });
  const before = await getUser(client, '@me');
  let after;
  try {
    after = await cancelEmailChange(client);
  } catch (err) {
    if (err instanceof ApiError && err.server.code === 'email_change_request_not_found') {
      throw new ApiError(
        `no pending e-mail change to cancel: the address is ${before.email}`,
        err.status,
        err.server,
        'a change is pending only after `hogctl users update --field email=...`',
      );
    }
    throw err;
  }
  await writeUser(ctx, after);
  ctx.info(`✔ cancelled the change to ${before.pending_email ?? 'the new address'}; the address stays ${after.email}`);
}
