// `hogctl email verify` in this process (test/cli/session-fixtures.ts): the 6-digit code from the
// sandbox's outbox (as current PostHog servers mail it), PostHog's attempt cap and expiry, and a
// link given to a server that mails codes. The link older servers mail: verify.link.test.ts; the
// code typed at a hidden prompt, on a real terminal: test/e2e/email.test.ts.
import { describe, expect, it } from 'vitest';
import { expectPasswordAndCookiesKept, useSignedInSession } from '../session-fixtures.js';
import { mailbox } from './fixtures.js';

const session = useSignedInSession(async () => {
  await mail.changeEmailTo('sandy@example.org');
});
const mail = mailbox(session);

const sandbox = () => session.world.sandbox;
const run = (args: string[]) => session.run(args);

describe('verifying the e-mail with the e-mailed code', () => {
  it('a wrong code is refused (exit 5), says how to get a new one, and changes nothing', async () => {
    const res = await run(['email', 'verify', mail.wrongCode()]);
    expect(res.code).toBe(5);
    expect(res.stderr).toContain('error: the verification code is wrong, has expired, or was replaced by a newer one');
    expect(res.stderr).toContain('`hogctl email request-verification`');
    expect(mail.account().pendingEmail).toBe('sandy@example.org');
  });

  it('email verify <code> verifies the pending address, sending only uuid and code, no credentials', async () => {
    const code = mail.lastCode();
    const before = sandbox().requests.length;
    const res = await run(['email', 'verify', code.replace(/^(\d{3})/, '$1 ')]);
    expect(res.stderr).toContain(`✔ e-mail address sandy@example.org verified for user ${mail.uuid()}`);
    expect(res.code).toBe(0);
    const post = mail.since(before).find((r) => r.method === 'POST')!;
    expect(post).toMatchObject({ path: '/api/users/verify_email/', status: 200 });
    expect(JSON.parse(post.body)).toEqual({ uuid: mail.uuid(), code });
    expect(post.headers.authorization).toBeUndefined();
    expect(post.headers.cookie).toBeUndefined();
    expect(sandbox().world.user.email).toBe('sandy@example.org');
    expect(mail.account().pendingEmail).toBeNull();
    expect(res.stdout + res.stderr).not.toContain(code);
  });

  it('with nothing pending, says there is nothing to verify and sends no code', async () => {
    const before = sandbox().requests.length;
    const res = await run(['email', 'verify', '123456']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('nothing to verify: sandy@example.org is verified and no change of address is pending');
    expect(mail.since(before).filter((r) => r.path === '/api/users/verify_email/')).toEqual([]);
  });

  it('refuses a malformed code, or no code off a terminal, before sending anything (exit 2)', async () => {
    const before = sandbox().requests.length;
    const short = await run(['email', 'verify', '12345']);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('error: invalid verification code "12345": expected the 6 digits from the e-mail');
    const none = await run(['email', 'verify']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('error: no verification code given');
    expect(none.stderr).toContain('hogctl email verify -');
    expect(sandbox().requests.length).toBe(before);
  });
});

describe('attempts and expiry, as PostHog counts them', () => {
  it('after 5 wrong codes even the right one is refused, a new code does not reset the count, and the window ends', async () => {
    // Past the window of PostHog's own per-uuid throttle (6 tries in 20 minutes) left by the tests above.
    session.advance(21 * 60 * 1000);
    await mail.changeEmailTo('max@example.org');
    for (let i = 0; i < 5; i++) expect((await run(['email', 'verify', mail.wrongCode(), '--uuid', mail.uuid()])).code).toBe(5);
    const locked = await run(['email', 'verify', mail.lastCode(), '--uuid', mail.uuid()]);
    expect(locked.code).toBe(5);
    expect(locked.stderr).toContain('error: too many wrong codes: PostHog refuses more tries for this user for now');
    expect(locked.stderr).toContain(`\`hogctl email request-verification --uuid ${mail.uuid()}\``);
    expect(mail.account().pendingEmail).toBe('max@example.org');

    // A new code does not reset the count (the request endpoint is public)...
    session.advance(21 * 60 * 1000);
    expect((await run(['email', 'request-verification'])).code).toBe(0);
    expect((await run(['email', 'verify', mail.lastCode()])).stderr).toContain('too many wrong codes');
    // ...which ends 30 minutes after the first try; the new code, 10 minutes old, then works.
    session.advance(10 * 60 * 1000);
    const res = await run(['email', 'verify', mail.lastCode()]);
    expect(res.code).toBe(0);
    expect(sandbox().world.user.email).toBe('max@example.org');
  });

  it('a code older than 30 minutes is refused as expired', async () => {
    await mail.changeEmailTo('old@example.org');
    const code = mail.lastCode();
    session.advance(30 * 60 * 1000 + 1000);
    const res = await run(['email', 'verify', code]);
    expect(res.code).toBe(5);
    expect(res.stderr).toContain('has expired');
    expect(res.stderr).toContain('`hogctl email request-verification`');
    expect(mail.account().pendingEmail).toBe('old@example.org');
    expect((await run(['email', 'cancel-change'])).code).toBe(0);
  });
});

describe('a link given to a current server', () => {
  it('says the server verifies with a code (exit 2)', async () => {
    await mail.changeEmailTo('ada@example.org');
    const res = await run(['email', 'verify', `${sandbox().url}/verify_email/${mail.uuid()}/abc-123`]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('error: this PostHog server verifies with a 6-digit code, not a link');
    expect(res.stderr).toContain('`hogctl email verify <code>`');
    expect(mail.account().pendingEmail).toBe('ada@example.org');
  });
});

describe('secrets', () => {
  it('the password and cookies stay in the session file', () => {
    expectPasswordAndCookiesKept(session);
  });
});
