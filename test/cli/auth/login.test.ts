// `hogctl auth login` in this process (test/cli/session-fixtures.ts), against the sandbox's
// Django-style sessions (docs/server-contract.md §11): the password from stdin, the 0600 session
// file, a wrong password, TOTP codes on the sandbox's clock, and a sign-in that replaces another
// account's session. The prompts on a real terminal: test/e2e/auth.test.ts; the code PostHog
// e-mails: login.email-code.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { totp, TOTP_STEP_SECONDS } from '@hogctl/sandbox';
import { expectSecretsOnlyIn, jarValues } from '../../e2e/secrets.js';
import { startSessionWorld, type SessionWorld } from '../session-fixtures.js';

let session: SessionWorld;
const dirs: string[] = [];

beforeAll(async () => {
  session = await startSessionWorld();
});
afterAll(async () => {
  await session.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const sandbox = () => session.world.sandbox;
const since = (n: number) => sandbox().requests.slice(n);
/** A config dir of its own, for a second signed-in user. */
function otherConfig(): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'hogctl-cli-auth-'));
  dirs.push(dir);
  return { HOGCTL_CONFIG_DIR: dir };
}
const login = (email: string, password: string, extra: string[] = [], env: Record<string, string> = {}) =>
  session.run(['auth', 'login', '--email', email, '--password-stdin', ...extra], { stdin: password, env });
/** The code of the next 30-second step, so a code is never reused by accident. */
const nextCode = (secret: string) => totp(secret, session.advance(TOTP_STEP_SECONDS * 1000));

describe('auth login without 2FA', () => {
  it('signs in with the password from stdin, keeps the cookies in a 0600 file, and says who', async () => {
    const jarFile = session.jarFile();
    const before = sandbox().requests.length;
    const res = await login(sandbox().login.email, sandbox().login.password, ['--debug']);
    expect(res.stderr).toContain(
      `✔ signed in to ${sandbox().url} as sandbox@example.com; the session is saved for 127.0.0.1:${sandbox().port}`,
    );
    expect(res.code).toBe(0);
    const [post, me] = since(before);
    expect(post).toMatchObject({ method: 'POST', path: '/api/login/', status: 200 });
    expect(JSON.parse(post.body)).toEqual({ email: 'sandbox@example.com', password: sandbox().login.password });
    expect(post.headers.authorization).toBeUndefined();
    expect(me).toMatchObject({ method: 'GET', path: '/api/users/@me/', status: 200 });
    expect(me.headers.cookie).toMatch(/sessionid=\w+/);
    expect(me.headers.authorization).toBeUndefined();

    const jar = JSON.parse(readFileSync(jarFile, 'utf8'));
    expect(jar).toMatchObject({ version: 1, origin: sandbox().url, user: { email: 'sandbox@example.com' } });
    expect(jar.cookies.map((c: { name: string }) => c.name).sort()).toEqual(['posthog_csrftoken', 'sessionid']);
    expectSecretsOnlyIn(session.world.configDir, jarFile, [...jarValues(jarFile), sandbox().login.password]);
  });

  it('refuses a wrong password with exit 4 and never echoes it', async () => {
    const res = await login('sandbox@example.com', 'not-the-password-123', ['--debug']);
    expect(res.code).toBe(4);
    expect(res.stderr).toContain('error: wrong e-mail or password');
    expect(res.stderr).not.toContain('not-the-password-123');
    // A failed sign-in leaves the saved session alone.
    expect((await session.run(['auth', 'status'])).code).toBe(0);
  });

  it('refuses to run without a password source off a terminal, before sending anything', async () => {
    const before = sandbox().requests.length;
    const res = await session.run(['auth', 'login', '--email', 'sandbox@example.com']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('error: no password given');
    expect(res.stderr).toContain('--password-stdin');
    expect(sandbox().requests.length).toBe(before);
  });
});

describe('auth login with 2FA', () => {
  const user = () => sandbox().twoFactorUser;

  it('asks for a code off a terminal when --code is missing (exit 2)', async () => {
    const env = otherConfig();
    const res = await login(user().email, user().password, [], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('error: this account has 2FA: a code is needed');
    expect(res.stderr).toContain('--code');
    expect(existsSync(join(env.HOGCTL_CONFIG_DIR, 'sessions'))).toBe(false);
  });

  it('refuses a wrong code with exit 4', async () => {
    session.advance(60_000);
    const res = await login(user().email, user().password, ['--code', '000000'], otherConfig());
    expect(res.code).toBe(4);
    expect(res.stderr).toContain('error: the 2FA code was not accepted');
  });

  it('signs in with the TOTP code, keeping the cookie set on the 401 for the second step', async () => {
    session.advance(60_000);
    const env = otherConfig();
    const before = sandbox().requests.length;
    const res = await login(user().email, user().password, ['--code', nextCode(user().totpSecret), '--debug'], env);
    expect(res.stderr).toContain(`as totp@example.com (with 2FA)`);
    expect(res.code).toBe(0);
    const [password, token] = since(before);
    expect(password.status).toBe(401);
    expect(token).toMatchObject({ path: '/api/login/token/', status: 200 });
    const pending = /sessionid=(\w+)/.exec(String(token.headers.cookie))?.[1];
    expect(pending).toBeTruthy();
    const file = session.jarFile(env.HOGCTL_CONFIG_DIR);
    const names = JSON.parse(readFileSync(file, 'utf8')).cookies.map((c: { name: string }) => c.name);
    expect(names).toContain('sessionid');
    expect(names.some((n: string) => n.startsWith('remember-cookie_'))).toBe(true);
    expectSecretsOnlyIn(env.HOGCTL_CONFIG_DIR, file, [...jarValues(file), user().password, user().totpSecret]);

    // The remember cookie lets the next sign-in skip the code.
    const again = await login(user().email, user().password, [], env);
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('(with 2FA)');
  });
});

describe('auth login as another account', () => {
  it('says whose session it replaced', async () => {
    // The world's own config dir holds sandbox@example.com's session, from the first test.
    const other = sandbox().twoFactorUser;
    const res = await login(other.email, other.password, ['--code', nextCode(other.totpSecret)]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(
      `as ${other.email} (with 2FA); the session is saved for 127.0.0.1:${sandbox().port}, replacing the session of sandbox@example.com`,
    );
    // Signing in again as the same account replaces nothing worth a word.
    const again = await login(other.email, other.password, ['--code', nextCode(other.totpSecret)]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('replacing');
  });
});

describe('secrets', () => {
  it('the passwords and the TOTP secret never reached argv, output or error messages', () => {
    session.witness.expectNever([sandbox().login.password, sandbox().twoFactorUser.password], 'password');
    session.witness.expectNever([sandbox().twoFactorUser.totpSecret], 'TOTP secret');
  });
});
