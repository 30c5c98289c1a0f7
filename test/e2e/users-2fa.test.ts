// End-to-end: `hogctl users me` and `hogctl users 2fa ...` against the sandbox, signed in with a
// session. TOTP codes are computed here from the secret the CLI printed, on the sandbox's clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { startWorld, type RunOptions, type World } from './harness.js';
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
  const res = await world.run(['auth', 'login', '--email', world.sandbox.login.email, '--password-stdin'], {
    stdin: world.sandbox.login.password,
  });
  expect(res.code).toBe(0);
});
afterAll(() => world.close());

async function run(args: string[], options: RunOptions = {}) {
  witness.ran(args);
  const res = await world.run(args, options);
  witness.saw(res.stdout, res.stderr);
  return res;
}

async function terminal(args: string[], answers: Parameters<typeof runInTerminal>[2]) {
  witness.ran(args);
  const res = await runInTerminal(args, world.env, answers);
  return res;
}

const account = () => world.sandbox.identity.byEmail('sandbox@example.com')!;
const since = (n: number) => world.sandbox.requests.slice(n);
/** Moves to the next 30-second step: a step used once is never accepted again. */
const nextStep = () => (clock += TOTP_STEP_SECONDS * 1000);

async function startSetup(): Promise<string> {
  const res = await run(['users', '2fa', 'start', '-o', 'json', '--debug']);
  expect(res.code).toBe(0);
  const record = JSON.parse(res.stdout);
  expect(record).toMatchObject({ user: '@me', email: 'sandbox@example.com', expires_in_seconds: 600 });
  expect(record.otpauth_uri).toBe(`otpauth://totp/PostHog:sandbox@example.com?secret=${record.secret}&issuer=PostHog`);
  expect(res.stderr).toContain('warning: the secret is a credential');
  expect(res.stderr).not.toContain(record.secret);
  shownSecrets.push(record.secret);
  return record.secret;
}

describe('users me', () => {
  it('shows the signed-in user through the session', async () => {
    const before = world.sandbox.requests.length;
    const res = await run(['users', 'me', '-o', 'json'], { env: { HOGCTL_API_KEY: undefined } });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({
      email: 'sandbox@example.com',
      is_2fa_enabled: false,
      uuid: world.sandbox.world.user.uuid,
    });
    expect(since(before)[0].headers.cookie).toMatch(/sessionid=/);
    const table = await run(['users', 'me'], { env: { HOGCTL_API_KEY: undefined } });
    expect(
      table.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')),
    ).toEqual([
      ['uuid', world.sandbox.world.user.uuid],
      ['email', 'sandbox@example.com'],
      ['first_name', 'Sandy'],
      ['last_name', 'Box'],
      ['pending_email', ''],
      ['is_email_verified', 'true'],
      ['is_2fa_enabled', 'false'],
    ]);
  });
});

describe('2FA set up step by step: start, validate', () => {
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

  it('validate refuses a wrong code and an expired setup with exit 4, then turns 2FA on', async () => {
    let secret = await startSetup();
    const wrong = await run(['users', '2fa', 'validate', '000000']);
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toContain('error: the 2FA code was not accepted');

    clock += 601_000;
    const late = await run(['users', '2fa', 'validate', totp(secret, clock)]);
    expect(late.code).toBe(4);
    expect(late.stderr).toContain('error: 2FA setup expired, or was not started in this session');
    expect(late.stderr).toContain('hogctl users 2fa start');

    const bad = await run(['users', '2fa', 'validate', '12345']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid 2FA code');

    secret = await startSetup();
    const before = world.sandbox.requests.length;
    const code = totp(secret, clock);
    const ok = await run(['users', '2fa', 'validate', code]);
    expect(ok.stderr).toContain('✔ 2FA is on');
    expect(ok.code).toBe(0);
    const post = since(before).find((r) => r.method === 'POST')!;
    expect(post.path).toBe('/api/users/@me/two_factor_validate/');
    expect(JSON.parse(post.body)).toEqual({ token: code });
    expect(account().totp?.secret).toBe(secret);
    expect(world.sandbox.outbox.at(-1)).toMatchObject({ kind: '2fa_enabled', to: 'sandbox@example.com' });
  });

  it('status shows enabled, the method and the count, not the codes', async () => {
    const res = await run(['users', '2fa', 'status', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ user: '@me', enabled: true, method: 'TOTP', backup_codes_remaining: 0 });
  });
});

describe('backup codes', () => {
  it('refuse to replace the codes off a terminal without --yes, sending nothing', async () => {
    const before = world.sandbox.requests.length;
    const res = await run(['users', '2fa', 'backup-codes']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('refusing without confirmation');
    expect(since(before).some((r) => r.method === 'POST')).toBe(false);
  });

  it('make five codes with --yes; a new set replaces the old one', async () => {
    const first = await run(['users', '2fa', 'backup-codes', '--yes']);
    expect(first.code).toBe(0);
    const codes = first.stdout.trim().split('\n');
    expect(codes).toEqual(account().backupCodes);
    expect(codes).toHaveLength(5);
    expect(first.stderr).toContain('warning: the 5 backup codes below are secrets');
    for (const code of codes) expect(first.stderr).not.toContain(code);

    const second = await run(['users', '2fa', 'backup-codes', '--yes', '-o', 'json']);
    const json = JSON.parse(second.stdout);
    expect(json).toMatchObject({ user: '@me', email: 'sandbox@example.com' });
    expect(json.backup_codes).toEqual(account().backupCodes);
    expect(json.backup_codes.some((c: string) => codes.includes(c))).toBe(false);
    shownCodes.push(...codes, ...json.backup_codes);
  });

  it('status shows the unused codes only with --show-backup-codes, with a warning', async () => {
    const plain = await run(['users', '2fa', 'status', '-o', 'json']);
    expect(JSON.parse(plain.stdout).backup_codes_remaining).toBe(5);
    expect(plain.stdout).not.toContain(account().backupCodes[0]);
    const shown = await run(['users', '2fa', 'status', '--show-backup-codes', '-o', 'json']);
    expect(JSON.parse(shown.stdout).backup_codes).toEqual(account().backupCodes);
    expect(shown.stderr).toContain('warning: the 5 backup codes below are secrets');
  });

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

  it('says so when 2FA is already off', async () => {
    const res = await run(['users', '2fa', 'disable', '--yes']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('2FA is already off for sandbox@example.com; nothing to do');
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
