// `hogctl users 2fa backup-codes` in this process (test/cli/session-fixtures.ts): no new codes off
// a terminal without --yes, five with it, each set replacing the last. The confirmation asked on a
// real terminal: test/e2e/users-2fa.test.ts.
import { describe, expect, it } from 'vitest';
import { useSignedInSession } from '../../session-fixtures.js';
import { expectShownOnlyOnStdout, turnOn } from './fixtures.js';

const shownSecrets: string[] = [];
const shownCodes: string[] = [];

const session = useSignedInSession(async () => {
  shownSecrets.push(await turnOn(session));
});

const sandbox = () => session.world.sandbox;
const account = () => sandbox().identity.byEmail('sandbox@example.com')!;

describe('backup codes', () => {
  it('refuse to replace the codes off a terminal without --yes, sending nothing', async () => {
    const before = sandbox().requests.length;
    const res = await session.run(['users', '2fa', 'backup-codes']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('refusing without confirmation');
    expect(
      sandbox()
        .requests.slice(before)
        .some((r) => r.method === 'POST'),
    ).toBe(false);
  });

  it('make five codes with --yes; a new set replaces the old one', async () => {
    const first = await session.run(['users', '2fa', 'backup-codes', '--yes']);
    expect(first.code).toBe(0);
    const codes = first.stdout.trim().split('\n');
    expect(codes).toEqual(account().backupCodes);
    expect(codes).toHaveLength(5);
    expect(first.stderr).toContain('warning: the 5 backup codes below are secrets');
    for (const code of codes) expect(first.stderr).not.toContain(code);

    const second = await session.run(['users', '2fa', 'backup-codes', '--yes', '-o', 'json']);
    const json = JSON.parse(second.stdout);
    expect(json).toMatchObject({ user: '@me', email: 'sandbox@example.com' });
    expect(json.backup_codes).toEqual(account().backupCodes);
    expect(json.backup_codes.some((c: string) => codes.includes(c))).toBe(false);
    shownCodes.push(...codes, ...json.backup_codes);
  });
});

describe('secrets', () => {
  it('never put the TOTP secret or backup codes in argv or on stderr, nor on disk outside the session file', () => {
    expectShownOnlyOnStdout(session, shownSecrets, shownCodes);
  });
});
