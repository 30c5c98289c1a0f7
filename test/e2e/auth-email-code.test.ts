// End-to-end: signing in where PostHog e-mails a code (docs/server-contract.md §11.5: newest servers answer the
// password step of an account without TOTP with 401 `code_based_verification_required` and mail a
// 6-digit code; PostHog/posthog posthog/api/test/test_code_based_verification.py). The codes are
// read from the sandbox outbox, as a person reads their mailbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startWorld, type RunOptions, type World } from './harness.js';
import { runInTerminal } from './terminal.js';
import { expectSecretsOnlyIn, jarValues, Witness } from './secrets.js';

let world: World;
let clock = Date.now();
const witness = new Witness();
let jarFile: string;

beforeAll(async () => {
  world = await startWorld({ persons: 5, now: () => clock, loginCodes: true });
  jarFile = join(world.configDir, 'sessions', `@127.0.0.1_${world.sandbox.port}.json`);
});
afterAll(() => world.close());

async function run(args: string[], options: RunOptions = {}) {
  witness.ran(args);
  const res = await world.run(args, options);
  witness.saw(res.stdout, res.stderr);
  return res;
}

const codes = () => world.sandbox.outbox.filter((m) => m.kind === 'login_code').map((m) => m.code!);
const latestCode = () => codes().at(-1)!;
const since = (n: number) => world.sandbox.requests.slice(n);
const passwordStep = () =>
  run(['auth', 'login', '--email', world.sandbox.login.email, '--password-stdin'], { stdin: world.sandbox.login.password });

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
    const before = world.sandbox.requests.length;
    const wrong = latestCode() === '000000' ? '111111' : '000000';
    const refused = await run(['auth', 'login', '--email-code-stdin'], { stdin: wrong });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(
      /^error: the e-mailed code was not accepted: it is wrong, was replaced by a newer one, or is older than 10 minutes$/m,
    );
    const ok = await run(['auth', 'login', '--email-code-stdin'], { stdin: latestCode() });
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
    const before = world.sandbox.requests.length;
    const res = await world.run(['auth', 'login', '--email-code', '123456']);
    expect(res.code).toBe(4);
    expect(res.stderr).toMatch(/^error: no sign-in of .* is waiting for an e-mailed code$/m);
    expect(since(before)).toHaveLength(0);
  });

  it('--resend-code mails a new code and the old one stops working; resending twice within a minute says wait', async () => {
    const jar = JSON.parse(readFileSync(jarFile, 'utf8'));
    // Start over without the remember cookie, as on a new machine.
    jar.cookies = [];
    delete jar.user;
    (await import('node:fs')).writeFileSync(jarFile, JSON.stringify(jar));
    expect((await passwordStep()).code).toBe(4);
    const first = latestCode();
    clock += 61_000;
    const resent = await run(['auth', 'login', '--resend-code']);
    expect(resent.code).toBe(0);
    expect(resent.stderr).toMatch(/PostHog e-mailed a new code to sandbox@example\.com; the previous one no longer works/);
    const second = latestCode();
    expect(second).not.toBe(first);
    const again = await run(['auth', 'login', '--resend-code']);
    expect(again.code).toBe(6);
    expect(again.stderr).toMatch(/^error: too many attempts: wait 1 minute before trying again$/m);
    if (first !== second) expect((await run(['auth', 'login', '--email-code-stdin'], { stdin: first })).code).toBe(4);
    expect((await run(['auth', 'login', '--email-code-stdin'], { stdin: second })).code).toBe(0);
  });
});

describe('on a terminal', () => {
  it('asks for the code, offers a new one after a wrong code, and signs in', async () => {
    const jar = JSON.parse(readFileSync(jarFile, 'utf8'));
    jar.cookies = [];
    delete jar.user;
    (await import('node:fs')).writeFileSync(jarFile, JSON.stringify(jar));
    const env = world.env;
    const res = await runInTerminal(['auth', 'login', '--email', world.sandbox.login.email], env, [
      { when: 'Password (input hidden)', send: `${world.sandbox.login.password}\r` },
      { when: 'Code from the e-mail to sandbox@example.com', send: () => `${latestCode() === '000000' ? '111111' : '000000'}\r` },
      { when: 'the e-mailed code was not accepted', send: () => `${latestCode()}\r` },
    ]);
    // The screen shows the code as it was typed (a one-time code needs no hidden input), so it is
    // not handed to the witness; the password prompt is masked.
    witness.ran(['auth', 'login', '--email', world.sandbox.login.email]);
    expect(res.output).not.toContain(world.sandbox.login.password);
    expect(res.output).toContain('PostHog e-mailed a 6-digit sign-in code to sandbox@example.com (valid for 10 minutes).');
    expect(res.output).toContain('✔ signed in to');
    expect(res.code).toBe(0);
  });
});

describe('auth logout', () => {
  it('ends the session on the server: the old cookies are refused afterwards', async () => {
    expect((await run(['users', '2fa', 'status'])).code).toBe(0);
    const saved = readFileSync(jarFile, 'utf8');
    const before = world.sandbox.requests.length;
    const res = await run(['auth', 'logout']);
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(
      /✔ signed out \(sandbox@example\.com on .*\): ended the session on the server; deleted the session cookies of .* \(kept the remember cookie: --forget drops it\)/,
    );
    const post = since(before).find((r) => r.path === '/logout')!;
    expect(post).toMatchObject({ method: 'POST', status: 302 });
    expect(post.headers['x-csrftoken']).toBeTruthy();
    const kept = JSON.parse(readFileSync(jarFile, 'utf8')).cookies.map((c: { name: string }) => c.name);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.every((n: string) => n.startsWith('remember-cookie_'))).toBe(true);
    // The cookies from before the logout no longer open anything.
    const after = readFileSync(jarFile, 'utf8');
    (await import('node:fs')).writeFileSync(jarFile, saved);
    const stale = await run(['users', '2fa', 'status']);
    expect(stale.code).toBe(4);
    (await import('node:fs')).writeFileSync(jarFile, after);
  });

  it('the kept remember cookie spares the next sign-in a code; --forget drops it', async () => {
    const mailed = codes().length;
    expect((await passwordStep()).code).toBe(0);
    expect(codes()).toHaveLength(mailed);
    const forget = await run(['auth', 'logout', '--forget']);
    expect(forget.code).toBe(0);
    expect((await passwordStep()).code).toBe(4);
    expect(codes()).toHaveLength(mailed + 1);
  });

  it('an unreachable server: the cookies go all the same, with a warning', async () => {
    expect((await run(['auth', 'login', '--email-code-stdin'], { stdin: latestCode() })).code).toBe(0);
    world.sandbox.setFaults('drop=1,path=/logout');
    try {
      const res = await run(['auth', 'logout']);
      expect(res.code).toBe(0);
      expect(res.stderr).toMatch(
        /warning: could not end the session on the server .*: it may stay valid there until it expires \(up to 14 days\)/,
      );
    } finally {
      world.sandbox.setFaults();
    }
    expect(JSON.parse(readFileSync(jarFile, 'utf8')).cookies.every((c: { name: string }) => c.name.startsWith('remember-cookie_'))).toBe(
      true,
    );
  });
});

describe('secrets', () => {
  it('no code, password or cookie in any output, argv or file but the 0600 jar', () => {
    witness.expectNever([...codes(), world.sandbox.login.password, ...jarValues(jarFile)], 'a secret');
    expectSecretsOnlyIn(world.configDir, jarFile, [...codes(), world.sandbox.login.password, ...jarValues(jarFile)]);
  });
});
