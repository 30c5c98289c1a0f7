// Django's CsrfViewMiddleware as DRF's SessionAuthentication runs it (docs/server-contract.md §11.3): only
// unsafe methods of an authenticated session are checked; an Origin header must be the site's
// own; over HTTPS without Origin the Referer must be same-origin; then the X-CSRFToken header
// must match the posthog_csrftoken cookie (CSRF_COOKIE_NAME) (32 characters, or 64 when masked). The reasons are Django's
// wording; DRF prefixes them with "CSRF Failed: ".

import { randomInt, timingSafeEqual } from 'node:crypto';

const CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export const CSRF_SECRET_LENGTH = 32;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/** `get_random_string(32)` from Django's alphabet: the posthog_csrftoken cookie (CSRF_COOKIE_NAME) value. */
export function newCsrfSecret(): string {
  let out = '';
  for (let i = 0; i < CSRF_SECRET_LENGTH; i++) out += CHARS[randomInt(CHARS.length)];
  return out;
}

function unmask(token: string): string {
  const mask = token.slice(0, CSRF_SECRET_LENGTH);
  const cipher = token.slice(CSRF_SECRET_LENGTH);
  let out = '';
  for (let i = 0; i < CSRF_SECRET_LENGTH; i++) {
    out += CHARS[(CHARS.indexOf(cipher[i]) - CHARS.indexOf(mask[i]) + CHARS.length) % CHARS.length];
  }
  return out;
}

function formatProblem(token: string): string | null {
  if (token.length !== CSRF_SECRET_LENGTH && token.length !== 2 * CSRF_SECRET_LENGTH) return 'has incorrect length';
  if (![...token].every((c) => CHARS.includes(c))) return 'has invalid characters';
  return null;
}

export interface CsrfInput {
  method: string;
  /** The CSRF cookie (posthog_csrftoken), if sent. */
  cookie: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  /** Whether the request came over HTTPS (directly or per X-Forwarded-Proto). */
  secure: boolean;
  /** The Host header: the site's own origin is `scheme://host`. */
  host: string;
}

function header(headers: CsrfInput['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Why Django would reject the request, or null when it passes. */
export function csrfFailure(input: CsrfInput): string | null {
  if (SAFE_METHODS.has(input.method.toUpperCase())) return null;
  const goodOrigin = `${input.secure ? 'https' : 'http'}://${input.host}`;

  const origin = header(input.headers, 'origin');
  if (origin !== undefined) {
    if (origin !== goodOrigin) return `Origin checking failed - ${origin} does not match any trusted origins.`;
  } else if (input.secure) {
    const referer = header(input.headers, 'referer');
    if (referer === undefined) return 'Referer checking failed - no Referer.';
    let parsed: URL;
    try {
      parsed = new URL(referer);
    } catch {
      return 'Referer checking failed - Referer is malformed.';
    }
    if (parsed.protocol !== 'https:') return 'Referer checking failed - Referer is insecure while host is secure.';
    if (parsed.host !== input.host) return `Referer checking failed - ${referer} does not match any trusted origins.`;
  }

  if (input.cookie === undefined || input.cookie === '') return 'CSRF cookie not set.';
  const cookieProblem = formatProblem(input.cookie);
  if (cookieProblem) return `CSRF cookie ${cookieProblem}.`;
  const secret = input.cookie.length === CSRF_SECRET_LENGTH ? input.cookie : unmask(input.cookie);

  const token = header(input.headers, 'x-csrftoken');
  if (token === undefined) return 'CSRF token missing.';
  const tokenProblem = formatProblem(token);
  if (tokenProblem) return `CSRF token from the 'X-Csrftoken' HTTP header ${tokenProblem}.`;
  const presented = token.length === CSRF_SECRET_LENGTH ? token : unmask(token);
  if (!timingSafeEqual(Buffer.from(presented), Buffer.from(secret))) return "CSRF token from the 'X-Csrftoken' HTTP header incorrect.";
  return null;
}
