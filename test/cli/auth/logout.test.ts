// `hogctl auth logout` in this process (test/cli/session-fixtures.ts): the session file goes, and
// the verbs that need a session then say to sign in, while `users me` falls back to the key. With
// the remember cookie of a sign-in by e-mailed code: logout.email-code.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { jarValues } from '../../e2e/secrets.js';
import { signIn, startSessionWorld, type SessionWorld } from '../session-fixtures.js';

let session: SessionWorld;
/** The session's cookies, read before the logout deletes them. */
let cookies: string[];

beforeAll(async () => {
  session = await startSessionWorld();
  await signIn(session);
  cookies = jarValues(session.jarFile());
});
afterAll(() => session.close());

const sandbox = () => session.world.sandbox;

describe('auth logout', () => {
  it('logout deletes the session file; session commands then say to sign in, without a request', async () => {
    const res = await session.run(['auth', 'logout']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(
      `✔ signed out (sandbox@example.com on ${sandbox().url}): ended the session on the server; deleted the session cookies of 127.0.0.1:${sandbox().port}`,
    );
    expect(existsSync(session.jarFile())).toBe(false);
    expect((await session.run(['auth', 'logout'])).stderr).toContain('nothing to forget');

    const before = sandbox().requests.length;
    const needs = await session.run(['users', '2fa', 'status']);
    expect(needs.code).toBe(4);
    expect(needs.stderr).toContain('error: not signed in: run `hogctl auth login`');
    expect(needs.stderr).toContain('PostHog refuses personal API keys here');
    expect(sandbox().requests.length).toBe(before);

    // users me falls back to the API key.
    const me = await session.run(['users', 'me', '-o', 'json']);
    expect(me.code).toBe(0);
    expect(sandbox().requests.slice(before).at(-1)?.headers.authorization).toBe(`Bearer ${sandbox().defaultKey}`);
  });
});

describe('secrets', () => {
  it('the password and the cookies never reached argv or the output', () => {
    session.witness.expectNever([sandbox().login.password, ...cookies], 'password or cookie');
  });
});
