// `hogctl users 2fa disable` in this process: with 2FA off there is nothing to do. Turning it off,
// the e-mail typed to confirm on a real terminal: test/e2e/users-2fa.test.ts.
import { describe, expect, it } from 'vitest';
import { useSignedInSession } from '../../session-fixtures.js';

const session = useSignedInSession();

describe('disable', () => {
  it('says so when 2FA is already off', async () => {
    const res = await session.run(['users', '2fa', 'disable', '--yes']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('2FA is already off for sandbox@example.com; nothing to do');
  });
});
