// End-to-end, on a real 80-column terminal: `auth status`, `users 2fa status` and `profile show`
// give a person a few sentences, and the fields only when asked for (-o, --fields) or piped. The
// sign-ins and the piped run are steps in this process (test/cli/harness.ts); the sign-in that
// replaces another account's session is tested there: test/cli/auth/login.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { runCli } from '../cli/harness.js';
import { runInTerminal } from './terminal.js';
import { totp } from '@hogctl/sandbox';

let world: World;
beforeAll(async () => {
  world = await startWorld({ persons: 5 });
  const login = await runCli(['auth', 'login', '--email', world.sandbox.login.email, '--password-stdin'], {
    stdin: world.sandbox.login.password,
    env: world.env,
  });
  expect(login.code).toBe(0);
});
afterAll(() => world.close());

const screen = async (args: string[], env: Record<string, string | undefined> = {}, fits = true) => {
  const res = await runInTerminal(args, { ...world.env, ...env }, [], 30_000, { columns: 80, rows: 24 });
  const lines = res.output.replace(/\r/g, '').split('\n').filter(Boolean);
  // The record view keeps a long path whole (to copy it); hogctl's own sentences fit.
  if (fits) for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  return { code: res.code, lines };
};
const host = () => `127.0.0.1:${world.sandbox.port}`;

describe('auth status', () => {
  it('says who is signed in where, and which key is in effect, in three lines', async () => {
    const { code, lines } = await screen(['auth', 'status']);
    expect(code).toBe(0);
    expect(lines[0]).toBe(host());
    expect(lines[1]).toMatch(/^ {2}✔ Signed in as sandbox@example\.com since \d{4}-\d\d-\d\d \d\d:\d\d, and the server/);
    expect(lines.join('\n')).toMatch(/✔ API key phx_\S+ \(from HOGCTL_API_KEY\), label "[^"]*", scopes all/);
    expect(lines.join('\n')).not.toContain('session_file');
  });

  it('says plainly when no session is signed in, and still exits 4', async () => {
    const { code, lines } = await screen(['auth', 'status'], { HOGCTL_CONFIG_DIR: `${world.configDir}/elsewhere` });
    expect(code).toBe(4);
    expect(lines[1]).toBe('  ✗ Not signed in');
    expect(lines.join('\n')).toContain('error: not signed in to');
  });

  it('keeps every field for -o table, --fields and a pipe', async () => {
    const { lines } = await screen(['auth', 'status', '-o', 'table'], {}, false);
    expect(lines.join('\n')).toMatch(/^session_file:/m);
    const piped = await runCli(['auth', 'status'], { env: world.env });
    expect(piped.stdout).toMatch(/^user\tsandbox@example\.com$/m);
  });
});

describe('users 2fa status', () => {
  it('says whether 2FA is on, in one sentence', async () => {
    const { code, lines } = await screen(['users', '2fa', 'status'], { HOGCTL_API_KEY: undefined });
    expect(code).toBe(0);
    // The session's user by address, so that a profile with another user's key is not misread.
    // A continuation line is indented under the first.
    expect(lines.map((line) => line.trimStart()).join(' ')).toBe(
      '✗ Two-factor authentication is off for you (sandbox@example.com): turn it on with `hogctl users 2fa enable`',
    );
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  });
});

describe('profile show', () => {
  it('names each setting in effect and where it comes from', async () => {
    const { code, lines } = await screen(['profile', 'show']);
    expect(code).toBe(0);
    expect(lines[0]).toBe('Settings in effect (no profile)');
    expect(lines[1]).toBe(`  site:     ${world.sandbox.url} (from HOGCTL_BASE_URL)`);
    expect(lines[2]).toBe('  project:  1 (from HOGCTL_PROJECT_ID)');
    expect(lines[3]).toMatch(/^ {2}API key: {2}phx_\S+ \(from HOGCTL_API_KEY\)/);
  });
});

describe('auth login as another account', () => {
  beforeAll(async () => {
    const other = world.sandbox.twoFactorUser;
    const res = await runCli(['auth', 'login', '--email', other.email, '--password-stdin', '--code', totp(other.totpSecret, Date.now())], {
      stdin: other.password,
      env: world.env,
    });
    expect(res.code, res.stderr).toBe(0);
  });

  it("auth status then says the key is another user's, and who each kind of command acts as", async () => {
    const other = world.sandbox.twoFactorUser.email;
    const { code, lines } = await screen(['auth', 'status']);
    expect(code).toBe(0);
    expect(lines.slice(3).join(' ').replace(/\s+/g, ' ')).toContain(
      `✗ The API key is sandbox@example.com's, not ${other}'s: users and email commands act as ${other} (the session), the others as sandbox@example.com (the key)`,
    );
  });
});
