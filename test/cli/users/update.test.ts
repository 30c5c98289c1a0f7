// `hogctl users update` in this process (test/cli/session-fixtures.ts): a new e-mail address stays
// pending while PostHog mails it a code (the code itself: test/cli/email/verify.test.ts), typed
// fields with the API key, and what is refused before anything is sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectPasswordAndCookiesKept, signIn, startSessionWorld, type SessionWorld } from '../session-fixtures.js';

let session: SessionWorld;
let keyOnly: Record<string, string>;

beforeAll(async () => {
  session = await startSessionWorld();
  keyOnly = { HOGCTL_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'hogctl-cli-users-update-')) };
  await signIn(session);
});
afterAll(async () => {
  await session.close();
  rmSync(keyOnly.HOGCTL_CONFIG_DIR, { recursive: true, force: true });
});

const sandbox = () => session.world.sandbox;
const since = (n: number) => sandbox().requests.slice(n);
const lastMail = () => sandbox().outbox.at(-1)!;

describe('changing the e-mail', () => {
  it('users update --field email=... keeps the new address pending and says PostHog mailed it a code', async () => {
    const res = await session.run(['users', 'update', '--field', 'email=sandy@example.org', '--field', 'first_name=Sandy', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ email: 'sandbox@example.com', pending_email: 'sandy@example.org' });
    expect(res.stderr).toContain('sandy@example.org is pending: PostHog e-mailed it a 6-digit verification code');
    expect(res.stderr).toContain('`hogctl email verify <code>`');
    expect(res.stderr).not.toMatch(/link/);
    expect(lastMail()).toMatchObject({ kind: 'email_verification_code', to: 'sandy@example.org' });
    expect(lastMail().code).toMatch(/^\d{6}$/);
    expect(lastMail().link).toBeUndefined();
  });
});

describe('users update --field', () => {
  it('sends typed fields with the API key when there is no session', async () => {
    const before = sandbox().requests.length;
    const res = await session.run(
      [
        'users',
        'update',
        '--field',
        'last_name=Ng',
        '--field',
        'anonymize_data=true',
        '--field',
        'notification_settings={"plugin_disabled":false}',
      ],
      { env: keyOnly },
    );
    expect(res.code).toBe(0);
    const patch = since(before)[0];
    expect(patch.headers.authorization).toBe(`Bearer ${sandbox().defaultKey}`);
    expect(JSON.parse(patch.body)).toEqual({ last_name: 'Ng', anonymize_data: true, notification_settings: { plugin_disabled: false } });
    expect(sandbox().world.user.lastName).toBe('Ng');
  });

  it('refuses passwords, unknown fields and bad values before sending anything', async () => {
    const before = sandbox().requests.length;
    const password = await session.run(['users', 'update', '--field', 'password=hunter22']);
    expect(password.code).toBe(2);
    expect(password.stderr).toContain('hogctl never takes a password as a flag value');
    const unknown = await session.run(['users', 'update', '--field', 'nickname=Lee']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown user field "nickname" for --field: writable fields are first_name, last_name, email');
    const bad = await session.run(['users', 'update', '--field', 'anonymize_data=maybe']);
    expect(bad.stderr).toContain('invalid --field anonymize_data=maybe: expected true or false');
    expect((await session.run(['users', 'update'])).code).toBe(2);
    expect(sandbox().requests.length).toBe(before);
  });
});

describe('secrets', () => {
  it('the password and cookies stay in the session file', () => {
    expectPasswordAndCookiesKept(session);
  });
});
