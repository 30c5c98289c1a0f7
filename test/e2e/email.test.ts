// The built binary on a real terminal: `hogctl email verify` asks for the e-mailed code at a
// hidden prompt. The steps before it run in this process (test/cli/harness.ts), as do the rest of
// the e-mail verbs: test/cli/email/, test/cli/users/update.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { runCli } from '../cli/harness.js';
import { runInTerminal } from './terminal.js';

let world: World;

beforeAll(async () => {
  world = await startWorld({ persons: 5 });
  const res = await runCli(['auth', 'login', '--email', world.sandbox.login.email, '--password-stdin'], {
    stdin: world.sandbox.login.password,
    env: world.env,
  });
  expect(res.code).toBe(0);
});
afterAll(() => world.close());

const uuid = () => world.sandbox.world.user.uuid;
/** The newest verification code PostHog mailed. */
const lastCode = () => world.sandbox.outbox.filter((m) => m.kind === 'email_verification_code').at(-1)!.code!;

async function changeEmailTo(address: string) {
  const res = await runCli(['users', 'update', '--field', `email=${address}`], { env: world.env });
  expect(res.code).toBe(0);
  expect(world.sandbox.identity.byUuid(uuid())!.pendingEmail).toBe(address);
}

describe('the code from a hidden prompt', () => {
  it('on a terminal, asks for the code without showing it', async () => {
    await changeEmailTo('kim@example.org');
    const code = lastCode();
    const result = await runInTerminal(['email', 'verify'], world.env, [{ when: 'Code from the e-mail', send: `${code}\r` }]);
    expect(result.output).toContain(`✔ e-mail address kim@example.org verified for user ${uuid()}`);
    expect(result.code).toBe(0);
    expect(result.output).not.toContain(code);
    expect(world.sandbox.world.user.email).toBe('kim@example.org');
  });
});
