// Thin typed calls for the e-mail actions of /api/users/ (docs/server-contract.md §10), and the parser for
// the link in a verification e-mail: `{SITE_URL}/verify_email/{uuid}/{token}[?next=...]`.
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

export async function verifyEmail(client: ApiClient, uuid: string, token: string): Promise<void> {
  await client.post('/api/users/verify_email/', { uuid, token });
}

/** Always `success` (unknown uuids too), so the answer says nothing about who exists. */
export async function requestEmailVerification(client: ApiClient, uuid: string): Promise<void> {
  await client.post('/api/users/request_email_verification/', { uuid });
}

export async function cancelEmailChange(client: ApiClient): Promise<User> {
  return (await client.request<User>({ method: 'PATCH', path: '/api/users/cancel_email_change_request/' })).body;
}
