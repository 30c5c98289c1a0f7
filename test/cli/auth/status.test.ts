// `hogctl auth status` in this process (test/cli/session-fixtures.ts): the user, the site, the
// session and the key in effect, and a session the server no longer accepts. What it says on an
// 80-column terminal: test/e2e/status-summaries.test.ts.
import { describe, expect, it } from 'vitest';
import { expectPasswordAndCookiesKept, useSignedInSession } from '../session-fixtures.js';

const session = useSignedInSession();

const sandbox = () => session.world.sandbox;

describe('auth status', () => {
  it('auth status shows the user, the site, the working session and the masked key', async () => {
    const res = await session.run(['auth', 'status', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({
      profile: null,
      site: sandbox().url,
      active: true,
      session: 'active',
      session_note: 'accepted by the server',
      user: 'sandbox@example.com',
      session_file: session.jarFile(),
      api_key: `phx_…${sandbox().defaultKey.slice(-4)}`,
      api_key_source: 'env',
    });
  });

  it('an expired session says to sign in again (exit 4)', async () => {
    session.advance(15 * 24 * 3600 * 1000);
    const res = await session.run(['users', '2fa', 'status']);
    expect(res.code).toBe(4);
    expect(res.stderr).toContain('error: session missing or expired: run `hogctl auth login`');
    const status = await session.run(['auth', 'status', '-o', 'json']);
    expect(status.code).toBe(4);
    expect(JSON.parse(status.stdout)).toMatchObject({ active: false, session: 'expired', session_note: 'the server answered 401' });
  });
});

describe('secrets', () => {
  it('the password and cookies stay in the session file', () => {
    expectPasswordAndCookiesKept(session);
  });
});
