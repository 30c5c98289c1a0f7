import { Command } from 'commander';
import type { Context } from '../../context.js';
import { ApiError, ExitCode, UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import {
  checkVerification,
  checkVerificationCode,
  parseVerificationLink,
  verifyEmailCode,
  verifyEmailToken,
  type VerifyEmailAnswer,
} from '../../api/email.js';
import { checkUuid, getUser, type User } from '../../api/users.js';
import { readSecretFromStdin } from '../../io/read-secret.js';

export interface EmailVerifyOptions {
  uuid?: string;
  token?: string;
}

export function emailVerifyCommand(): Command {
  return new Command('verify')
    .summary('verify an e-mail address with the code PostHog mailed')
    .description(
      'Verify an e-mail address (a new account, or a pending change of address) with the 6-digit code PostHog e-mails to it. ' +
        'Give the code as the argument, "-" to read it from standard input, or nothing to type it at a hidden prompt on a terminal. ' +
        'The user is the signed-in one (the session, or the API key with user:read) unless --uuid names another; the verification itself sends no credentials. ' +
        'A code lasts 30 minutes and only the newest one works; after 5 wrong tries PostHog refuses more for up to 30 minutes. ' +
        'Older servers mail a link ({site}/verify_email/{uuid}/{token}) instead: give the link, or --uuid and --token.',
    )
    .argument('[code]', 'the 6-digit code from the e-mail (older servers: the link), or - to read it from standard input')
    .option('--uuid <uuid>', 'the user whose address to verify (default: yourself)')
    .option('--token <token>', 'older servers: the token, the last part of the link (with --uuid)')
    .addHelpText(
      'after',
      examples(
        'hogctl email verify 123456',
        'hogctl email verify',
        'pbpaste | hogctl email verify -',
        'hogctl email verify 123456 --uuid 0190c0de-aaaa-7bbb-8ccc-000000000001',
        'hogctl email verify "https://us.posthog.com/verify_email/<uuid>/<token>"',
      ),
    )
    .action(withContext(emailVerifyRun));
}

const LINK = /^[a-z][a-z0-9+.-]*:\/\//i;

export async function emailVerifyRun(ctx: Context, options: EmailVerifyOptions, given?: string): Promise<void> {
  if (options.token !== undefined) {
    if (options.uuid === undefined)
      throw new UsageError('--token needs --uuid', 'both are in the link: .../verify_email/<uuid>/<token>; or give the whole link');
    if (given !== undefined) throw new UsageError('give either the code or link from the e-mail, or --uuid and --token, not both');
    return verifyWithToken(ctx, checkVerification(options.uuid, options.token));
  }
  const uuid = options.uuid === undefined ? undefined : checkUuid(options.uuid, '--uuid');
  let text = given;
  if (text === '-') text = await readSecretFromStdin(ctx.io.stdin, 'verification code', 'verify -');
  if (text !== undefined && LINK.test(text.trim())) {
    if (uuid !== undefined) throw new UsageError('--uuid goes with a code: a link names its user', 'give the link alone');
    return verifyWithToken(ctx, parseVerificationLink(text));
  }

  // The code is checked, and its absence off a terminal refused, before anything is sent.
  let code = text === undefined ? undefined : checkVerificationCode(text);
  const prompter = await ctx.prompter();
  if (code === undefined && !prompter.interactive)
    throw new UsageError(
      'no verification code given',
      'pass the 6 digits from the e-mail (`hogctl email verify 123456`), or pipe them in (`... | hogctl email verify -`)',
    );

  let me: User | undefined;
  if (uuid === undefined) {
    me = await getUser(await ctx.api({ auth: 'prefer-session' }), '@me');
    // PostHog answers any code with success when nothing waits (a repeated submit), so saying
    // "verified" then would claim a change that never happened.
    if (me.is_email_verified === true && !me.pending_email) {
      ctx.info(`nothing to verify: ${me.email} is verified and no change of address is pending`);
      return;
    }
  }
  const user = uuid ?? me!.uuid;
  const address = me ? (me.pending_email ?? me.email) : undefined;
  code ??= checkVerificationCode(await prompter.password(`Code from the e-mail${address ? ` to ${address}` : ''} (input hidden):`));

  const again = `hogctl email request-verification${uuid ? ` --uuid ${uuid}` : ''}`;
  let answer: VerifyEmailAnswer;
  try {
    answer = await verifyEmailCode(await ctx.api({ auth: 'none' }), user, code);
  } catch (err) {
    throw explainCodeError(err, again);
  }
  if (me) ctx.info(`✔ e-mail address ${address} verified for user ${user}`);
  else if (answer.requires_login)
    ctx.info(`✔ PostHog reports the e-mail address of user ${user} verified (it answers so too when nothing was waiting to be verified)`);
  else ctx.info(`✔ e-mail address verified for user ${user}`);
}

/** PostHog's refusals of a code (posthog/api/user.py verify_email), said with the way forward. */
function explainCodeError(err: unknown, again: string): unknown {
  if (!(err instanceof ApiError)) return err;
  switch (err.server.code) {
    case 'invalid_code':
      return new ApiError(
        'the verification code is wrong, has expired, or was replaced by a newer one',
        err.status,
        err.server,
        `a code lasts 30 minutes and only the newest one works; get a new one with \`${again}\``,
      );
    case 'too_many_attempts':
      return new ApiError(
        'too many wrong codes: PostHog refuses more tries for this user for now',
        err.status,
        err.server,
        `the count lasts up to 30 minutes from the first wrong try, and a new code does not reset it; then try the newest code again, or get a new one with \`${again}\``,
      );
    case 'required':
      if (err.server.attr === 'token')
        return new ApiError(
          'this PostHog server verifies with the link it e-mailed, not a code',
          err.status,
          err.server,
          'give the whole link from the e-mail: `hogctl email verify "<link>"`',
          ExitCode.usage,
        );
  }
  return err;
}

/** Older servers: the uuid and token of the mailed link. */
async function verifyWithToken(ctx: Context, target: { uuid: string; token: string; origin?: string }): Promise<void> {
  const settings = await ctx.settings();
  const site = new URL(settings.baseUrl).origin;
  if (target.origin && target.origin !== site) {
    throw new UsageError(
      `the link is for ${target.origin}, but hogctl is set to ${site}`,
      `pass --base-url ${target.origin}, or --profile with the profile of that site`,
    );
  }
  try {
    await verifyEmailToken(await ctx.api({ auth: 'none' }), target.uuid, target.token);
  } catch (err) {
    if (err instanceof ApiError && err.server.code === 'invalid_token') {
      throw new ApiError(
        'the verification link is invalid or has expired',
        err.status,
        err.server,
        'each link works once and dies when a newer one is sent or the address changes; get a new one with `hogctl email request-verification`',
      );
    }
    if (err instanceof ApiError && err.server.code === 'required' && err.server.attr === 'code') {
      throw new ApiError(
        'this PostHog server verifies with a 6-digit code, not a link',
        err.status,
        err.server,
        `the newest e-mail holds the code: \`hogctl email verify <code>\`; \`hogctl email request-verification --uuid ${target.uuid}\` sends a new one`,
        ExitCode.usage,
      );
    }
    throw err;
  }
  ctx.info(`✔ e-mail address verified for user ${target.uuid}`);
}
