import { Command } from 'commander';
import type { Context } from '../../context.js';
import { ApiError, AuthError, CancelledError, RateLimitedError, UsageError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import type { SessionJar } from '../../config/session-jar.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { checkOtpCode } from '../../cli/otp-code.js';
import { getUser } from '../../api/users.js';
import { readSecretFromStdin } from '../../io/read-secret.js';
import { sessionCredentials } from '../../http/session-credentials.js';
import { loginPassword, loginToken, loginEmailCode, resendLoginCode } from '../../api/login.js';
import { explainLoginError } from './shared/login-errors.js';

export interface AuthLoginOptions {
  email?: string;
  passwordStdin?: boolean;
  code?: string;
  emailCode?: string;
  emailCodeStdin?: boolean;
  resendCode?: boolean;
}

const EMAIL = /^[^@\s]+@[^@\s]+$/;

export function authLoginCommand(): Command {
  return new Command('login')
    .summary('sign in with e-mail, password and 2FA code, for commands that need a session')
    .description(
      "Sign in to the profile's PostHog site like the web app does, and keep the session cookies in a private file (0600) for this profile. " +
        'PostHog refuses personal API keys for 2FA and e-mail changes (`hogctl users 2fa ...`, `hogctl email cancel-change`) and for some persons insights; those commands use this session. ' +
        'The password is read without echo, or from standard input with --password-stdin; it is never a flag value. ' +
        'When the account has 2FA, give the current code from your authenticator app (or an unused backup code) when asked, or with --code. ' +
        'Without 2FA, PostHog Cloud e-mails a 6-digit code on every password sign-in: type it when asked, or (in scripts) finish later with --email-code or --email-code-stdin, without the password. ' +
        'The site remembers this device afterwards (a remember cookie that survives `auth logout`), so the next sign-in needs no code.',
    )
    .option('--email <address>', 'the e-mail you sign in with (asked when missing)')
    .option('--password-stdin', 'read the password from standard input instead of asking')
    .option(
      '--code <code>',
      'the 2FA code, if the server asks for one: 6 digits from your authenticator app (a backup code is better typed at the prompt: flags stay in shell history)',
    )
    .option('--email-code <code>', 'finish a sign-in that is waiting for the code PostHog e-mailed (no password needed)')
    .option('--email-code-stdin', 'the same, reading the e-mailed code from standard input')
    .option('--resend-code', 'ask PostHog to e-mail a new code for the sign-in that is waiting (at most once a minute)')
    .addHelpText(
      'after',
      examples(
        'hogctl auth login',
        'hogctl auth login --profile prod --email lee@example.com',
        'printf %s "$POSTHOG_PASSWORD" | hogctl auth login --email lee@example.com --password-stdin --code 123456',
        'hogctl auth login --email-code 123456',
      ),
    )
    .action(withContext(authLoginRun));
}

export async function authLoginRun(ctx: Context, options: AuthLoginOptions): Promise<void> {
  if (options.emailCode !== undefined || options.emailCodeStdin || options.resendCode) return finishWithEmailedCode(ctx, options);
  if (options.email !== undefined && !EMAIL.test(options.email.trim()))
    throw new UsageError(`invalid --email "${options.email}": expected an address like lee@example.com`);
  const flagCode = options.code === undefined ? undefined : checkOtpCode(options.code, { backupCodes: true });
  const settings = await ctx.settings();
  const prompter = await ctx.prompter();
  await checkSiteChosen(ctx, settings.baseUrl, settings.sources.baseUrl);

  let email = options.email?.trim();
  if (!email) {
    if (!prompter.interactive) throw new UsageError('no e-mail given', 'pass --email <address>');
    email = (await prompter.input('E-mail:', { validate: (v) => EMAIL.test(v.trim()) || 'enter an address like lee@example.com' })).trim();
  }
  let password: string;
  // Where the password goes, said before it is asked for.
  if (prompter.interactive && !options.passwordStdin) ctx.info(`Signing in to ${new URL(settings.baseUrl).origin}`);
  if (options.passwordStdin) password = await readSecretFromStdin(ctx.io.stdin, 'password', '--password-stdin');
  else if (prompter.interactive) password = await prompter.password('Password (input hidden):');
  else
    throw new UsageError(
      'no password given',
      'pipe it with --password-stdin (e.g. `printf %s "$POSTHOG_PASSWORD" | hogctl auth login --email ... --password-stdin`); hogctl never takes a password as a flag value',
    );
  if (!password) throw new UsageError('the password is empty');

  // A new sign-in starts without the old session; remember cookies stay, so a device that passed
  // 2FA or an e-mailed code recently is not asked again. Nothing is written until a step succeeds.
  const jar = await ctx.sessionJar();
  // Signing in as someone else ends the session of whoever was signed in: said once it happened.
  const replaced = jar.state === 'active' && jar.user && jar.user.email.toLowerCase() !== email.toLowerCase() ? jar.user.email : undefined;
  jar.forgetSession();
  const label = ctx.sessionLabel(settings);
  const client = await ctx.client(settings, sessionCredentials(jar, { autosave: false, label }));

  let how = '';
  try {
    const outcome = await loginPassword(client, email, password);
    if (outcome.next === 'totp') {
      let code = flagCode;
      if (code === undefined) {
        if (!prompter.interactive)
          throw new UsageError(
            'this account has 2FA: a code is needed',
            'pass --code <code> with the current code from your authenticator app, or a backup code',
          );
        code = checkOtpCode(await prompter.password('2FA code from your authenticator app, or a backup code (input hidden):'), {
          backupCodes: true,
        });
      }
      await loginToken(client, code);
      how = ' (with 2FA)';
    } else if (outcome.next === 'code_emailed') {
      // The pending sign-in is in the session cookie: keep it, so the code can be given later
      // without the password (each password attempt e-mails a new code: never repeat it here).
      jar.setPendingCode(outcome.email);
      jar.save();
      if (!prompter.interactive) {
        throw new AuthError(
          `PostHog e-mailed a sign-in code to ${outcome.email}; this sign-in is waiting for it`,
          'finish within 10 minutes with `hogctl auth login --email-code <code>` (or pipe it to `--email-code-stdin`); the password is not needed again',
        );
      }
      ctx.info(`PostHog e-mailed a 6-digit sign-in code to ${outcome.email} (valid for 10 minutes).`);
      await askForEmailedCode(ctx, client, outcome.email);
      how = ' (with the e-mailed code; this device is remembered)';
    } else if (flagCode !== undefined) {
      ctx.info('note: the server did not ask for a 2FA code (2FA is off, or this device is remembered), so --code was not used');
    }
  } catch (err) {
    throw explainLoginError(err);
  }
  await completeSignIn(ctx, client, jar, label, how, replaced);
}

/**
 * A password goes only to a site the user named (--base-url, HOGCTL_BASE_URL or a profile): the
 * built-in default (PostHog Cloud US) is offered on a terminal, never taken silently.
 */
async function checkSiteChosen(ctx: Context, baseUrl: string, source: string): Promise<void> {
  if (source !== 'default') return;
  const prompter = await ctx.prompter();
  const hint = 'name the site with --base-url (e.g. https://eu.posthog.com) or a profile (`hogctl profile add`)';
  if (!prompter.interactive) throw new UsageError(`no PostHog site chosen: hogctl sends a password only to a site you name`, hint);
  if (!(await prompter.confirm(`Sign in to ${new URL(baseUrl).origin} (PostHog Cloud US)?`, { default: false }))) {
    throw new CancelledError('not signed in: no password was sent', hint);
  }
}

/** On a terminal: the code, a new one on request, another try after a wrong one. */
async function askForEmailedCode(ctx: Context, client: ApiClient, email: string): Promise<void> {
  const prompter = await ctx.prompter();
  for (;;) {
    const answer = (
      await prompter.input(`Code from the e-mail to ${email} (or "r" to get a new one):`, {
        validate: (v) => /^\s*(r|\d[\d\s-]*)\s*$/i.test(v) || 'type the 6 digits, or r',
      })
    ).trim();
    try {
      if (answer.toLowerCase() === 'r') {
        await resendLoginCode(client);
        ctx.info(`a new code is on its way to ${email}; the previous one no longer works`);
        continue;
      }
      await loginEmailCode(client, checkEmailCode(answer));
      return;
    } catch (err) {
      const explained = explainLoginError(err);
      // A wrong or stale code gets another try; anything else ends the sign-in.
      if (
        !(err instanceof ApiError && err.server.code === 'invalid_code') &&
        !(explained instanceof RateLimitedError && answer.toLowerCase() === 'r')
      )
        throw explained;
      ctx.warn((explained as Error).message);
    }
  }
}

function checkEmailCode(raw: string): string {
  const code = raw.replace(/[\s-]/g, '');
  if (!/^\d{6}$/.test(code)) throw new UsageError('invalid e-mailed code: expected the 6 digits from the e-mail PostHog sent');
  return code;
}

/** `--email-code`, `--email-code-stdin`, `--resend-code`: the second half of a sign-in. */
async function finishWithEmailedCode(ctx: Context, options: AuthLoginOptions): Promise<void> {
  if (options.passwordStdin || options.code !== undefined) {
    throw new UsageError(
      '--email-code finishes a sign-in that is already waiting: give it without a password or --code',
      'first `hogctl auth login` (it e-mails the code), then `hogctl auth login --email-code <code>`',
    );
  }
  if ([options.emailCode !== undefined, options.emailCodeStdin, options.resendCode].filter(Boolean).length > 1) {
    throw new UsageError('give one of --email-code, --email-code-stdin and --resend-code');
  }
  const code = options.resendCode
    ? undefined
    : checkEmailCode(
        options.emailCodeStdin ? await readSecretFromStdin(ctx.io.stdin, 'e-mailed code', '--email-code-stdin') : options.emailCode!,
      );
  const settings = await ctx.settings();
  const label = ctx.sessionLabel(settings);
  const jar = await ctx.sessionJar();
  const pending = jar.state === 'awaiting_code' ? jar.pendingCode : undefined;
  if (!pending) {
    throw new AuthError(
      `no sign-in of ${label} is waiting for an e-mailed code`,
      'run `hogctl auth login` first: PostHog e-mails the code after the password',
    );
  }
  const client = await ctx.client(settings, sessionCredentials(jar, { autosave: false, label }));
  try {
    if (code === undefined) {
      await resendLoginCode(client);
      jar.save();
      ctx.info(
        `✔ PostHog e-mailed a new code to ${pending.email}; the previous one no longer works. Finish with \`hogctl auth login --email-code <code>\``,
      );
      return;
    }
    await loginEmailCode(client, code);
  } catch (err) {
    throw explainLoginError(err);
  }
  await completeSignIn(ctx, client, jar, label, ' (with the e-mailed code; this device is remembered)');
}

/** The session is real only once the server set it and names the user: then it is saved. */
async function completeSignIn(
  ctx: Context,
  client: ApiClient,
  jar: SessionJar,
  label: string,
  how: string,
  replaced?: string,
): Promise<void> {
  if (jar.state !== 'active' && jar.state !== 'awaiting_code') {
    throw new AuthError(
      'the server accepted the sign-in but set no session cookie',
      `check that ${jar.origin} is the PostHog site itself and not a proxy that strips cookies`,
    );
  }
  const me = await getUser(client, '@me');
  jar.setUser({ email: me.email, uuid: me.uuid });
  jar.save();
  ctx.info(
    `✔ signed in to ${jar.origin} as ${me.email}${how}; the session is saved for ${label}${replaced ? `, replacing the session of ${replaced}` : ''}`,
  );
}
