// `hogctl users 2fa validate` in this process (test/cli/session-fixtures.ts): a wrong code, a
// setup past its 10 minutes (on the sandbox's clock), a malformed code, then 2FA on. The QR code
// `start` draws on a real terminal: test/e2e/users-2fa.test.ts, test/e2e/terminal-output.test.ts.
import { describe, expect, it } from 'vitest';
import { totp } from '@hogctl/sandbox';
import { useSignedInSession } from '../../session-fixtures.js';
import { expectShownOnlyOnStdout, startSetup } from './fixtures.js';

const shownSecrets: string[] = [];

const session = useSignedInSession();

const sandbox = () => session.world.sandbox;
const account = () => sandbox().identity.byEmail('sandbox@example.com')!;

describe('2FA set up step by step: start, validate', () => {
  it('validate refuses a wrong code and an expired setup with exit 4, then turns 2FA on', async () => {
    let secret = await startSetup(session);
    shownSecrets.push(secret);
    const wrong = await session.run(['users', '2fa', 'validate', '000000']);
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toContain('error: the 2FA code was not accepted');

    session.advance(601_000);
    const late = await session.run(['users', '2fa', 'validate', totp(secret, session.now())]);
    expect(late.code).toBe(4);
    expect(late.stderr).toContain('error: 2FA setup expired, or was not started in this session');
    expect(late.stderr).toContain('hogctl users 2fa start');

    const bad = await session.run(['users', '2fa', 'validate', '12345']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid 2FA code');

    secret = await startSetup(session);
    shownSecrets.push(secret);
    const before = sandbox().requests.length;
    const code = totp(secret, session.now());
    const ok = await session.run(['users', '2fa', 'validate', code]);
    expect(ok.stderr).toContain('✔ 2FA is on');
    expect(ok.code).toBe(0);
    const post = sandbox()
      .requests.slice(before)
      .find((r) => r.method === 'POST')!;
    expect(post.path).toBe('/api/users/@me/two_factor_validate/');
    expect(JSON.parse(post.body)).toEqual({ token: code });
    expect(account().totp?.secret).toBe(secret);
    expect(sandbox().outbox.at(-1)).toMatchObject({ kind: '2fa_enabled', to: 'sandbox@example.com' });
  });
});

describe('secrets', () => {
  it('never put the TOTP secrets in argv or on stderr, nor on disk outside the session file', () => {
    expect(shownSecrets).toHaveLength(2);
    expectShownOnlyOnStdout(session, shownSecrets, []);
  });
});
