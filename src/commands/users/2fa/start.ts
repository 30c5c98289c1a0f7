import { Command } from 'commander';
import type { Context } from '../../../context.js';
import { withContext } from '../../../cli/with-context.js';
import { examples } from '../../../cli/help-text.js';
import { writeRecord } from '../../../io/output.js';
import { writeAll } from '../../../io/streams.js';
import { setupText, SECRET_WARNING, SETUP_INTRO } from './shared/setup.js';
import * as api from '../../../api/users.js';

export interface TwoFactorStartOptions {
  user?: string;
}

export function twoFactorStartCommand(): Command {
  return new Command('start')
    .summary('begin 2FA setup: print the secret, its otpauth:// URI and a QR code')
    .description(
      'Ask PostHog for a new TOTP secret and show it as a QR code for an authenticator app, with the secret and the otpauth:// URI. ' +
        'The setup lives 10 minutes in the signed-in session: finish it with `hogctl users 2fa validate <code>` using the same profile. ' +
        '`hogctl users 2fa enable` does both steps and makes backup codes in one go. With -o json, prints {secret, otpauth_uri} and no QR code.',
    )
    .option('--user <uuid>', 'the user (default: @me, yourself)', '@me')
    .addHelpText('after', examples('hogctl users 2fa start', 'hogctl users 2fa start -o json'))
    .action(withContext(twoFactorStartRun));
}

export async function twoFactorStartRun(ctx: Context, options: TwoFactorStartOptions): Promise<void> {
  const user = api.checkUserId(options.user);
  const client = await ctx.api({ auth: 'session' });
  const { email } = await api.getUser(client, user);
  const { secret } = await api.twoFactorStartSetup(client, user);
  ctx.warn(SECRET_WARNING);
  const output = await ctx.output();
  // What comes next is said before the code, so that the code is the last thing on the screen.
  const next = 'next: `hogctl users 2fa validate <code>` with the code your app shows, within 10 minutes';
  if (output.format === 'table' && !output.fields) {
    ctx.info(`${SETUP_INTRO}; ${next}`);
    await writeAll(ctx.io.stdout, await setupText(email, secret, { qr: Boolean(ctx.io.stdout.isTTY), columns: ctx.io.stdout.columns }));
  } else {
    const record = { user, email, secret, otpauth_uri: api.otpauthUri(email, secret), expires_in_seconds: 600 };
    await writeRecord(output, record, { columns: Object.keys(record), fields: Object.keys(record) });
    ctx.info(next);
  }
}
