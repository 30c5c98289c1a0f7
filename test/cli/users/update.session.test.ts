// `hogctl users update` with a session, in this process (test/cli/session-fixtures.ts): the
// cookies, X-CSRFToken and Referer it sends, PostHog's 2-hour re-auth window (on the sandbox's
// clock), the API key where it is the signed-in user's, and a missing CSRF cookie.
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { jarValues } from '../../e2e/secrets.js';
import { expectPasswordAndCookiesKept, signIn, useSignedInSession } from '../session-fixtures.js';
import type { RunOptions } from '../harness.js';

const session = useSignedInSession();

const sandbox = () => session.world.sandbox;
const since = (n: number) => sandbox().requests.slice(n);
/** Without the API key, so the session is what the command uses. */
const SESSION_ONLY: RunOptions = { env: { HOGCTL_API_KEY: undefined } };

describe('a session', () => {
  it('session requests send the cookies, X-CSRFToken and a same-origin Referer, never the key', async () => {
    const jarFile = session.jarFile();
    const before = sandbox().requests.length;
    const res = await session.run(['users', 'update', '--field', 'first_name=Sandra', '-o', 'json', '--debug'], SESSION_ONLY);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).first_name).toBe('Sandra');
    const patch = since(before).find((r) => r.method === 'PATCH')!;
    const [sessionid, csrftoken] = ['sessionid', 'posthog_csrftoken'].map(
      (name) => JSON.parse(readFileSync(jarFile, 'utf8')).cookies.find((c: { name: string }) => c.name === name).value,
    );
    expect(patch.headers.cookie).toContain(`sessionid=${sessionid}`);
    expect(patch.headers['x-csrftoken']).toBe(csrftoken);
    expect(patch.headers.referer).toBe(`${sandbox().url}/`);
    expect(patch.headers.authorization).toBeUndefined();
    expect(JSON.parse(patch.body)).toEqual({ first_name: 'Sandra' });
    expect(sandbox().world.user.firstName).toBe('Sandra');
    session.witness.expectNever(jarValues(jarFile), 'cookie');
  });
});

describe('the session going bad', () => {
  it('a POST after 2 hours says a recent sign-in is needed (exit 4)', async () => {
    session.advance(2 * 3600 * 1000 + 1000);
    const res = await session.run(['users', 'update', '--field', 'last_name=Late'], SESSION_ONLY);
    expect(res.code).toBe(4);
    expect(res.stderr).toMatch(
      /error: this action needs a recent sign-in: PATCH \/api\/users\/@me\/ was refused because the session signed in more than 2 hours ago/,
    );
    expect(res.stderr).toContain('run `hogctl auth login` again');
  });

  it("older servers' re-auth 403 (permission_denied, only the detail) reads the same", async () => {
    sandbox().identity.olderReauth = true;
    try {
      const res = await session.run(['users', 'update', '--field', 'last_name=Late'], SESSION_ONLY);
      expect(res.code).toBe(4);
      expect(res.stderr).toMatch(
        /error: this action needs a recent sign-in: PATCH \/api\/users\/@me\/ was refused because the session signed in more than 2 hours ago/,
      );
    } finally {
      sandbox().identity.olderReauth = false;
    }
  });

  it("users update uses the API key when it is the signed-in user's: the 2-hour rule is for sessions only", async () => {
    const before = sandbox().requests.length;
    const res = await session.run(['users', 'update', '--field', 'last_name=Keyed', '-o', 'json']);
    expect(res.code).toBe(0);
    const patch = since(before).find((r) => r.method === 'PATCH')!;
    expect(patch.headers.authorization).toBe(`Bearer ${sandbox().defaultKey}`);
    expect(patch.headers.cookie).toBeUndefined();
  });

  it('a missing CSRF cookie is a clear 403 (exit 4)', async () => {
    await signIn(session);
    const jarFile = session.jarFile();
    const saved = readFileSync(jarFile, 'utf8');
    const jar = JSON.parse(saved);
    jar.cookies = jar.cookies.filter((c: { name: string }) => c.name !== 'posthog_csrftoken');
    writeFileSync(jarFile, JSON.stringify(jar), { mode: 0o600 });
    try {
      const res = await session.run(['users', 'update', '--field', 'last_name=Box'], SESSION_ONLY);
      expect(res.code).toBe(4);
      expect(res.stderr).toContain("error: the server refused the request's CSRF check: CSRF Failed: CSRF cookie not set.");
      expect(res.stderr).toContain('run `hogctl auth login`');
    } finally {
      writeFileSync(jarFile, saved, { mode: 0o600 });
    }
  });
});

describe('secrets', () => {
  it('the password and cookies stay in the session file', () => {
    expectPasswordAndCookiesKept(session);
  });
});
