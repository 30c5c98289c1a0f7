// Signed in as one user with the API key of another: the users verbs act on the signed-in user,
// as their helps say, and name that user; `auth status` says that the two differ. The sandbox's
// key belongs to sandbox@example.com, and the session here to its 2FA user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totp } from '@hogctl/sandbox';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
const keyUser = () => world.sandbox.login.email;
const signedIn = () => world.sandbox.twoFactorUser;

beforeAll(async () => {
  world = await startVirtualWorld({ persons: 5 });
  const user = signedIn();
  const code = totp(user.totpSecret, world.clock.now());
  const res = await world.run(['auth', 'login', '--email', user.email, '--password-stdin', '--code', code], { stdin: user.password });
  expect(res.code, res.stderr).toBe(0);
});
afterAll(() => world.close());

describe('a profile signed in as one user, with the key of another', () => {
  it('users me shows the signed-in user', async () => {
    const res = await world.run(['users', 'me', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).email).toBe(signedIn().email);
  });

  it('users update puts the pending e-mail on the signed-in user, and names that user', async () => {
    const res = await world.run(['users', 'update', '--field', 'email=new-address@example.com']);
    expect(res.code, res.stderr).toBe(0);
    const { identity } = world.sandbox;
    expect(identity.byUuid(signedIn().uuid)?.pendingEmail).toBe('new-address@example.com');
    expect(identity.byEmail(keyUser())?.pendingEmail).toBeNull();
    expect(res.stderr).toContain(`✔ updated ${signedIn().email}; new-address@example.com is pending`);
  });

  it('auth status says the key and the session are different users', async () => {
    const res = await world.run(['auth', 'status', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ user: signedIn().email, api_key_user: keyUser() });
    const text = await world.run(['auth', 'status'], { terminal: { columns: 80 } });
    expect(text.stdout.replace(/\s+/g, ' ')).toContain(
      `The API key is ${keyUser()}'s, not ${signedIn().email}'s: users and email commands act as ${signedIn().email}`,
    );
  });
});
