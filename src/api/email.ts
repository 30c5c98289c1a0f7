// Thin typed calls for the e-mail actions of /api/users/ (docs/server-contract.md §10): verify_email
// with the 6-digit code current servers mail, or the token in the link older servers mail
// (`{SITE_URL}/verify_email/{uuid}/{token}[?next=...]`), and the checks of both before sending.
import type { ApiClient } from '../http/client.js';
import { UsageError } from '../errors.js';
import type { User } from './users.js';
import { isUuid } from './uuid.js';

export interface VerificationLink {
  origin: string;
  uuid: string;
  token: string;
  next?: string;
}

export function checkVerification(uuid: string, token: string): { uuid: string; token: string } {
  if (!isUuid(uuid.trim()))
    throw new UsageError(`invalid user uuid "${uuid}"`, 'the uuid is the second-to-last part of the link in the e-mail');
  if (!/^[\w-]{1,200}$/.test(token.trim()))
    throw new UsageError(
      'invalid verification token: expected letters, digits and dashes',
      'copy the whole link from the e-mail, or the last part of it',
    );
  return { uuid: uuid.trim(), token: token.trim() };
}

/** Reads uuid and token from the link; the site may live under a path prefix. */
export function parseVerificationLink(link: string): VerificationLink {
  let url: URL;
  try {
    url = new URL(link.trim());
  } catch {
    throw new UsageError(
      'not a verification link: expected https://<site>/verify_email/<uuid>/<token>',
      'copy the whole link from the e-mail, or pass --uuid and --token',
    );
  }
  const match = /\/verify_email\/([^/]+)\/([^/]+)\/?$/.exec(url.pathname);
  if (!match || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new UsageError(
      `not a verification link: ${url.origin}${url.pathname} has no /verify_email/<uuid>/<token>`,
      'copy the whole link from the e-mail, or pass --uuid and --token',
    );
  }
  const { uuid, token } = checkVerification(decodeURIComponent(match[1]), decodeURIComponent(match[2]));
  const next = url.searchParams.get('next') ?? undefined;
  return { origin: url.origin, uuid, token, ...(next ? { next } : {}) };
}

/**
 * The code as PostHog reads it (normalize_verification_code in posthog/helpers/two_factor_session.py):
 * spaces, invisible characters and grouping hyphens dropped, other scripts' digits folded to ASCII,
 * then exactly six digits. Anything else is refused here, before it is sent.
 */
export function checkVerificationCode(raw: string): string {
  const code = raw.normalize('NFKC').replace(/[\s\u200b-\u200d\u2060\ufeff\u00ad\u2010-\u2015\u2212-]/gu, '');
  if (/^\d{6}$/.test(code)) return code;
  throw new UsageError(
    `invalid verification code "${raw.trim()}": expected the 6 digits from the e-mail`,
    'PostHog mails a 6-digit code; older servers mail a link instead, which `hogctl email verify` takes too',
  );
}

/** What verify_email answers on success: a session for the browser, or what it still needs. */
export interface VerifyEmailAnswer {
  success?: boolean;
  requires_2fa?: boolean;
  requires_sso?: boolean;
  requires_login?: boolean;
}

/** Current servers: the code mailed for the user's pending (or unverified) address. */
export async function verifyEmailCode(client: ApiClient, uuid: string, code: string): Promise<VerifyEmailAnswer> {
  return (await client.post<VerifyEmailAnswer>('/api/users/verify_email/', { uuid, code })).body ?? {};
}

/** Older servers: the token from the mailed link. */
export async function verifyEmailToken(client: ApiClient, uuid: string, token: string): Promise<VerifyEmailAnswer> {
  return (await client.post<VerifyEmailAnswer>('/api/users/verify_email/', { uuid, token })).body ?? {};
}

/** Always `success` (unknown uuids too), so the answer says nothing about who exists. */
export async function requestEmailVerification(client: ApiClient, uuid: string): Promise<void> {
  await client.post('/api/users/request_email_verification/', { uuid });
}

export async function cancelEmailChange(client: ApiClient): Promise<User> {
  return (await client.request<User>({ method: 'PATCH', path: '/api/users/cancel_email_change_request/' })).body;
}
