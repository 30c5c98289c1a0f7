// `hogctl auth logout` after a sign-in by e-mailed code, in this process: the session ends on the
// server, the remember cookie stays (it spares the next sign-in a code) until --forget, and the
// cookies go even when the server cannot be reached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { expectSecretsOnlyIn, jarValues } from '../../e2e/secrets.js';
import { startSessionWorld, type SessionWorld } from '../session-fixtures.js';
import { emailCodeSteps } from './email-code-fixtures.js';

let session: SessionWorld;
let jarFile: string;

const { sandbox, run, codes, latestCode, since, passwordStep } = emailCodeSteps(() => session);

beforeAll(async () => {
  session = await startSessionWorld({ loginCodes: true });
  jarFile = session.jarFile();
  // Signed in with the e-mailed code: the device is remembered.
  expect((await passwordStep()).code).toBe(4);
  expect((await run(['auth', 'login', '--email-code-stdin'], latestCode())).code).toBe(0);
});
afterAll(() => session.close());

describe('auth logout', () => {
  it('ends the session on the server: the old cookies are refused afterwards', async () => {
    expect((await run(['users', '2fa', 'status'])).code).toBe(0);
    const saved = readFileSync(jarFile, 'utf8');
    const before = sandbox().requests.length;
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
    writeFileSync(jarFile, saved);
    const stale = await run(['users', '2fa', 'status']);
    expect(stale.code).toBe(4);
    writeFileSync(jarFile, after);
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
    expect((await run(['auth', 'login', '--email-code-stdin'], latestCode())).code).toBe(0);
    sandbox().setFaults('drop=1,path=/logout');
    try {
      const res = await run(['auth', 'logout']);
      expect(res.code).toBe(0);
      expect(res.stderr).toMatch(
        /warning: could not end the session on the server .*: it may stay valid there until it expires \(up to 14 days\)/,
      );
    } finally {
      sandbox().setFaults();
    }
    expect(JSON.parse(readFileSync(jarFile, 'utf8')).cookies.every((c: { name: string }) => c.name.startsWith('remember-cookie_'))).toBe(
      true,
    );
  });
});

describe('secrets', () => {
  it('no code, password or cookie in any output, argv or file but the 0600 jar', () => {
    session.witness.expectNever([...codes(), sandbox().login.password, ...jarValues(jarFile)], 'a secret');
    expectSecretsOnlyIn(session.world.configDir, jarFile, [...codes(), sandbox().login.password, ...jarValues(jarFile)]);
  });
});
