// Reliability: credentials go only where the user chose. `auth login` never sends a password to
// a default site the user did not name (off a terminal it refuses, on one it asks first), and it
// names the site before it asks for the password. (A profile's key refused for another host is in
// machine.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../e2e/harness.js';
import { runInTerminal } from '../e2e/terminal.js';

let world: World;
beforeAll(async () => {
  world = await startWorld({ persons: 5 });
});
afterAll(() => world.close());

describe('auth login never sends a password to a site the user did not name', () => {
  it('off a terminal, without --base-url or a profile: exit 2 before asking for anything', async () => {
    const res = await world.run(['auth', 'login', '--email', 'sandbox@example.com', '--password-stdin'], {
      stdin: 'not-sent-anywhere',
      env: { HOGCTL_BASE_URL: undefined },
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^error: no PostHog site chosen: hogctl sends a password only to a site you name$/m);
    expect(res.stderr).toContain('--base-url');
  });

  it('on a terminal it asks about the default site first; no means nothing is sent', async () => {
    const res = await runInTerminal(['auth', 'login', '--email', 'sandbox@example.com'], { ...world.env, HOGCTL_BASE_URL: undefined }, [
      { when: 'Sign in to https://us.posthog.com (PostHog Cloud US)?', send: 'n\r' },
    ]);
    expect(res.code).toBe(130);
    expect(res.output).toContain('not signed in: no password was sent');
    expect(res.output).not.toContain('Password');
  });

  it('names the site before asking for the password', async () => {
    const res = await runInTerminal(['auth', 'login', '--email', 'sandbox@example.com'], world.env, [
      { when: 'Password (input hidden)', send: '\u0003' },
    ]);
    const shown = res.output;
    expect(shown.indexOf(`Signing in to ${world.sandbox.url}`)).toBeGreaterThanOrEqual(0);
    expect(shown.indexOf(`Signing in to ${world.sandbox.url}`)).toBeLessThan(shown.indexOf('Password (input hidden)'));
  });
});
