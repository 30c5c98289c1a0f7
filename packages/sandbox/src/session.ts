// Django sessions for the sandbox (docs/server-contract.md §11): a server-side store keyed by the
// `sessionid` cookie, the cookies the server sets, and the authenticator that turns a logged-in
// session into a principal after DRF's CSRF check. Cookies carry no Secure flag over plain HTTP,
// or a client could never send them back to a loopback sandbox.

import { randomBytes } from 'node:crypto';
import type { Authenticator } from './auth.js';
import { csrfFailure, newCsrfSecret } from './csrf.js';
import { permissionDenied } from './errors.js';
import type { SandboxUser } from './world.js';

/** SESSION_COOKIE_AGE: two weeks. */
export const SESSION_AGE_MS = 14 * 24 * 3600 * 1000;
/** CSRF_COOKIE_NAME (posthog/settings/web.py): not Django's default `csrftoken`. */
export const CSRF_COOKIE_NAME = 'posthog_csrftoken';
/** CSRF_COOKIE_AGE: Django's default, a year (52 weeks). */
export const CSRF_COOKIE_AGE_MS = 31_449_600 * 1000;

export interface Session {
  /** The `sessionid` cookie value. */
  key: string;
  /** The logged-in user, or null for an anonymous session (e.g. halfway through 2FA). */
  userId: number | null;
  /** When the user last signed in (SESSION_COOKIE_CREATED_AT_KEY): the 2-hour re-auth window. */
  loginAt: number | null;
  expiresAt: number;
  /** `user_authenticated_but_no_2fa` and `user_authenticated_time` after the password step. */
  pendingTwoFactor: { userId: number; at: number } | null;
  /** The key from two_factor_start_setup, valid for 10 minutes. */
  twoFactorSetup: { secret: string; at: number } | null;
  /** A password step that is waiting for the code mailed to the user (code-based verification). */
  pendingCode: { userId: number; code: string; sentAt: number; attempts: number } | null;
}

export class SessionStore {
  private readonly byKey = new Map<string, Session>();

  constructor(private readonly now: () => number) {}

  create(): Session {
    const session: Session = {
      key: newSessionKey(),
      userId: null,
      loginAt: null,
      expiresAt: this.now() + SESSION_AGE_MS,
      pendingTwoFactor: null,
      twoFactorSetup: null,
      pendingCode: null,
    };
    this.byKey.set(session.key, session);
    return session;
  }

  /** The live session for a cookie value; expired ones are dropped. */
  get(key: string | undefined): Session | undefined {
    if (!key) return undefined;
    const session = this.byKey.get(key);
    if (session && session.expiresAt <= this.now()) {
      this.byKey.delete(key);
      return undefined;
    }
    return session;
  }

  /** Django's login(): a fresh key (cycle_key) for a session that now belongs to `userId`. */
  login(previous: Session | undefined, userId: number): Session {
    if (previous) this.byKey.delete(previous.key);
    const session = this.create();
    session.userId = userId;
    session.loginAt = this.now();
    return session;
  }

  delete(key: string): void {
    this.byKey.delete(key);
  }

  /** Test hook: makes every session look `ms` older, e.g. past the 2-hour re-auth window. */
  age(ms: number): number {
    for (const session of this.byKey.values()) {
      if (session.loginAt !== null) session.loginAt -= ms;
      if (session.pendingTwoFactor) session.pendingTwoFactor.at -= ms;
      if (session.twoFactorSetup) session.twoFactorSetup.at -= ms;
      if (session.pendingCode) session.pendingCode.sentAt -= ms;
    }
    return this.byKey.size;
  }

  get size(): number {
    return this.byKey.size;
  }
}

function newSessionKey(): string {
  // Django's session keys are 32 characters of [a-z0-9].
  const bytes = randomBytes(32);
  let out = '';
  for (const b of bytes) out += 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36];
  return out;
}

export function parseCookies(header: string | string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  const text = Array.isArray(header) ? header.join('; ') : (header ?? '');
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim();
    if (name && !(name in out)) out[name] = part.slice(eq + 1).trim();
  }
  return out;
}

export interface CookieOptions {
  maxAgeMs: number;
  now: number;
  httpOnly?: boolean;
  sameSite?: 'Lax' | 'Strict';
  secure: boolean;
}

/** A Set-Cookie value in Django's attribute order. */
export function setCookie(name: string, value: string, o: CookieOptions): string {
  const expires = new Date(o.now + o.maxAgeMs).toUTCString();
  return [
    `${name}=${value}`,
    `expires=${expires}`,
    ...(o.httpOnly ? ['HttpOnly'] : []),
    `Max-Age=${Math.round(o.maxAgeMs / 1000)}`,
    'Path=/',
    `SameSite=${o.sameSite ?? 'Lax'}`,
    ...(o.secure ? ['Secure'] : []),
  ].join('; ');
}

export function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Whether the request came over HTTPS; behind a TLS proxy, per X-Forwarded-Proto (SECURE_PROXY_SSL_HEADER). */
export function isSecure(headers: Record<string, string | string[] | undefined>): boolean {
  return header(headers, 'x-forwarded-proto')?.split(',')[0].trim().toLowerCase() === 'https';
}

/** The cookies a response that signs someone in sets: a new session and a rotated CSRF token. */
export function loginCookies(session: Session, now: number, secure: boolean): string[] {
  return [sessionCookie(session, now, secure), setCookie(CSRF_COOKIE_NAME, newCsrfSecret(), { maxAgeMs: CSRF_COOKIE_AGE_MS, now, secure })];
}

export function sessionCookie(session: Session, now: number, secure: boolean): string {
  return setCookie('sessionid', session.key, { maxAgeMs: session.expiresAt - now, now, httpOnly: true, secure });
}

/**
 * DRF's SessionAuthentication: a cookie naming a logged-in session of an active user
 * authenticates; an unsafe method must then pass the CSRF check, else 403 `CSRF Failed: ...`.
 */
export function sessionAuthenticator(sessions: SessionStore, users: (id: number) => SandboxUser | undefined): Authenticator {
  return (input) => {
    const cookies = parseCookies(input.headers.cookie);
    const session = sessions.get(cookies.sessionid);
    if (!session || session.userId === null) return null;
    const user = users(session.userId);
    if (!user || !user.isActive) return null;
    const reason = csrfFailure({
      method: input.method ?? 'GET',
      cookie: cookies[CSRF_COOKIE_NAME],
      headers: input.headers,
      secure: isSecure(input.headers),
      host: header(input.headers, 'host') ?? '',
    });
    if (reason) throw permissionDenied(`CSRF Failed: ${reason}`);
    return { kind: 'session', user, sessionId: session.key };
  };
}
