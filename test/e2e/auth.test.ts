// The built binary on a real terminal: `hogctl auth login` asks for the e-mail, the hidden
// password and a 2FA code at its prompts. The rest of the auth verbs and the session are tested in
// this process: test/cli/auth/login.test.ts, status.test.ts, logout.test.ts,
// test/cli/users/update.session.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld, type World } from './harness.js';
import { runInTerminal } from './terminal.js';
import { Witness } from './secrets.js';

let world: World;
let clock = Date.now();
const witness = new Witness();
const dirs: string[] = [];

beforeAll(async () => {
  world = await startWorld({ persons: 5, now: () => clock });
});
afterAll(async () => {
  await world.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A config dir of its own, for each sign-in. */
function otherConfig(): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'hogctl-e2e-auth-'));
  dirs.push(dir);
  return { HOGCTL_CONFIG_DIR: dir };
}

describe('auth login without 2FA', () => {
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
});

describe('auth login with 2FA', () => {
  const user = () => world.sandbox.twoFactorUser;

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
