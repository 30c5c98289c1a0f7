// `hogctl email verify` in this process against an older server, which mails a link instead of a
// code: the link, --uuid with --token, and what is refused before anything is sent.
import { describe, expect, it } from 'vitest';
import { expectPasswordAndCookiesKept, useSignedInSession } from '../session-fixtures.js';
import { mailbox } from './fixtures.js';

const session = useSignedInSession(async () => {
  session.world.sandbox.identity.linkVerification = true;
});
const mail = mailbox(session);

const sandbox = () => session.world.sandbox;
const run = (args: string[]) => session.run(args);

describe('older servers: the link', () => {
  it('email verify <link> verifies, sending uuid and token, no credentials', async () => {
    await mail.changeEmailTo('sandy@example.net');
    const { link, token } = mail.lastMail();
    expect(mail.lastMail()).toMatchObject({ kind: 'email_verification', to: 'sandy@example.net' });
    const before = sandbox().requests.length;
    const res = await run(['email', 'verify', `${link}?next=/project/1`]);
    expect(res.stderr).toContain(`✔ e-mail address verified for user ${mail.uuid()}`);
    expect(res.code).toBe(0);
    const [post] = mail.since(before);
    expect(post).toMatchObject({ method: 'POST', path: '/api/users/verify_email/', status: 200 });
    expect(JSON.parse(post.body)).toEqual({ uuid: mail.uuid(), token });
    expect(post.headers.authorization).toBeUndefined();
    expect(post.headers.cookie).toBeUndefined();
    expect(sandbox().world.user.email).toBe('sandy@example.net');
  });

  it('the same link a second time is refused (exit 5) and says how to get a new one', async () => {
    const res = await run(['email', 'verify', mail.lastMail().link!]);
    expect(res.code).toBe(5);
    expect(res.stderr).toContain('error: the verification link is invalid or has expired');
    expect(res.stderr).toContain('hogctl email request-verification');
  });

  it('verifies with --uuid and --token too', async () => {
    await mail.changeEmailTo('lee@example.net');
    const { uuid: user, token } = mail.lastMail();
    const res = await run(['email', 'verify', '--uuid', user!, '--token', token!]);
    expect(res.code).toBe(0);
  });

  it('a code given to an older server: says the server wants the link it mailed (exit 2)', async () => {
    await mail.changeEmailTo('kim@example.net');
    const res = await run(['email', 'verify', '123456']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('error: this PostHog server verifies with the link it e-mailed, not a code');
    expect((await run(['email', 'cancel-change'])).code).toBe(0);
  });

  it('refuses a link for another site, or a malformed one, before sending anything', async () => {
    const before = sandbox().requests.length;
    const other = await run(['email', 'verify', `https://eu.posthog.com/verify_email/${mail.uuid()}/abc-123`]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`error: the link is for https://eu.posthog.com, but hogctl is set to ${sandbox().url}`);
    const bad = await run(['email', 'verify', `${sandbox().url}/verify/nothing`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not a verification link');
    const half = await run(['email', 'verify', '--token', 'abc-123']);
    expect(half.code).toBe(2);
    expect(half.stderr).toContain('--token needs --uuid');
    expect(sandbox().requests.length).toBe(before);
  });
});

describe('secrets', () => {
  it('the password and cookies stay in the session file', () => {
    expectPasswordAndCookiesKept(session);
  });
});
