// End-to-end: changing the e-mail address (users update), verifying it with the link from the
// sandbox's outbox, asking for a new link, and cancelling a pending change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld, type RunOptions, type World } from './harness.js';
import { expectSecretsOnlyIn, jarValues, Witness } from './secrets.js';

let world: World;
let keyOnly: Record<string, string>;
const witness = new Witness();

beforeAll(async () => {
  world = await startWorld({ persons: 5 });
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

const account = () => world.sandbox.identity.byUuid(world.sandbox.world.user.uuid)!;
const since = (n: number) => world.sandbox.requests.slice(n);
const lastMail = () => world.sandbox.outbox.at(-1)!;

describe('changing the e-mail and verifying it from the link', () => {
  it('users update --field email=... keeps the new address pending and PostHog mails a link', async () => {
    const res = await run(['users', 'update', '--field', 'email=sandy@example.org', '--field', 'first_name=Sandy', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ email: 'sandbox@example.com', pending_email: 'sandy@example.org' });
    expect(res.stderr).toContain('sandy@example.org is pending');
    expect(lastMail()).toMatchObject({ kind: 'email_verification', to: 'sandy@example.org' });
    expect(lastMail().link).toMatch(new RegExp(`^${world.sandbox.url}/verify_email/${world.sandbox.world.user.uuid}/[0-9a-z]+-[0-9a-f]+$`));
  });

  it('email verify <link> verifies it, sending only uuid and token, no credentials', async () => {
    const { link, uuid, token } = lastMail();
    const before = world.sandbox.requests.length;
    const res = await run(['email', 'verify', `${link}?next=/project/1`, '--debug']);
    expect(res.stderr).toContain(`✔ e-mail address verified for user ${uuid}`);
    expect(res.code).toBe(0);
    const [post] = since(before);
    expect(post).toMatchObject({ method: 'POST', path: '/api/users/verify_email/', status: 200 });
    expect(JSON.parse(post.body)).toEqual({ uuid, token });
    expect(post.headers.authorization).toBeUndefined();
    expect(post.headers.cookie).toBeUndefined();
    expect(world.sandbox.world.user.email).toBe('sandy@example.org');
    expect(account().pendingEmail).toBeNull();
  });

  it('the same link a second time is refused (exit 5) and says how to get a new one', async () => {
    const res = await run(['email', 'verify', lastMail().link!]);
    expect(res.code).toBe(5);
    expect(res.stderr).toContain('error: the verification link is invalid or has expired');
    expect(res.stderr).toContain('hogctl email request-verification');
  });

  it('refuses a link for another site, or a malformed one, before sending anything', async () => {
    const before = world.sandbox.requests.length;
    const other = await run(['email', 'verify', `https://eu.posthog.com/verify_email/${world.sandbox.world.user.uuid}/abc-123`]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`error: the link is for https://eu.posthog.com, but hogctl is set to ${world.sandbox.url}`);
    const bad = await run(['email', 'verify', `${world.sandbox.url}/verify/nothing`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not a verification link');
    const half = await run(['email', 'verify', '--uuid', world.sandbox.world.user.uuid]);
    expect(half.code).toBe(2);
    expect(half.stderr).toContain('--uuid and --token go together');
    expect(world.sandbox.requests.length).toBe(before);
  });
});

describe('request-verification', () => {
  it('asks for a new link for the signed-in user; verify reads it from stdin with "-"', async () => {
    const mails = world.sandbox.outbox.length;
    const res = await run(['email', 'request-verification']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('✔ asked PostHog to send a verification e-mail to sandy@example.org');
    expect(world.sandbox.outbox.length).toBe(mails + 1);
    const post = world.sandbox.requests.at(-1)!;
    expect(JSON.parse(post.body)).toEqual({ uuid: world.sandbox.world.user.uuid });

    const verified = await run(['email', 'verify', '-'], { stdin: `${lastMail().link}\n` });
    expect(verified.code).toBe(0);
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

  it('verifies with --uuid and --token too', async () => {
    await run(['email', 'request-verification']);
    const { uuid, token } = lastMail();
    const res = await run(['email', 'verify', '--uuid', uuid!, '--token', token!]);
    expect(res.code).toBe(0);
  });
});

describe('cancel-change', () => {
  it('drops a pending change; with none pending, exit 5', async () => {
    expect((await run(['users', 'update', '--field', 'email=elsewhere@example.org'])).code).toBe(0);
    expect(account().pendingEmail).toBe('elsewhere@example.org');
    const before = world.sandbox.requests.length;
    const res = await run(['email', 'cancel-change', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('✔ cancelled the change to elsewhere@example.org; the address stays sandy@example.org');
    expect(JSON.parse(res.stdout)).toMatchObject({ email: 'sandy@example.org', pending_email: null });
    const patch = since(before).find((r) => r.method === 'PATCH')!;
    expect(patch.path).toBe('/api/users/cancel_email_change_request/');
    expect(patch.headers['x-csrftoken']).toBeTruthy();
    expect(account().pendingEmail).toBeNull();

    const none = await run(['email', 'cancel-change']);
    expect(none.code).toBe(5);
    expect(none.stderr).toContain('error: no pending e-mail change to cancel: the address is sandy@example.org');
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
