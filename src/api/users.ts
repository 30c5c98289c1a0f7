// Thin typed calls for /api/users/ (docs/server-contract.md §9, §10). Users are addressed by uuid or
// `@me`. The 2FA actions need a signed-in session; the client brings whatever credentials the
// command chose.
import type { ApiClient } from '../http/client.js';
import { UsageError } from '../errors.js';
import { isUuid } from './uuid.js';
import { expectShape, OBJECT_WITH } from '../http/foreign-answer.js';

/** UserSerializer's fields (docs/server-contract.md §9); `team` and `organization` are objects. */
export const USER_FIELDS = [
  'date_joined',
  'uuid',
  'distinct_id',
  'first_name',
  'last_name',
  'email',
  'pending_email',
  'is_email_verified',
  'notification_settings',
  'anonymize_data',
  'toolbar_mode',
  'has_password',
  'id',
  'is_staff',
  'is_impersonated',
  'is_impersonated_until',
  'sensitive_session_expires_at',
  'team',
  'organization',
  'organizations',
  'events_column_config',
  'is_2fa_enabled',
  'has_social_auth',
  'has_sso_enforcement',
  'has_seen_product_intro_for',
  'scene_personalisation',
  'theme_mode',
  'hedgehog_config',
  'role_at_organization',
];
export const USER_OPEN_OBJECTS = [
  'team',
  'organization',
  'notification_settings',
  'events_column_config',
  'has_seen_product_intro_for',
  'hedgehog_config',
];
export const USER_COLUMNS = ['uuid', 'email', 'first_name', 'last_name', 'pending_email', 'is_email_verified', 'is_2fa_enabled'];

export interface User {
  uuid: string;
  email: string;
  first_name?: string;
  last_name?: string;
  pending_email?: string | null;
  is_email_verified?: boolean | null;
  is_2fa_enabled?: boolean;
  [field: string]: unknown;
}

export interface TwoFactorStatus {
  is_enabled: boolean;
  backup_codes: string[];
  method: string | null;
}

/** `@me` or a user uuid; anything else is refused before a request is sent. */
export function checkUserId(raw: string | undefined, flag = '--user'): string {
  const id = (raw ?? '@me').trim();
  if (id === '@me' || isUuid(id)) return id;
  throw new UsageError(
    `invalid ${flag} "${raw}": expected a user uuid or @me`,
    'e.g. @me (yourself), or the uuid shown by `hogctl users me`',
  );
}

export function checkUuid(raw: string, flag: string): string {
  if (isUuid(raw.trim())) return raw.trim();
  throw new UsageError(`invalid ${flag} "${raw}": expected a user uuid`, 'the uuid shown by `hogctl users me`');
}

export function userPath(user: string, action?: string): string {
  // `user` is @me or a uuid (checkUserId), neither of which needs escaping.
  return `/api/users/${user}/${action ? `${action}/` : ''}`;
}

export async function getUser(client: ApiClient, user = '@me'): Promise<User> {
  const res = await client.get<User>(userPath(user));
  expectShape(res, 'GET', 'a user', OBJECT_WITH('uuid'));
  return res.body;
}

export async function updateUser(client: ApiClient, user: string, body: Record<string, unknown>): Promise<User> {
  return (await client.request<User>({ method: 'PATCH', path: userPath(user), body })).body;
}

/** GET `action`, or `legacy` on servers that predate the new name (404). */
async function withFallback<T>(
  client: ApiClient,
  method: 'GET' | 'POST',
  user: string,
  action: string,
  legacy: string,
  body?: unknown,
): Promise<T> {
  const first = await client.request<T>({ method, path: userPath(user, action), body, acceptStatus: (s) => s === 404 });
  if (first.status !== 404) return first.body;
  return (await client.request<T>({ method, path: userPath(user, legacy), body })).body;
}

/** A new TOTP key, kept in the server session for 10 minutes. */
export async function twoFactorStartSetup(client: ApiClient, user: string): Promise<{ success: boolean; secret: string }> {
  return withFallback(client, 'GET', user, 'two_factor_start_setup', 'start_2fa_setup');
}

export async function twoFactorValidate(client: ApiClient, user: string, token: string): Promise<{ success: boolean }> {
  return withFallback(client, 'POST', user, 'two_factor_validate', 'validate_2fa', { token });
}

export async function twoFactorStatus(client: ApiClient, user: string): Promise<TwoFactorStatus> {
  const body = (await client.get<Partial<TwoFactorStatus>>(userPath(user, 'two_factor_status'))).body ?? {};
  return {
    is_enabled: Boolean(body.is_enabled),
    backup_codes: Array.isArray(body.backup_codes) ? body.backup_codes : [],
    method: body.method ?? null,
  };
}

/** Five new backup codes; the old ones stop working. */
export async function twoFactorBackupCodes(client: ApiClient, user: string): Promise<string[]> {
  const body = (await client.post<{ backup_codes?: string[] }>(userPath(user, 'two_factor_backup_codes'))).body;
  return Array.isArray(body?.backup_codes) ? body.backup_codes : [];
}

export async function twoFactorDisable(client: ApiClient, user: string): Promise<void> {
  await client.post(userPath(user, 'two_factor_disable'));
}

/** What authenticator apps read from a QR code (docs/server-contract.md §10). */
export function otpauthUri(email: string, secret: string): string {
  return `otpauth://totp/PostHog:${encodeURIComponent(email).replace(/%40/g, '@')}?secret=${secret}&issuer=PostHog`;
}
