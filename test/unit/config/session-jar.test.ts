// The session cookie jar: which Set-Cookie lines it keeps, where it sends them back, expiry,
// and the private file it writes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionJar, sessionFileName, sessionFilePath } from '../../../src/config/session-jar.js';

const ORIGIN = 'https://eu.posthog.com';
let dir: string;
let now = Date.UTC(2026, 0, 5);
const clock = () => now;
const at = (path = '/api/login/') => new URL(path, ORIGIN);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hogctl-jar-'));
  now = Date.UTC(2026, 0, 5);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const fresh = () => SessionJar.load(sessionFilePath(dir, 'prod', ORIGIN), ORIGIN, clock);

describe('SessionJar', () => {
  it('names the file after the profile, or after the host when there is none', () => {
    expect(sessionFileName('prod', ORIGIN)).toBe('prod.json');
    expect(sessionFileName(undefined, 'http://127.0.0.1:8010')).toBe('@127.0.0.1_8010.json');
    expect(sessionFilePath('/c', 'prod', ORIGIN)).toBe('/c/sessions/prod.json');
  });

  it('keeps every cookie the server sets, as a browser does (the session cookie name is a server setting)', () => {
    const jar = fresh();
    jar.applySetCookie(at(), [
      'sessionid=s3ss10n; expires=Mon, 19 Jan 2026 00:00:00 GMT; HttpOnly; Max-Age=1209600; Path=/; SameSite=Lax; Secure',
      'csrftoken=tok3n; Max-Age=31449600; Path=/; SameSite=Lax; Secure',
      'remember-cookie_abc=r3m3mb3r; HttpOnly; Max-Age=2592000; Path=/; SameSite=Strict; Secure',
      'ph_analytics=nope; Path=/',
      'AWSALB=nope; Path=/',
    ]);
    expect(jar.cookieHeader(at('/api/users/@me/'))).toBe(
      'sessionid=s3ss10n; csrftoken=tok3n; remember-cookie_abc=r3m3mb3r; ph_analytics=nope; AWSALB=nope',
    );
    expect(jar.csrfToken()).toBe('tok3n');
    expect(jar.state).toBe('active');
    expect(jar.get('sessionid')).toMatchObject({
      httpOnly: true,
      secure: true,
      path: '/',
      hostOnly: true,
      domain: 'eu.posthog.com',
      expires: now + 1209600 * 1000,
    });
    expect(jar.secrets().sort()).toEqual(['nope', 'nope', 'r3m3mb3r', 's3ss10n', 'tok3n']);
  });

  it('sends cookies only to its own site, over HTTPS for Secure ones, on matching paths', () => {
    const jar = fresh();
    jar.applySetCookie(at(), ['sessionid=abcd; Path=/; Secure', 'csrftoken=efgh; Path=/api/']);
    expect(jar.cookieHeader(new URL('https://us.posthog.com/api/users/@me/'))).toBeUndefined();
    expect(jar.cookieHeader(new URL('https://evil.example/'))).toBeUndefined();
    expect(jar.cookieHeader(at('/other'))).toBe('sessionid=abcd');
    expect(jar.cookieHeader(at('/api/x'))).toBe('csrftoken=efgh; sessionid=abcd');
  });

  it('refuses cookies for another domain, and Secure ones over plain HTTP away from loopback', () => {
    const jar = fresh();
    expect(jar.applySetCookie(at(), 'sessionid=x1x1; Domain=evil.example; Path=/')).toBe(false);
    expect(jar.applySetCookie(at(), 'sessionid=x1x1; Domain=com; Path=/')).toBe(false);
    expect(jar.applySetCookie(at(), 'sessionid=x2x2; Domain=.posthog.com; Path=/')).toBe(true);
    expect(jar.get('sessionid')).toMatchObject({ domain: 'posthog.com', hostOnly: false });

    const plain = SessionJar.load(join(dir, 'p.json'), 'http://posthog.internal', clock);
    expect(plain.applySetCookie(new URL('http://posthog.internal/api/login/'), 'sessionid=y; Secure')).toBe(false);
    const loop = SessionJar.load(join(dir, 'l.json'), 'http://127.0.0.1:8010', clock);
    expect(loop.applySetCookie(new URL('http://127.0.0.1:8010/api/login/'), 'sessionid=z; HttpOnly; Path=/')).toBe(true);
    expect(loop.cookieHeader(new URL('http://127.0.0.1:8010/api/users/@me/'))).toBe('sessionid=z');
  });

  it('replaces a cookie of the same name, deletes one set to expire, and tells expired from none', () => {
    const jar = fresh();
    jar.applySetCookie(at(), 'sessionid=one; Path=/; Max-Age=60');
    jar.applySetCookie(at(), 'sessionid=two; Path=/; Max-Age=60');
    expect(jar.cookieHeader(at())).toBe('sessionid=two');
    jar.save();
    now += 61_000;
    expect(jar.state).toBe('expired');
    expect(jar.cookieHeader(at())).toBeUndefined();
    expect(fresh().state).toBe('expired');
    jar.applySetCookie(at(), 'sessionid=""; expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/');
    expect(jar.state).toBe('none');
  });

  it('saves to a 0600 file in a 0700 directory and loads it back; a file for another site is ignored', () => {
    const jar = fresh();
    jar.applySetCookie(at(), 'sessionid=s; Path=/; Max-Age=600');
    jar.setUser({ email: 'lee@example.com', uuid: '0190c0de-aaaa-7bbb-8ccc-000000000001' });
    jar.save();
    expect(statSync(jar.file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'sessions')).mode & 0o777).toBe(0o700);
    const again = fresh();
    expect(again.user?.email).toBe('lee@example.com');
    expect(again.cookieHeader(at())).toBe('sessionid=s');
    expect(JSON.parse(readFileSync(jar.file, 'utf8')).origin).toBe(ORIGIN);

    const elsewhere = SessionJar.load(jar.file, 'https://us.posthog.com', clock);
    expect(elsewhere.state).toBe('none');
    expect(elsewhere.foreignOrigin).toBe(ORIGIN);
    expect(elsewhere.delete()).toBe(true);
    expect(fresh().exists).toBe(false);
  });

  it('never reads or writes a jar through a symbolic link, and leaves the directories it did not create alone', () => {
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, 'sessions'), { mode: 0o755 });
    chmodSync(join(dir, 'sessions'), 0o755);
    const target = join(dir, 'target.json');
    writeFileSync(target, '');
    symlinkSync(target, sessionFilePath(dir, 'prod', ORIGIN));
    expect(() => fresh()).toThrow(/symbolic link/);
    const jar = SessionJar.load(sessionFilePath(dir, 'dev', ORIGIN), ORIGIN, clock);
    jar.applySetCookie(at(), 'sessionid=s; Path=/; Max-Age=600');
    rmSync(jar.file, { force: true });
    symlinkSync(target, jar.file);
    expect(() => jar.save()).toThrow(/refusing to use .*dev\.json: it is a symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('');
    expect(readdirSync(join(dir, 'sessions')).sort()).toEqual(['dev.json', 'prod.json']);
    expect(statSync(dir).mode & 0o777).toBe(0o755);
    expect(statSync(join(dir, 'sessions')).mode & 0o777).toBe(0o755);
  });
});
