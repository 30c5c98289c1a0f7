// `hogctl users 2fa status` in this process (test/cli/session-fixtures.ts): on, the method and the
// count of backup codes, and the codes themselves only when asked for. Its sentence on an
// 80-column terminal: test/e2e/status-summaries.test.ts.
import { describe, expect, it } from 'vitest';
import { useSignedInSession } from '../../session-fixtures.js';
import { expectShownOnlyOnStdout, turnOn } from './fixtures.js';

const shownSecrets: string[] = [];
const shownCodes: string[] = [];

const session = useSignedInSession(async () => {
  shownSecrets.push(await turnOn(session));
});

const account = () => session.world.sandbox.identity.byEmail('sandbox@example.com')!;

describe('users 2fa status', () => {
  it('status shows enabled, the method and the count, not the codes', async () => {
    const res = await session.run(['users', '2fa', 'status', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ user: '@me', enabled: true, method: 'TOTP', backup_codes_remaining: 0 });
  });

  it('status shows the unused codes only with --show-backup-codes, with a warning', async () => {
    const made = await session.run(['users', '2fa', 'backup-codes', '--yes']);
    expect(made.code).toBe(0);
    shownCodes.push(...made.stdout.trim().split('\n'));
    const plain = await session.run(['users', '2fa', 'status', '-o', 'json']);
    expect(JSON.parse(plain.stdout).backup_codes_remaining).toBe(5);
    expect(plain.stdout).not.toContain(account().backupCodes[0]);
    const shown = await session.run(['users', '2fa', 'status', '--show-backup-codes', '-o', 'json']);
    expect(JSON.parse(shown.stdout).backup_codes).toEqual(account().backupCodes);
    expect(shown.stderr).toContain('warning: the 5 backup codes below are secrets');
  });
});

describe('secrets', () => {
  it('never put the TOTP secret or backup codes in argv or on stderr, nor on disk outside the session file', () => {
    expectShownOnlyOnStdout(session, shownSecrets, shownCodes);
  });
});
