// The built binary on a real terminal: `hogctl users 2fa start` draws the QR code, `backup-codes`
// and `disable` ask first, and `enable` runs the whole set-up at its prompts. TOTP codes are
// computed here from the secret the CLI printed, on the sandbox's clock. The steps between run in
// this process (test/cli/harness.ts), as do the rest of the 2FA verbs: test/cli/users/2fa/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { startWorld, type RunOptions, type World } from './harness.js';
import { runCli } from '../cli/harness.js';
import { runInTerminal } from './terminal.js';
import { expectSecretsOnlyIn, jarValues, Witness } from './secrets.js';
import { totp, TOTP_STEP_SECONDS } from '@hogctl/sandbox';

let world: World;
let clock = Date.now();
const witness = new Witness();
const shownSecrets: string[] = [];
const shownCodes: string[] = [];

beforeAll(async () => {
  world = await startWorld({ persons: 5, now: () => clock });
  const res = await run(['auth', 'login', '--email', world.sandbox.login.email, '--password-stdin'], {
    stdin: world.sandbox.login.password,
  });
  expect(res.code).toBe(0);
});
afterAll(() => world.close());

/** A step with no terminal, in this process. */
async function run(args: string[], options: RunOptions = {}) {
  witness.ran(args);
  const res = await runCli(args, { ...options, env: { ...world.env, ...options.env } });
  witness.saw(res.stdout, res.stderr);
  return res;
}

async function terminal(args: string[], answers: Parameters<typeof runInTerminal>[2]) {
  witness.ran(args);
  const res = await runInTerminal(args, world.env, answers);
  return res;
}

const account = () => world.sandbox.identity.byEmail('sandbox@example.com')!;
/** Moves to the next 30-second step: a step used once is never accepted again. */
const nextStep = () => (clock += TOTP_STEP_SECONDS * 1000);

describe('2FA set up step by step: start', () => {
  it('start shows the secret, the otpauth URI and a QR code on a terminal', async () => {
    const res = await terminal(['users', '2fa', 'start'], []);
    expect(res.code).toBe(0);
    const secret = /secret: {2}([A-Z2-7]{32})/.exec(res.output)?.[1];
    expect(secret).toBeDefined();
    shownSecrets.push(secret!);
    expect(res.output).toContain(`URI:     otpauth://totp/PostHog:sandbox@example.com?secret=${secret}&issuer=PostHog`);
    expect(res.output).toMatch(/[█▀▄][█▀▄ ]{35}[█▀▄]/);
    expect(res.output).toContain('next: `hogctl users 2fa validate <code>`');
  });
});

describe('with 2FA on', () => {
  beforeAll(async () => {
    // start and validate (test/cli/users/2fa/validate.test.ts), as a script would.
    const started = await run(['users', '2fa', 'start', '-o', 'json']);
    expect(started.code).toBe(0);
    const { secret } = JSON.parse(started.stdout);
    shownSecrets.push(secret);
    expect((await run(['users', '2fa', 'validate', totp(secret, clock)])).code).toBe(0);
  });

  describe('backup codes', () => {
    it('a confirmation on a terminal asks first', async () => {
      const before = account().backupCodes;
      const res = await terminal(['users', '2fa', 'backup-codes'], [{ when: 'Make new backup codes?', send: 'y\r' }]);
      expect(res.code).toBe(0);
      expect(res.output).toContain('New backup codes will be made for sandbox@example.com');
      expect(account().backupCodes).not.toEqual(before);
      for (const code of account().backupCodes) expect(res.output).toContain(code);
      shownCodes.push(...account().backupCodes);
    });
  });

  describe('disable', () => {
    it('on a terminal, wants the e-mail typed; a typo is asked again, and an empty answer cancels with 130', async () => {
      const wrong = await terminal(
        ['users', '2fa', 'disable'],
        [
          { when: 'to confirm', send: 'someone@example.com\r' },
          { when: 'that is not sandbox@example.com', send: '\x15\r' },
        ],
      );
      expect(wrong.output).toContain('2FA will be turned off for sandbox@example.com');
      expect(wrong.output).toContain('cancelled; nothing was changed');
      expect(wrong.output).not.toContain('✔ 2FA is off');
      expect(wrong.code).toBe(130);
      expect(account().totp).not.toBeNull();

      const right = await terminal(['users', '2fa', 'disable'], [{ when: 'to confirm', send: 'sandbox@example.com\r' }]);
      expect(right.output).toContain('✔ 2FA is off for sandbox@example.com');
      expect(right.code).toBe(0);
      expect(account().totp).toBeNull();
      expect(account().backupCodes).toEqual([]);
      expect(world.sandbox.outbox.at(-1)?.kind).toBe('2fa_disabled');
    });
  });
});

describe('enable: the whole flow on a terminal', () => {
  it('shows the QR code, asks for a code (again after a wrong one), and prints backup codes once', async () => {
    nextStep();
    let secret = '';
    const res = await terminal(
      ['users', '2fa', 'enable'],
      [
        { when: 'Code from the app', send: '000000\r' },
        {
          when: 'try the next code',
          send: (screen) => {
            secret = /secret: {2}([A-Z2-7]{32})/.exec(screen)![1];
            return `${totp(secret, clock)}\r`;
          },
        },
      ],
    );
    expect(res.output).toContain('the 2FA code was not accepted; try the next code (2 tries left)');
    expect(res.output).toMatch(/[█▀▄][█▀▄ ]{35}[█▀▄]/);
    expect(res.output).toContain('✔ 2FA is on for sandbox@example.com');
    expect(res.code).toBe(0);
    shownSecrets.push(secret);
    expect(account().totp?.secret).toBe(secret);
    expect(account().backupCodes).toHaveLength(5);
    for (const code of account().backupCodes) expect(res.output).toContain(code);
    expect(res.output).toContain('these codes are shown once');
    shownCodes.push(...account().backupCodes);
  });

  it('refuses when 2FA is already on, and off a terminal', async () => {
    const on = await terminal(['users', '2fa', 'enable'], []);
    expect(on.code).toBe(2);
    expect(on.output).toContain('error: 2FA is already on for sandbox@example.com');
    const piped = await run(['users', '2fa', 'enable']);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('needs a terminal');
  });

  it('signing in again needs the code from the new device', async () => {
    nextStep();
    const res = await run(
      ['auth', 'login', '--email', 'sandbox@example.com', '--password-stdin', '--code', totp(account().totp!.secret, clock)],
      { stdin: world.sandbox.login.password },
    );
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('(with 2FA)');
  });
});

describe('secrets', () => {
  it('never put the TOTP secrets or backup codes in argv or on stderr, nor on disk outside the session file', () => {
    expect(shownSecrets.length).toBeGreaterThanOrEqual(3);
    // The secrets and codes were on stdout because they were asked for; everywhere else is clean.
    const stderrs = new Witness();
    stderrs.argvs.push(...witness.argvs);
    expect(witness.texts.length % 2).toBe(0);
    for (let i = 1; i < witness.texts.length; i += 2) stderrs.saw(witness.texts[i]);
    stderrs.expectNever(shownSecrets, 'TOTP secret');
    stderrs.expectNever(shownCodes, 'backup code');
    const jarFile = join(world.configDir, 'sessions', `@127.0.0.1_${world.sandbox.port}.json`);
    expectSecretsOnlyIn(world.configDir, jarFile, [...jarValues(jarFile), ...shownSecrets, ...shownCodes, world.sandbox.login.password]);
  });
});
