// End-to-end: `hogctl auth login | status | logout` and the session credentials, against the
// sandbox's Django-style sessions (docs/server-contract.md §11). The sandbox clock is the test's, so
// TOTP codes, the 2-hour re-auth window and session expiry are under control.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld, type RunOptions, type World } from './harness.js';
import { runInTerminal } from './terminal.js';
import { expectSecretsOnlyIn, jarValues, Witness } from './secrets.js';
import { totp, TOTP_STEP_SECONDS } from '@hogctl/sandbox';

let world: World;
let clock = Date.now();
const witness = new Witness();
const dirs: string[] = [];
let jarFile: string;

beforeAll(async () => {
  world = await startWorld({ persons: 5, now: () => clock });
  jarFile = join(world.configDir, 'sessions', `@127.0.0.1_${world.sandbox.port}.json`);
});
afterAll(async () => {
  await world.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[], options: RunOptions = {}) {
  witness.ran(args);
  const res = await world.run(args, options);
  witness.saw(res.stdout, res.stderr);
  return res;
}

/** A config dir of its own, for a second signed-in user. */
function otherConfig(): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'hogctl-e2e-auth-'));
  dirs.push(dir);
  return { HOGCTL_CONFIG_DIR: dir };
}

const since = (n: number) => world.sandbox.requests.slice(n);
/** Without the API key, so the session is what the command uses. */
const SESSION_ONLY: RunOptions = { env: { HOGCTL_API_KEY: undefined } };
const login = (email: string, password: string, extra: string[] = [], env: Record<string, string> = {}) =>
  run(['auth', 'login', '--email', email, '--password-stdin', ...extra], { stdin: password, env });
/** The code of the next 30-second step, so a code is never reused by accident. */
const nextCode = (secret: string) => {
  clock += TOTP_STEP_SECONDS * 1000;
  return totp(secret, clock);
};

describe('auth login without 2FA', () => {
  it('signs in with the password from stdin, keeps the cookies in a 0600 file, and says who', async () => {
    const before = world.sandbox.requests.length;
    const res = await login(world.sandbox.login.email, world.sandbox.login.password, ['--debug']);
    expect(res.stderr).toContain(
      `✔ signed in to ${world.sandbox.url} as sandbox@example.com; the session is saved for 127.0.0.1:${world.sandbox.port}`,
    );
    expect(res.code).toBe(0);
    const [post, me] = since(before);
    expect(post).toMatchObject({ method: 'POST', path: '/api/login/', status: 200 });
    expect(JSON.parse(post.body)).toEqual({ email: 'sandbox@example.com', password: world.sandbox.login.password });
    expect(post.headers.authorization).toBeUndefined();
    expect(me).toMatchObject({ method: 'GET', path: '/api/users/@me/', status: 200 });
    expect(me.headers.cookie).toMatch(/sessionid=\w+/);
    expect(me.headers.authorization).toBeUndefined();

    const jar = JSON.parse(readFileSync(jarFile, 'utf8'));
    expect(jar).toMatchObject({ version: 1, origin: world.sandbox.url, user: { email: 'sandbox@example.com' } });
    expect(jar.cookies.map((c: { name: string }) => c.name).sort()).toEqual(['posthog_csrftoken', 'sessionid']);
    expectSecretsOnlyIn(world.configDir, jarFile, [...jarValues(jarFile), world.sandbox.login.password]);
  });

  it('auth status shows the user, the site, the working session and the masked key', async () => {
    const res = await run(['auth', 'status', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({
      profile: null,
      site: world.sandbox.url,
      active: true,
      session: 'active',
      session_note: 'accepted by the server',
      user: 'sandbox@example.com',
      session_file: jarFile,
      api_key: `phx_…${world.sandbox.defaultKey.slice(-4)}`,
      api_key_source: 'env',
    });
  });

  it('session requests send the cookies, X-CSRFToken and a same-origin Referer, never the key', async () => {
    const before = world.sandbox.requests.length;
    const res = await run(['users', 'update', '--field', 'first_name=Sandra', '-o', 'json', '--debug'], SESSION_ONLY);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).first_name).toBe('Sandra');
    const patch = since(before).find((r) => r.method === 'PATCH')!;
    const [sessionid, csrftoken] = ['sessionid', 'posthog_csrftoken'].map(
      (name) => JSON.parse(readFileSync(jarFile, 'utf8')).cookies.find((c: { name: string }) => c.name === name).value,
    );
    expect(patch.headers.cookie).toContain(`sessionid=${sessionid}`);
    expect(patch.headers['x-csrftoken']).toBe(csrftoken);
    expect(patch.headers.referer).toBe(`${world.sandbox.url}/`);
    expect(patch.headers.authorization).toBeUndefined();
    expect(JSON.parse(patch.body)).toEqual({ first_name: 'Sandra' });
    expect(world.sandbox.world.user.firstName).toBe('Sandra');
    witness.expectNever(jarValues(jarFile), 'cookie');
  });

  it('refuses a wrong password with exit 4 and never echoes it', async () => {
    const res = await login('sandbox@example.com', 'not-the-password-123', ['--debug']);
    expect(res.code).toBe(4);
    expect(res.stderr).toContain('error: wrong e-mail or password');
    expect(res.stderr).not.toContain('not-the-password-123');
    // A failed sign-in leaves the saved session alone.
    expect((await run(['auth', 'status'])).code).toBe(0);
  });

  it('asks for the e-mail and the hidden password on a terminal', async () => {
    const env = { ...world.env, ...otherConfig() };
    const res = await runInTerminal(['auth', 'login'], env, [
      { when: 'E-mail:', send: 'sandbox@example.com\r' },
      { when: 'Password (input hidden)', send: `${world.sandbox.login.password}\r` },
    ]);
    witness.ran(['auth', 'login']);
    witness.saw(res.output);
    expect(res.output).toContain('✔ signed in to');
    expect(res.code).toBe(0);
    expect(existsSync(join(env.HOGCTL_CONFIG_DIR, 'sessions', `@127.0.0.1_${world.sandbox.port}.json`))).toBe(true);
  });

  it('refuses to run without a password source off a terminal, before sending anything', async () => {
    const before = world.sandbox.requests.length;
    const res = await run(['auth', 'login', '--email', 'sandbox@example.com']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('error: no password given');
    expect(res.stderr).toContain('--password-stdin');
    expect(world.sandbox.requests.length).toBe(before);
  });
});

describe('the session going bad', () => {
  it('a POST after 2 hours says a recent sign-in is needed (exit 4)', async () => {
    clock += 2 * 3600 * 1000 + 1000;
    const res = await run(['users', 'update', '--field', 'last_name=Late'], SESSION_ONLY);
    expect(res.code).toBe(4);
    expect(res.stderr).toMatch(
      /error: this action needs a recent sign-in: PATCH \/api\/users\/@me\/ was refused because the session signed in more than 2 hours ago/,
    );
    expect(res.stderr).toContain('run `hogctl auth login` again');
  });

  it("older servers' re-auth 403 (permission_denied, only the detail) reads the same", async () => {
    world.sandbox.identity.olderReauth = true;
    try {
      const res = await run(['users', 'update', '--field', 'last_name=Late'], SESSION_ONLY);
      expect(res.code).toBe(4);
      expect(res.stderr).toMatch(
        /error: this action needs a recent sign-in: PATCH \/api\/users\/@me\/ was refused because the session signed in more than 2 hours ago/,
      );
    } finally {
      world.sandbox.identity.olderReauth = false;
    }
  });

  it("users update uses the API key when it is the signed-in user's: the 2-hour rule is for sessions only", async () => {
    const before = world.sandbox.requests.length;
    const res = await run(['users', 'update', '--field', 'last_name=Keyed', '-o', 'json']);
    expect(res.code).toBe(0);
    const patch = since(before).find((r) => r.method === 'PATCH')!;
    expect(patch.headers.authorization).toBe(`Bearer ${world.sandbox.defaultKey}`);
    expect(patch.headers.cookie).toBeUndefined();
  });

  it('a missing CSRF cookie is a clear 403 (exit 4)', async () => {
    await login(world.sandbox.login.email, world.sandbox.login.password);
    const saved = readFileSync(jarFile, 'utf8');
    const jar = JSON.parse(saved);
    jar.cookies = jar.cookies.filter((c: { name: string }) => c.name !== 'posthog_csrftoken');
    writeFileSync(jarFile, JSON.stringify(jar), { mode: 0o600 });
    try {
      const res = await run(['users', 'update', '--field', 'last_name=Box'], SESSION_ONLY);
      expect(res.code).toBe(4);
      expect(res.stderr).toContain("error: the server refused the request's CSRF check: CSRF Failed: CSRF cookie not set.");
      expect(res.stderr).toContain('run `hogctl auth login`');
    } finally {
      writeFileSync(jarFile, saved, { mode: 0o600 });
    }
  });

  it('an expired session says to sign in again (exit 4)', async () => {
    clock += 15 * 24 * 3600 * 1000;
    const res = await run(['users', '2fa', 'status']);
    expect(res.code).toBe(4);
    expect(res.stderr).toContain('error: session missing or expired: run `hogctl auth login`');
    const status = await run(['auth', 'status', '-o', 'json']);
    expect(status.code).toBe(4);
    expect(JSON.parse(status.stdout)).toMatchObject({ active: false, session: 'expired', session_note: 'the server answered 401' });
  });

  it('logout deletes the session file; session commands then say to sign in, without a request', async () => {
    const res = await run(['auth', 'logout']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(
      `✔ signed out (sandbox@example.com on ${world.sandbox.url}): ended the session on the server; deleted the session cookies of 127.0.0.1:${world.sandbox.port}`,
    );
    expect(existsSync(jarFile)).toBe(false);
    expect((await run(['auth', 'logout'])).stderr).toContain('nothing to forget');

    const before = world.sandbox.requests.length;
    const needs = await run(['users', '2fa', 'status']);
    expect(needs.code).toBe(4);
    expect(needs.stderr).toContain('error: not signed in: run `hogctl auth login`');
    expect(needs.stderr).toContain('PostHog refuses personal API keys here');
    expect(world.sandbox.requests.length).toBe(before);

    // users me falls back to the API key.
    const me = await run(['users', 'me', '-o', 'json']);
    expect(me.code).toBe(0);
    expect(since(before).at(-1)?.headers.authorization).toBe(`Bearer ${world.sandbox.defaultKey}`);
  });
});

describe('auth login with 2FA', () => {
  const user = () => world.sandbox.twoFactorUser;

  it('asks for a code off a terminal when --code is missing (exit 2)', async () => {
    const env = otherConfig();
    const res = await login(user().email, user().password, [], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('error: this account has 2FA: a code is needed');
    expect(res.stderr).toContain('--code');
    expect(existsSync(join(env.HOGCTL_CONFIG_DIR, 'sessions'))).toBe(false);
  });

  it('refuses a wrong code with exit 4', async () => {
    clock += 60_000;
    const res = await login(user().email, user().password, ['--code', '000000'], otherConfig());
    expect(res.code).toBe(4);
    expect(res.stderr).toContain('error: the 2FA code was not accepted');
  });

  it('signs in with the TOTP code, keeping the cookie set on the 401 for the second step', async () => {
    clock += 60_000;
    const env = otherConfig();
    const before = world.sandbox.requests.length;
    const res = await login(user().email, user().password, ['--code', nextCode(user().totpSecret), '--debug'], env);
    expect(res.stderr).toContain(`as totp@example.com (with 2FA)`);
    expect(res.code).toBe(0);
    const [password, token] = since(before);
    expect(password.status).toBe(401);
    expect(token).toMatchObject({ path: '/api/login/token/', status: 200 });
    const pending = /sessionid=(\w+)/.exec(String(token.headers.cookie))?.[1];
    expect(pending).toBeTruthy();
    const file = join(env.HOGCTL_CONFIG_DIR, 'sessions', `@127.0.0.1_${world.sandbox.port}.json`);
    const names = JSON.parse(readFileSync(file, 'utf8')).cookies.map((c: { name: string }) => c.name);
    expect(names).toContain('sessionid');
    expect(names.some((n: string) => n.startsWith('remember-cookie_'))).toBe(true);
    expectSecretsOnlyIn(env.HOGCTL_CONFIG_DIR, file, [...jarValues(file), user().password, user().totpSecret]);

    // The remember cookie lets the next sign-in skip the code.
    const again = await login(user().email, user().password, [], env);
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('(with 2FA)');
  });

  it('signs in on a terminal with a backup code typed at the prompts, and refuses it the second time', async () => {
    const code = world.sandbox.identity.byEmail(user().email)!.backupCodes[0];
    const env = { ...world.env, ...otherConfig() };
    const args = ['auth', 'login', '--email', user().email];
    const answers = [
      { when: 'Password (input hidden)', send: `${user().password}\r` },
      { when: '2FA code from your authenticator app', send: `${code}\r` },
    ];
    const first = await runInTerminal(args, env, answers);
    witness.ran(args);
    witness.saw(first.output);
    expect(first.output).toContain('as totp@example.com (with 2FA)');
    expect(first.code).toBe(0);
    expect(world.sandbox.identity.byEmail(user().email)!.backupCodes).not.toContain(code);

    clock += 5000;
    const second = await runInTerminal(args, { ...world.env, ...otherConfig() }, answers);
    witness.saw(second.output);
    expect(second.code).toBe(4);
    expect(second.output).toContain('error: the 2FA code was not accepted');
    witness.expectNever([code], 'backup code');
  });
});

describe('secrets', () => {
  it('the passwords and the TOTP secret never reached argv, output or error messages', () => {
    witness.expectNever([world.sandbox.login.password, world.sandbox.twoFactorUser.password], 'password');
    witness.expectNever([world.sandbox.twoFactorUser.totpSecret], 'TOTP secret');
  });
});
