import { Command } from 'commander';
import type { Context } from '../../context.js';
import { AuthError, UsageError } from '../../errors.js';
import { examples, withContext } from '../with-context.js';
import { checkOtpCode } from '../otp-code.js';

export interface AuthLoginOptions {
  email?: string;
  passwordStdin?: boolean;
  code?: string;
}

const EMAIL = /^[^@\s]+@[^@\s]+$/;

export function authLoginCommand(): Command {
  return new Command('login')
    .summary('sign in with e-mail, password and 2FA code, for commands that need a session')
    .description(
      'Sign in to the profile\'s PostHog site like the web app does, and keep the session cookies in a private file (0600) for this profile. ' +
        'PostHog refuses personal API keys for 2FA and e-mail changes (`hogctl users 2fa ...`, `hogctl email cancel-change`) and for some persons insights; those commands use this session. ' +
        'The password is read without echo, or from standard input with --password-stdin; it is never a flag value. ' +
        'When the account has 2FA, give the current code from your authenticator app (or an unused backup code) when asked, or with --code.',
    )
    .option('--email <address>', 'the e-mail you sign in with (asked when missing)')
    .option('--password-stdin', 'read the password from standard input instead of asking')
    .option('--code <code>', 'the 2FA code, if the server asks for one: 6 digits from your authenticator app (a backup code is better typed at the prompt: flags stay in shell history)')
    .addHelpText(
      'after',
      examples(
        'hogctl auth login',
        'hogctl auth login --profile prod --email lee@example.com',
        'printf %s "$POSTHOG_PASSWORD" | hogctl auth login --email lee@example.com --password-stdin --code 123456',
      ),
    )
    .action(withContext(authLoginRun));
}

export async function authLoginRun(ctx: Context, options: AuthLoginOptions): Promise<void> {
  const [{ readSecretFromStdin }, { sessionCredentials }, { loginPassword, loginToken }, { getUser }, { explainLoginError }] = await Promise.all([
    import('../../io/read-secret.js'),
    import('../../http/session-credentials.js'),
    import('../../api/login.js'),
    import('../../api/users.js'),
    import('./login-errors.js'),
  ]);
  if (options.email !== undefined && !EMAIL.test(options.email.trim())) throw new UsageError(`invalid --email "${options.email}": expected an address like lee@example.com`);
  const flagCode = options.code === undefined ? undefined : checkOtpCode(options.code, { backupCodes: true });
  const settings = await ctx.settings();
  const prompter = await ctx.prompter();

  let email = options.email?.trim();
  if (!email) {
    if (!prompter.interactive) throw new UsageError('no e-mail given', 'pass --email <address>');
    email = (await prompter.input('E-mail:', { validate: (v) => EMAIL.test(v.trim()) || 'enter an address like lee@example.com' })).trim();
  }
  let password: string;
  if (options.passwordStdin) password = await readSecretFromStdin(ctx.io.stdin, 'password', '--password-stdin');
  else if (prompter.interactive) password = await prompter.password('Password (input hidden):');
  else throw new UsageError('no password given', 'pipe it with --password-stdin (e.g. `printf %s "$POSTHOG_PASSWORD" | hogctl auth login --email ... --password-stdin`); hogctl never takes a password as a flag value');
  if (!password) throw new UsageError('the password is empty');

  // A new sign-in starts without the old session; remember cookies stay, so a device that passed
  // 2FA recently is not asked again. Nothing is written until the sign-in succeeds.
  const jar = await ctx.sessionJar();
  jar.remove('sessionid');
  const label = ctx.sessionLabel(settings);
  const client = await ctx.client(settings, sessionCredentials(jar, { autosave: false, label }));

  let usedCode = false;
  try {
    const { twoFactorRequired } = await loginPassword(client, email, password);
    if (twoFactorRequired) {
      let code = flagCode;
      if (code === undefined) {
        if (!prompter.interactive) throw new UsageError('this account has 2FA: a code is needed', 'pass --code <code> with the current code from your authenticator app, or a backup code');
        code = checkOtpCode(await prompter.password('2FA code from your authenticator app, or a backup code (input hidden):'), { backupCodes: true });
      }
      await loginToken(client, code);
      usedCode = true;
    } else if (flagCode !== undefined) {
      ctx.info('note: the server did not ask for a 2FA code (2FA is off, or this device is remembered), so --code was not used');
    }
  } catch (err) {
    throw explainLoginError(err);
  }
  if (jar.state !== 'active') {
    throw new AuthError('the server accepted the sign-in but set no session cookie', `check that ${jar.origin} is the PostHog site itself and not a proxy that strips cookies`);
  }
  const me = await getUser(client, '@me');
  jar.setUser({ email: me.email, uuid: me.uuid });
  jar.save();
  ctx.info(`✔ signed in to ${jar.origin} as ${me.email}${usedCode ? ' (with 2FA)' : ''}; the session is saved for ${label}`);
}
