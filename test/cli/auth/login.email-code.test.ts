// `hogctl auth login` where PostHog e-mails a code, in this process (docs/server-contract.md §11.5:
// newest servers answer the password step of an account without TOTP with 401
// `code_based_verification_required` and mail a 6-digit code; PostHog/posthog
// posthog/api/test/test_code_based_verification.py). The codes are read from the sandbox outbox,
// as a person reads their mailbox. The prompts on a real terminal: test/e2e/auth-email-code.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { expectSecretsOnlyIn, jarValues } from '../../e2e/secrets.js';
import { startSessionWorld, type SessionWorld } from '../session-fixtures.js';
import { emailCodeSteps } from './email-code-fixtures.js';

let session: SessionWorld;
let jarFile: string;

beforeAll(async () => {
  session = await startSessionWorld({ loginCodes: true });
  jarFile = session.jarFile();
});
afterAll(() => session.close());

const { sandbox, run, codes, latestCode, since, passwordStep } = emailCodeSteps(() => session);

describe('off a terminal: the password now, the code later', () => {
  it('the password step exits 4 naming the flag, keeps the pending sign-in, and mails one code', async () => {
    const mailed = codes().length;
    const res = await passwordStep();
    expect(res.code).toBe(4);
    expect(res.stderr).toMatch(/^error: PostHog e-mailed a sign-in code to sandbox@example\.com; this sign-in is waiting for it$/m);
    expect(res.stderr).toMatch(/hogctl auth login --email-code <code>.*--email-code-stdin/);
    expect(codes()).toHaveLength(mailed + 1);
    expect(JSON.parse(readFileSync(jarFile, 'utf8')).pending_code).toMatchObject({ email: 'sandbox@example.com' });
    const status = await run(['auth', 'status', '-o', 'json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ active: false, session: 'awaiting_code' });
  });

  it('a wrong code is refused (exit 4) and the right one then signs in, without the password', async () => {
    const before = sandbox().requests.length;
    const wrong = latestCode() === '000000' ? '111111' : '000000';
    const refused = await run(['auth', 'login', '--email-code-stdin'], wrong);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(
      /^error: the e-mailed code was not accepted: it is wrong, was replaced by a newer one, or is older than 10 minutes$/m,
    );
    const ok = await run(['auth', 'login', '--email-code-stdin'], latestCode());
    expect(ok.stderr).toContain('✔ signed in to');
    expect(ok.stderr).toContain('with the e-mailed code; this device is remembered');
    expect(ok.code).toBe(0);
    const sent = since(before);
    expect(sent.filter((r) => r.path === '/api/login/')).toHaveLength(0);
    expect(sent.filter((r) => r.path === '/api/login/code-based-verification/').map((r) => r.status)).toEqual([400, 200]);
    const me = await run(['users', 'me', '-o', 'json']);
    expect(me.code).toBe(0);
    expect(JSON.parse(readFileSync(jarFile, 'utf8')).cookies.some((c: { name: string }) => c.name.startsWith('remember-cookie_'))).toBe(
      true,
    );
  });

  it('the remember cookie skips the code on the next sign-in', async () => {
    const mailed = codes().length;
    const res = await passwordStep();
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('✔ signed in to');
    expect(codes()).toHaveLength(mailed);
  });

  it('--email-code with nothing waiting says so before sending anything', async () => {
    const before = sandbox().requests.length;
    const res = await session.world.run(['auth', 'login', '--email-code', '123456']);
    expect(res.code).toBe(4);
    expect(res.stderr).toMatch(/^error: no sign-in of .* is waiting for an e-mailed code$/m);
    expect(since(before)).toHaveLength(0);
  });

  it('--resend-code mails a new code and the old one stops working; resending twice within a minute says wait', async () => {
    const jar = JSON.parse(readFileSync(jarFile, 'utf8'));
    // Start over without the remember cookie, as on a new machine.
    jar.cookies = [];
    delete jar.user;
    writeFileSync(jarFile, JSON.stringify(jar));
    expect((await passwordStep()).code).toBe(4);
    const first = latestCode();
    session.advance(61_000);
    const resent = await run(['auth', 'login', '--resend-code']);
    expect(resent.code).toBe(0);
    expect(resent.stderr).toMatch(/PostHog e-mailed a new code to sandbox@example\.com; the previous one no longer works/);
    const second = latestCode();
    expect(second).not.toBe(first);
    const again = await run(['auth', 'login', '--resend-code']);
    expect(again.code).toBe(6);
    expect(again.stderr).toMatch(/^error: too many attempts: wait 1 minute before trying again$/m);
    if (first !== second) expect((await run(['auth', 'login', '--email-code-stdin'], first)).code).toBe(4);
    expect((await run(['auth', 'login', '--email-code-stdin'], second)).code).toBe(0);
  });
});

describe('secrets', () => {
  it('no code, password or cookie in any output, argv or file but the 0600 jar', () => {
    session.witness.expectNever([...codes(), sandbox().login.password, ...jarValues(jarFile)], 'a secret');
    expectSecretsOnlyIn(session.world.configDir, jarFile, [...codes(), sandbox().login.password, ...jarValues(jarFile)]);
  });
});
