// End-to-end: changing the e-mail address (users update), verifying it with the 6-digit code from
// the sandbox's outbox (as current PostHog servers mail it), PostHog's attempt cap and expiry,
// asking for a new code, the link older servers mail, and cancelling a pending change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld, type RunOptions, type World } from './harness.js';
import { expectSecretsOnlyIn, jarValues, Witness } from './secrets.js';
import { runInTerminal } from './terminal.js';

let world: World;
let keyOnly: Record<string, string>;
let clock = Date.now();
const witness = new Witness();

beforeAll(async () => {
  world = await startWorld({ persons: 5, now: () => clock });
  keyOnly = { HOGCTL_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'hogctl-e2e-email-')) };
  const res = await world.run(['auth', 'login', '--email', world.sandbox.login.email, '--password-stdin'], {
    stdin: world.sandbox.login.password,
  });
  expect(res.code).toBe(0);
});
afterAll(async () => {
  await world.close();
  rmSync(keyOnly.HOGCTL_CONFIG_DIR, { recursive: true, force: true });
});

async function run(args: string[], options: RunOptions = {}) {
  witness.ran(args);
  const res = await world.run(args, options);
  witness.saw(res.stdout, res.stderr);
  return res;
}

const uuid = () => world.sandbox.world.user.uuid;
const account = () => world.sandbox.identity.byUuid(uuid())!;
const since = (n: number) => world.sandbox.requests.slice(n);
const lastMail = () => world.sandbox.outbox.at(-1)!;
/** The newest verification code PostHog mailed. */
const lastCode = () => world.sandbox.outbox.filter((m) => m.kind === 'email_verification_code').at(-1)!.code!;
/** A 6-digit code that is not the right one. */
const wrongCode = () => (lastCode() === '000000' ? '111111' : '000000');

async function changeEmailTo(address: string) {
  const res = await run(['users', 'update', '--field', `email=${address}`]);
  expect(res.code).toBe(0);
  expect(account().pendingEmail).toBe(address);
}

describe('changing the e-mail and verifying it with the e-mailed code', () => {
  it('users update --field email=... keeps the new address pending and says PostHog mailed it a code', async () => {
    const res = await run(['users', 'update', '--field', 'email=sandy@example.org', '--field', 'first_name=Sandy', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ email: 'sandbox@example.com', pending_email: 'sandy@example.org' });
    expect(res.stderr).toContain('sandy@example.org is pending: PostHog e-mailed it a 6-digit verification code');
    expect(res.stderr).toContain('`hogctl email verify <code>`');
    expect(res.stderr).not.toMatch(/link/);
    expect(lastMail()).toMatchObject({ kind: 'email_verification_code', to: 'sandy@example.org' });
    expect(lastMail().code).toMatch(/^\d{6}$/);
    expect(lastMail().link).toBeUndefined();
  });

  it('a wrong code is refused (exit 5), says how to get a new one, and changes nothing', async () => {
    const res = await run(['email', 'verify', wrongCode()]);
    expect(res.code).toBe(5);
    expect(res.stderr).toContain('error: the verification code is wrong, has expired, or was replaced by a newer one');
    expect(res.stderr).toContain('`hogctl email request-verification`');
    expect(account().pendingEmail).toBe('sandy@example.org');
  });

  it('email verify <code> verifies the pending address, sending only uuid and code, no credentials', async () => {
    const code = lastCode();
    const before = world.sandbox.requests.length;
    const res = await run(['email', 'verify', code.replace(/^(\d{3})/, '$1 ')]);
    expect(res.stderr).toContain(`✔ e-mail address sandy@example.org verified for user ${uuid()}`);
    expect(res.code).toBe(0);
    const post = since(before).find((r) => r.method === 'POST')!;
    expect(post).toMatchObject({ path: '/api/users/verify_email/', status: 200 });
    expect(JSON.parse(post.body)).toEqual({ uuid: uuid(), code });
    expect(post.headers.authorization).toBeUndefined();
    expect(post.headers.cookie).toBeUndefined();
    expect(world.sandbox.world.user.email).toBe('sandy@example.org');
    expect(account().pendingEmail).toBeNull();
    expect(res.stdout + res.stderr).not.toContain(code);
  });

  it('with nothing pending, says there is nothing to verify and sends no code', async () => {
    const before = world.sandbox.requests.length;
    const res = await run(['email', 'verify', '123456']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('nothing to verify: sandy@example.org is verified and no change of address is pending');
    expect(since(before).filter((r) => r.path === '/api/users/verify_email/')).toEqual([]);
  });

  it('refuses a malformed code, or no code off a terminal, before sending anything (exit 2)', async () => {
    const before = world.sandbox.requests.length;
    const short = await run(['email', 'verify', '12345']);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('error: invalid verification code "12345": expected the 6 digits from the e-mail');
    const none = await run(['email', 'verify']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('error: no verification code given');
    expect(none.stderr).toContain('hogctl email verify -');
    expect(world.sandbox.requests.length).toBe(before);
  });
});

describe('a new code, and the code from standard input or a hidden prompt', () => {
  it('request-verification asks for a new code; the previous one stops working; verify reads it from stdin with "-"', async () => {
    await changeEmailTo('lee@example.org');
    const first = lastCode();
    clock += 1000; // codes issued in the same second for the same address are the same code
    const mails = world.sandbox.outbox.length;
    const res = await run(['email', 'request-verification']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('✔ asked PostHog to e-mail a new verification code to lee@example.org');
    expect(res.stderr).not.toMatch(/link/);
    expect(world.sandbox.outbox.length).toBe(mails + 1);
    expect(JSON.parse(world.sandbox.requests.at(-1)!.body)).toEqual({ uuid: uuid() });
    expect(lastMail()).toMatchObject({ kind: 'email_verification_code', to: 'lee@example.org' });

    const stale = await run(['email', 'verify', first]);
    expect(stale.code).toBe(5);
    const verified = await run(['email', 'verify', '-'], { stdin: `${lastCode()}\n` });
    expect(verified.code).toBe(0);
    expect(world.sandbox.world.user.email).toBe('lee@example.org');
  });

  it('on a terminal, asks for the code without showing it', async () => {
    await changeEmailTo('kim@example.org');
    const code = lastCode();
    const result = await runInTerminal(['email', 'verify'], world.env, [{ when: 'Code from the e-mail', send: `${code}\r` }]);
    expect(result.output).toContain(`✔ e-mail address kim@example.org verified for user ${uuid()}`);
    expect(result.code).toBe(0);
    expect(result.output).not.toContain(code);
    expect(world.sandbox.world.user.email).toBe('kim@example.org');
  });

  it('with nothing to verify, request-verification says so (PostHog sends nothing)', async () => {
    const mails = world.sandbox.outbox.length;
    const res = await run(['email', 'request-verification']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('nothing to verify: PostHog says the address is already verified and no change is pending');
    expect(world.sandbox.outbox.length).toBe(mails);
  });

  it('says success for an unknown uuid (as the server does) and rejects a malformed one', async () => {
    const mails = world.sandbox.outbox.length;
    const unknown = await run(['email', 'request-verification', '--uuid', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).toBe(0);
    expect(unknown.stderr).toContain('(if that user exists)');
    expect(world.sandbox.outbox.length).toBe(mails);
    const bad = await run(['email', 'request-verification', '--uuid', 'me']);
    expect(bad.code).toBe(2);
  });
});

describe('attempts and expiry, as PostHog counts them', () => {
  it('after 5 wrong codes even the right one is refused, a new code does not reset the count, and the window ends', async () => {
    // Past the window of PostHog's own per-uuid throttle (6 tries in 20 minutes) left by the tests above.
    clock += 21 * 60 * 1000;
    await changeEmailTo('max@example.org');
    for (let i = 0; i < 5; i++) expect((await run(['email', 'verify', wrongCode(), '--uuid', uuid()])).code).toBe(5);
    const locked = await run(['email', 'verify', lastCode(), '--uuid', uuid()]);
    expect(locked.code).toBe(5);
    expect(locked.stderr).toContain('error: too many wrong codes: PostHog refuses more tries for this user for now');
    expect(locked.stderr).toContain(`\`hogctl email request-verification --uuid ${uuid()}\``);
    expect(account().pendingEmail).toBe('max@example.org');

    // A new code does not reset the count (the request endpoint is public)...
    clock += 21 * 60 * 1000;
    expect((await run(['email', 'request-verification'])).code).toBe(0);
    expect((await run(['email', 'verify', lastCode()])).stderr).toContain('too many wrong codes');
    // ...which ends 30 minutes after the first try; the new code, 10 minutes old, then works.
    clock += 10 * 60 * 1000;
    const res = await run(['email', 'verify', lastCode()]);
    expect(res.code).toBe(0);
    expect(world.sandbox.world.user.email).toBe('max@example.org');
  });

  it('a code older than 30 minutes is refused as expired', async () => {
    await changeEmailTo('old@example.org');
    const code = lastCode();
    clock += 30 * 60 * 1000 + 1000;
    const res = await run(['email', 'verify', code]);
    expect(res.code).toBe(5);
    expect(res.stderr).toContain('has expired');
    expect(res.stderr).toContain('`hogctl email request-verification`');
    expect(account().pendingEmail).toBe('old@example.org');
    expect((await run(['email', 'cancel-change'])).code).toBe(0);
  });
});

describe('older servers: the link', () => {
  beforeAll(() => {
    world.sandbox.identity.linkVerification = true;
  });
  afterAll(() => {
    world.sandbox.identity.linkVerification = false;
  });

  it('email verify <link> verifies, sending uuid and token, no credentials', async () => {
    await changeEmailTo('sandy@example.net');
    const { link, token } = lastMail();
    expect(lastMail()).toMatchObject({ kind: 'email_verification', to: 'sandy@example.net' });
    const before = world.sandbox.requests.length;
    const res = await run(['email', 'verify', `${link}?next=/project/1`]);
    expect(res.stderr).toContain(`✔ e-mail address verified for user ${uuid()}`);
    expect(res.code).toBe(0);
    const [post] = since(before);
    expect(post).toMatchObject({ method: 'POST', path: '/api/users/verify_email/', status: 200 });
    expect(JSON.parse(post.body)).toEqual({ uuid: uuid(), token });
    expect(post.headers.authorization).toBeUndefined();
    expect(post.headers.cookie).toBeUndefined();
    expect(world.sandbox.world.user.email).toBe('sandy@example.net');
  });

  it('the same link a second time is refused (exit 5) and says how to get a new one', async () => {
    const res = await run(['email', 'verify', lastMail().link!]);
    expect(res.code).toBe(5);
    expect(res.stderr).toContain('error: the verification link is invalid or has expired');
    expect(res.stderr).toContain('hogctl email request-verification');
  });

  it('verifies with --uuid and --token too', async () => {
    await changeEmailTo('lee@example.net');
    const { uuid: user, token } = lastMail();
    const res = await run(['email', 'verify', '--uuid', user!, '--token', token!]);
    expect(res.code).toBe(0);
  });

  it('a code given to an older server: says the server wants the link it mailed (exit 2)', async () => {
    await changeEmailTo('kim@example.net');
    const res = await run(['email', 'verify', '123456']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('error: this PostHog server verifies with the link it e-mailed, not a code');
    expect((await run(['email', 'cancel-change'])).code).toBe(0);
  });

  it('refuses a link for another site, or a malformed one, before sending anything', async () => {
    const before = world.sandbox.requests.length;
    const other = await run(['email', 'verify', `https://eu.posthog.com/verify_email/${uuid()}/abc-123`]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`error: the link is for https://eu.posthog.com, but hogctl is set to ${world.sandbox.url}`);
    const bad = await run(['email', 'verify', `${world.sandbox.url}/verify/nothing`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not a verification link');
    const half = await run(['email', 'verify', '--token', 'abc-123']);
    expect(half.code).toBe(2);
    expect(half.stderr).toContain('--token needs --uuid');
    expect(world.sandbox.requests.length).toBe(before);
  });
});

describe('a link given to a current server', () => {
  it('says the server verifies with a code (exit 2)', async () => {
    await changeEmailTo('ada@example.org');
    const res = await run(['email', 'verify', `${world.sandbox.url}/verify_email/${uuid()}/abc-123`]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('error: this PostHog server verifies with a 6-digit code, not a link');
    expect(res.stderr).toContain('`hogctl email verify <code>`');
    expect(account().pendingEmail).toBe('ada@example.org');
  });
});

describe('cancel-change', () => {
  it('drops a pending change, and its code stops working; with none pending, exit 5', async () => {
    const current = world.sandbox.world.user.email;
    await changeEmailTo('elsewhere@example.org');
    const code = lastCode();
    const before = world.sandbox.requests.length;
    const res = await run(['email', 'cancel-change', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(`✔ cancelled the change to elsewhere@example.org; the address stays ${current}`);
    expect(JSON.parse(res.stdout)).toMatchObject({ email: current, pending_email: null });
    const patch = since(before).find((r) => r.method === 'PATCH')!;
    expect(patch.path).toBe('/api/users/cancel_email_change_request/');
    expect(patch.headers['x-csrftoken']).toBeTruthy();
    expect(account().pendingEmail).toBeNull();

    // PostHog answers a code with nothing pending as a repeat of a used one: success, no change.
    await run(['email', 'verify', code, '--uuid', uuid()]);
    expect(world.sandbox.world.user.email).toBe(current);

    const none = await run(['email', 'cancel-change']);
    expect(none.code).toBe(5);
    expect(none.stderr).toContain(`error: no pending e-mail change to cancel: the address is ${current}`);
  });

  it('needs a session: with only an API key it exits 4 and sends nothing', async () => {
    const before = world.sandbox.requests.length;
    const res = await run(['email', 'cancel-change'], { env: keyOnly });
    expect(res.code).toBe(4);
    expect(res.stderr).toContain('error: not signed in: run `hogctl auth login`');
    expect(world.sandbox.requests.length).toBe(before);
  });
});

describe('users update --field', () => {
  it('sends typed fields with the API key when there is no session', async () => {
    const before = world.sandbox.requests.length;
    const res = await run(
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
    expect(patch.headers.authorization).toBe(`Bearer ${world.sandbox.defaultKey}`);
    expect(JSON.parse(patch.body)).toEqual({ last_name: 'Ng', anonymize_data: true, notification_settings: { plugin_disabled: false } });
    expect(world.sandbox.world.user.lastName).toBe('Ng');
  });

  it('refuses passwords, unknown fields and bad values before sending anything', async () => {
    const before = world.sandbox.requests.length;
    const password = await run(['users', 'update', '--field', 'password=hunter22']);
    expect(password.code).toBe(2);
    expect(password.stderr).toContain('hogctl never takes a password as a flag value');
    const unknown = await run(['users', 'update', '--field', 'nickname=Lee']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown user field "nickname" for --field: writable fields are first_name, last_name, email');
    const bad = await run(['users', 'update', '--field', 'anonymize_data=maybe']);
    expect(bad.stderr).toContain('invalid --field anonymize_data=maybe: expected true or false');
    expect((await run(['users', 'update'])).code).toBe(2);
    expect(world.sandbox.requests.length).toBe(before);
  });
});

describe('secrets', () => {
  it('the password and cookies stay in the session file', () => {
    const jarFile = join(world.configDir, 'sessions', `@127.0.0.1_${world.sandbox.port}.json`);
    witness.expectNever([world.sandbox.login.password, ...jarValues(jarFile)], 'password or cookie');
    expectSecretsOnlyIn(world.configDir, jarFile, [...jarValues(jarFile), world.sandbox.login.password]);
  });
});
