// The signed-in session of one profile (docs/server-contract.md §11.4): the cookies PostHog sets at
// sign-in, kept in `<config dir>/sessions/<profile>.json` (0600 in a 0700 directory) and sent
// back only to the host they came from. Every cookie the server sets is kept, as a browser
// keeps them: the session cookie's name is a server setting (SESSION_COOKIE_NAME), the CSRF
// cookie is `posthog_csrftoken` on PostHog (Django's `csrftoken` elsewhere), and
// `remember-cookie_*` lets a later sign-in skip 2FA or the e-mailed code.
// The file is a credential: nothing here prints or logs a value.

import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir } from './paths.js';
import { fileError, readSecretFile, SymlinkRefusedError, writeSecretFile } from './secret-file.js';
import { isLoopback } from '../http/loopback.js';

export interface JarCookie {
  name: string;
  value: string;
  /** The host it was set by (host-only), or the Domain attribute without its leading dot. */
  domain: string;
  hostOnly: boolean;
  path: string;
  /** ms since the epoch; null for a cookie without Max-Age or Expires. */
  expires: number | null;
  secure: boolean;
  httpOnly: boolean;
  sameSite?: string;
}

export interface SignedInUser {
  email: string;
  uuid: string;
}

interface JarFile {
  version: 1;
  /** The site the session belongs to; the jar is useless anywhere else. */
  origin: string;
  user?: SignedInUser;
  signed_in_at?: string;
  /** A password step waiting for the code PostHog e-mailed (the pending sign-in lives in the
   * session cookie, so the code can be given later, without the password). */
  pending_code?: { email: string; since: string };
  cookies: JarCookie[];
}

export type SessionState = 'active' | 'expired' | 'none' | 'awaiting_code';

/** The cookies a sign-out drops: all but the remember cookies, which outlive the session. */
export const REMEMBER_COOKIE = /^remember-cookie_/;

export function sessionFileName(profile: string | undefined, origin: string): string {
  // Profile names cannot start with "@", so a jar without a profile never shadows one.
  return profile ? `${profile}.json` : `@${new URL(origin).host.replace(/[^\w.-]/g, '_')}.json`;
}

export function sessionFilePath(configDir: string, profile: string | undefined, origin: string): string {
  return join(configDir, 'sessions', sessionFileName(profile, origin));
}

/** RFC 6265 §5.1.3: `host` is `domain` or a subdomain of it (never for IP addresses). */
function domainMatch(host: string, domain: string): boolean {
  if (host === domain) return true;
  return host.endsWith(`.${domain}`) && !/^[\d.]+$/.test(host) && !host.startsWith('[');
}

/** RFC 6265 §5.1.4 */
function pathMatch(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

function defaultPath(url: URL): string {
  const path = url.pathname;
  if (!path.startsWith('/') || path.lastIndexOf('/') === 0) return '/';
  return path.slice(0, path.lastIndexOf('/'));
}

export class SessionJar {
  private data: JarFile;
  /** Names of cookies dropped since load because they expired (to tell "expired" from "none"). */
  private readonly expiredOnLoad = new Set<string>();
  /** The origin of a jar file that belongs to another site, if that is what was found. */
  readonly foreignOrigin: string | undefined;

  private constructor(
    readonly file: string,
    readonly origin: string,
    data: JarFile | undefined,
    private readonly now: () => number,
  ) {
    if (data && data.origin !== origin) {
      this.foreignOrigin = data.origin;
      data = undefined;
    }
    this.data = data ?? { version: 1, origin, cookies: [] };
    this.data.cookies = this.data.cookies.filter((c) => {
      const live = c.expires === null || c.expires > now();
      if (!live) this.expiredOnLoad.add(c.name);
      return live;
    });
  }

  /** The jar in `file` for `origin`; an absent or unreadable file is an empty jar, a link an error. */
  static load(file: string, origin: string, now: () => number = Date.now): SessionJar {
    let data: JarFile | undefined;
    try {
      const text = readSecretFile(file);
      const parsed = text === undefined ? undefined : (JSON.parse(text) as JarFile);
      if (parsed && parsed.version === 1 && Array.isArray(parsed.cookies) && typeof parsed.origin === 'string') data = parsed;
    } catch (err) {
      if (err instanceof SymlinkRefusedError) throw err;
      data = undefined;
    }
    return new SessionJar(file, origin, data, now);
  }

  get exists(): boolean {
    return existsSync(this.file);
  }

  get user(): SignedInUser | undefined {
    return this.data.user;
  }

  get signedInAt(): string | undefined {
    return this.data.signed_in_at;
  }

  setUser(user: SignedInUser): void {
    this.data.user = { email: user.email, uuid: user.uuid };
    this.data.signed_in_at = new Date(this.now()).toISOString();
    delete this.data.pending_code;
  }

  /** Whether any cookie is left (after forgetSession: a remember cookie). */
  get hasCookies(): boolean {
    return this.live().length > 0;
  }

  /** The sign-in waiting for an e-mailed code, if any. */
  get pendingCode(): { email: string; since: string } | undefined {
    return this.data.pending_code;
  }

  /** Marks the jar as holding a sign-in that waits for the e-mailed code (no user yet). */
  setPendingCode(email: string): void {
    delete this.data.user;
    delete this.data.signed_in_at;
    this.data.pending_code = { email, since: new Date(this.now()).toISOString() };
  }

  /** Drops every cookie but the remember cookies (signing out, or starting a new sign-in). */
  forgetSession(): void {
    this.data.cookies = this.data.cookies.filter((c) => REMEMBER_COOKIE.test(c.name));
    delete this.data.user;
    delete this.data.signed_in_at;
    delete this.data.pending_code;
  }

  private live(): JarCookie[] {
    const now = this.now();
    return this.data.cookies.filter((c) => c.expires === null || c.expires > now);
  }

  get(name: string): JarCookie | undefined {
    return this.live().find((c) => c.name === name);
  }

  /** The CSRF token PostHog expects back in X-CSRFToken. */
  csrfToken(): string | undefined {
    return this.live().find((c) => /csrftoken$/.test(c.name))?.value;
  }

  /** Whether the jar holds a session cookie that has not expired. */
  get state(): SessionState {
    if (this.data.pending_code && this.get('sessionid')) return 'awaiting_code';
    if (this.get('sessionid')) return 'active';
    const stored = this.data.cookies.find((c) => c.name === 'sessionid');
    return stored || this.expiredOnLoad.has('sessionid') ? 'expired' : 'none';
  }

  /** Forgets a cookie, e.g. the old `sessionid` before signing in again. */
  remove(name: string): void {
    this.data.cookies = this.data.cookies.filter((c) => c.name !== name);
  }

  /** Every cookie value: what the debug log and error messages must never show. */
  secrets(): string[] {
    return this.data.cookies.map((c) => c.value).filter((v) => v.length >= 4);
  }

  /** The Cookie header for a request to `url`, or undefined when nothing applies. */
  cookieHeader(url: URL): string | undefined {
    if (url.origin !== this.origin) return undefined;
    const host = url.hostname.toLowerCase();
    const secureChannel = url.protocol === 'https:' || isLoopback(url.hostname);
    const cookies = this.live()
      .filter(
        (c) =>
          (c.hostOnly ? host === c.domain : domainMatch(host, c.domain)) && pathMatch(url.pathname, c.path) && (!c.secure || secureChannel),
      )
      .sort((a, b) => b.path.length - a.path.length);
    return cookies.length ? cookies.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
  }

  /** Applies every Set-Cookie of a response from `url`; true when the jar changed. */
  applySetCookie(url: URL, header: string | string[] | undefined): boolean {
    if (url.origin !== this.origin || header === undefined) return false;
    let changed = false;
    for (const line of Array.isArray(header) ? header : [header]) changed = this.applyOne(url, line) || changed;
    return changed;
  }

  /** RFC 6265 §5.2 and §5.3. */
  private applyOne(url: URL, line: string): boolean {
    const [pair, ...attributes] = line.split(';');
    const eq = pair.indexOf('=');
    if (eq <= 0) return false;
    const name = pair.slice(0, eq).trim();
    const value = pair
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');

    const host = url.hostname.toLowerCase();
    let expires: number | null = null;
    let maxAge: number | undefined;
    let domain: string | undefined;
    let path: string | undefined;
    let secure = false;
    let httpOnly = false;
    let sameSite: string | undefined;
    for (const attribute of attributes) {
      const i = attribute.indexOf('=');
      const key = (i === -1 ? attribute : attribute.slice(0, i)).trim().toLowerCase();
      const val = i === -1 ? '' : attribute.slice(i + 1).trim();
      if (key === 'expires') {
        const at = Date.parse(val);
        if (!Number.isNaN(at)) expires = at;
      } else if (key === 'max-age' && /^-?\d+$/.test(val)) maxAge = Number(val);
      else if (key === 'domain' && val) domain = val.replace(/^\./, '').toLowerCase();
      else if (key === 'path' && val.startsWith('/')) path = val;
      else if (key === 'secure') secure = true;
      else if (key === 'httponly') httpOnly = true;
      else if (key === 'samesite') sameSite = val;
    }
    if (maxAge !== undefined) expires = maxAge <= 0 ? 0 : this.now() + maxAge * 1000;
    // A cookie for another domain, or a Secure one over an insecure channel, is refused.
    if (domain !== undefined && (!domainMatch(host, domain) || (!domain.includes('.') && domain !== host))) return false;
    if (secure && url.protocol !== 'https:' && !isLoopback(url.hostname)) return false;

    const cookie: JarCookie = {
      name,
      value,
      domain: domain ?? host,
      hostOnly: domain === undefined,
      path: path ?? defaultPath(url),
      expires,
      secure,
      httpOnly,
      ...(sameSite ? { sameSite } : {}),
    };
    const same = (c: JarCookie) => c.name === cookie.name && c.domain === cookie.domain && c.path === cookie.path;
    this.data.cookies = this.data.cookies.filter((c) => !same(c));
    if (expires !== null && expires <= this.now()) return true;
    this.data.cookies.push(cookie);
    return true;
  }

  /** Writes the jar atomically, readable by its owner alone, never through a link. */
  save(): void {
    ensurePrivateDir(join(this.file, '..'));
    const data: JarFile = { ...this.data, cookies: this.live() };
    writeSecretFile(this.file, `${JSON.stringify(data, null, 2)}\n`);
  }

  /** Deletes the file; true when there was one. */
  delete(): boolean {
    const existed = existsSync(this.file);
    try {
      rmSync(this.file, { force: true });
    } catch (err) {
      throw fileError(err, this.file, 'write');
    }
    this.data = { version: 1, origin: this.origin, cookies: [] };
    return existed;
  }
}
