// `hogctl users me` in this process (test/cli/session-fixtures.ts): the signed-in user, through
// the session, as JSON and as a record.
import { describe, expect, it } from 'vitest';
import { useSignedInSession } from '../session-fixtures.js';

const session = useSignedInSession();

const sandbox = () => session.world.sandbox;

describe('users me', () => {
  it('shows the signed-in user through the session', async () => {
    const before = sandbox().requests.length;
    const res = await session.run(['users', 'me', '-o', 'json'], { env: { HOGCTL_API_KEY: undefined } });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({
      email: 'sandbox@example.com',
      is_2fa_enabled: false,
      uuid: sandbox().world.user.uuid,
    });
    expect(sandbox().requests.slice(before)[0].headers.cookie).toMatch(/sessionid=/);
    const table = await session.run(['users', 'me'], { env: { HOGCTL_API_KEY: undefined } });
    expect(
      table.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')),
    ).toEqual([
      ['uuid', sandbox().world.user.uuid],
      ['email', 'sandbox@example.com'],
      ['first_name', 'Sandy'],
      ['last_name', 'Box'],
      ['pending_email', ''],
      ['is_email_verified', 'true'],
      ['is_2fa_enabled', 'false'],
    ]);
  });
});
