// `hogctl email cancel-change` in this process: a pending change dropped (its code then changes
// nothing), none to drop, and no session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectPasswordAndCookiesKept, signIn, startSessionWorld, type SessionWorld } from '../session-fixtures.js';
import { mailbox } from './fixtures.js';

let session: SessionWorld;
let mail: ReturnType<typeof mailbox>;
let keyOnly: Record<string, string>;

beforeAll(async () => {
  session = await startSessionWorld();
  mail = mailbox(session);
  keyOnly = { HOGCTL_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'hogctl-cli-cancel-change-')) };
  await signIn(session);
});
afterAll(async () => {
  await session.close();
  rmSync(keyOnly.HOGCTL_CONFIG_DIR, { recursive: true, force: true });
});

const sandbox = () => session.world.sandbox;

describe('cancel-change', () => {
  it('drops a pending change, and its code stops working; with none pending, exit 5', async () => {
    const current = sandbox().world.user.email;
    await mail.changeEmailTo('elsewhere@example.org');
    const code = mail.lastCode();
    const before = sandbox().requests.length;
    const res = await session.run(['email', 'cancel-change', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(`✔ cancelled the change to elsewhere@example.org; the address stays ${current}`);
    expect(JSON.parse(res.stdout)).toMatchObject({ email: current, pending_email: null });
    const patch = mail.since(before).find((r) => r.method === 'PATCH')!;
    expect(patch.path).toBe('/api/users/cancel_email_change_request/');
    expect(patch.headers['x-csrftoken']).toBeTruthy();
    expect(mail.account().pendingEmail).toBeNull();

    // PostHog answers a code with nothing pending as a repeat of a used one: success, no change.
    await session.run(['email', 'verify', code, '--uuid', mail.uuid()]);
    expect(sandbox().world.user.email).toBe(current);

    const none = await session.run(['email', 'cancel-change']);
    expect(none.code).toBe(5);
    expect(none.stderr).toContain(`error: no pending e-mail change to cancel: the address is ${current}`);
  });

  it('needs a session: with only an API key it exits 4 and sends nothing', async () => {
    const before = sandbox().requests.length;
    const res = await session.run(['email', 'cancel-change'], { env: keyOnly });
    expect(res.code).toBe(4);
    expect(res.stderr).toContain('error: not signed in: run `hogctl auth login`');
    expect(sandbox().requests.length).toBe(before);
  });
});

describe('secrets', () => {
  it('the password and cookies stay in the session file', () => {
    expectPasswordAndCookiesKept(session);
  });
});
