// Credentials from a signed-in session (docs/server-contract.md §11.3): the jar's cookies, the CSRF token
// in X-CSRFToken on unsafe methods, a same-origin Referer (Django checks it over HTTPS), and no
// Authorization header, since a key would win over the session and be refused. Every Set-Cookie
// the site answers with goes back into the jar.
import type { SessionJar } from '../config/session-jar.js';
import { ApiError, ExitCode, type CliError } from '../errors.js';
import type { Credentials } from './client.js';
import { needsRecentSignIn } from './describe-error.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
const LOGIN = 'run `hogctl auth login`';

export interface SessionCredentialOptions {
  /** Write the jar after every change (off while signing in, which saves only on success). */
  autosave: boolean;
  /** Shown in messages, e.g. `profile "prod"`. */
  label?: string;
}

export function sessionCredentials(jar: SessionJar, options: SessionCredentialOptions): Credentials {
  return {
    headers(method, url) {
      const headers: Record<string, string> = { referer: `${jar.origin}/` };
      const cookie = jar.cookieHeader(url);
      if (cookie) headers.cookie = cookie;
      const csrf = jar.csrfToken();
      if (csrf && !SAFE.has(method.toUpperCase())) headers['x-csrftoken'] = csrf;
      return headers;
    },
    onResponse(url, headers) {
      if (jar.applySetCookie(url, headers['set-cookie']) && options.autosave) jar.save();
    },
    secrets: () => jar.secrets(),
    explain: (error) => explainSessionError(error, options.label),
  };
}

/** What a refused session request means, in words that say how to fix it. */
export function explainSessionError(error: CliError, label?: string): CliError {
  if (!(error instanceof ApiError)) return error;
  const { status, server } = error;
  const where = error.message.replace(/ failed with .*$/, '');
  const whose = label ? ` of ${label}` : '';
  if (status === 401) {
    return new ApiError(
      `session missing or expired: ${LOGIN}`,
      status,
      server,
      `${where} answered 401${server.code ? ` ${server.code}` : ''}: the server no longer accepts the session${whose}`,
      ExitCode.auth,
    );
  }
  if (status !== 403) return error;
  if (server.detail?.startsWith('CSRF Failed')) {
    return new ApiError(
      `the server refused the request's CSRF check: ${server.detail}`,
      status,
      server,
      `${LOGIN} to get a fresh session and CSRF token; a proxy that drops the Cookie, X-CSRFToken or Referer header causes this too`,
      ExitCode.auth,
    );
  }
  if (needsRecentSignIn(server)) {
    return new ApiError(
      `this action needs a recent sign-in: ${where} was refused because the session signed in more than 2 hours ago`,
      status,
      server,
      `${LOGIN} again${label ? ` (${label})` : ''}, then repeat the command`,
      ExitCode.auth,
    );
  }
  if (server.code === 'two_factor_setup_required' || server.code === 'two_factor_verification_required') {
    return new ApiError(
      error.message,
      status,
      server,
      'the organisation enforces 2FA: set it up with `hogctl users 2fa enable`, or sign in again with your code',
      ExitCode.auth,
    );
  }
  return error;
}
