// `hogctl email request-verification` in this process: a new code replaces the previous one (and
// `email verify -` reads it from standard input), nothing to verify, and a uuid of no one.
import { describe, expect, it } from 'vitest';
import { expectPasswordAndCookiesKept, useSignedInSession } from '../session-fixtures.js';
import { mailbox } from './fixtures.js';

const session = useSignedInSession();
const mail = mailbox(session);

const sandbox = () => session.world.sandbox;
const run = (args: string[], stdin?: string) => session.run(args, { stdin });

describe('a new code, and the code from standard input', () => {
  it('request-verification asks for a new code; the previous one stops working; verify reads it from stdin with "-"', async () => {
    await mail.changeEmailTo('lee@example.org');
    const first = mail.lastCode();
    session.advance(1000); // codes issued in the same second for the same address are the same code
    const mails = sandbox().outbox.length;
    const res = await run(['email', 'request-verification']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('✔ asked PostHog to e-mail a new verification code to lee@example.org');
    expect(res.stderr).not.toMatch(/link/);
    expect(sandbox().outbox.length).toBe(mails + 1);
    expect(JSON.parse(sandbox().requests.at(-1)!.body)).toEqual({ uuid: mail.uuid() });
    expect(mail.lastMail()).toMatchObject({ kind: 'email_verification_code', to: 'lee@example.org' });

    const stale = await run(['email', 'verify', first]);
    expect(stale.code).toBe(5);
    const verified = await run(['email', 'verify', '-'], `${mail.lastCode()}\n`);
    expect(verified.code).toBe(0);
    expect(sandbox().world.user.email).toBe('lee@example.org');
  });

  it('with nothing to verify, request-verification says so (PostHog sends nothing)', async () => {
    const mails = sandbox().outbox.length;
    const res = await run(['email', 'request-verification']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('nothing to verify: PostHog says the address is already verified and no change is pending');
    expect(sandbox().outbox.length).toBe(mails);
  });

  it('says success for an unknown uuid (as the server does) and rejects a malformed one', async () => {
    const mails = sandbox().outbox.length;
    const unknown = await run(['email', 'request-verification', '--uuid', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).toBe(0);
    expect(unknown.stderr).toContain('(if that user exists)');
    expect(sandbox().outbox.length).toBe(mails);
    const bad = await run(['email', 'request-verification', '--uuid', 'me']);
    expect(bad.code).toBe(2);
  });
});

describe('secrets', () => {
  it('the password and cookies stay in the session file', () => {
    expectPasswordAndCookiesKept(session);
  });
});
