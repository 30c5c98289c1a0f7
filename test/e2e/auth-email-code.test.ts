// The built binary on a real terminal: signing in where PostHog e-mails a code
// (docs/server-contract.md §11.5), the code typed at the prompt, a new one offered after a wrong
// one. The codes are read from the sandbox outbox, as a person reads their mailbox. The same sign-in
// off a terminal, and the logout, are tested in this process: test/cli/auth/login.email-code.test.ts,
// test/cli/auth/logout.email-code.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { runInTerminal } from './terminal.js';

let world: World;

beforeAll(async () => {
  world = await startWorld({ persons: 5, loginCodes: true });
});
afterAll(() => world.close());

const latestCode = () => world.sandbox.outbox.filter((m) => m.kind === 'login_code').at(-1)!.code!;

describe('on a terminal', () => {
  it('asks for the code, offers a new one after a wrong code, and signs in', async () => {
    const res = await runInTerminal(['auth', 'login', '--email', world.sandbox.login.email], world.env, [
      { when: 'Password (input hidden)', send: `${world.sandbox.login.password}\r` },
      { when: 'Code from the e-mail to sandbox@example.com', send: () => `${latestCode() === '000000' ? '111111' : '000000'}\r` },
      { when: 'the e-mailed code was not accepted', send: () => `${latestCode()}\r` },
    ]);
    // The screen shows the code as it was typed (a one-time code needs no hidden input); the
    // password prompt is masked.
    expect(res.output).not.toContain(world.sandbox.login.password);
    expect(res.output).toContain('PostHog e-mailed a 6-digit sign-in code to sandbox@example.com (valid for 10 minutes).');
    expect(res.output).toContain('✔ signed in to');
    expect(res.code).toBe(0);
  });
});
