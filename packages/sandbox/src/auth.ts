// Who is calling (docs/server-contract.md §3.1, §3.2). Authorisation (scopes, projects) is in
// permissions.ts; this module only finds and validates credentials.
//
// Authenticators run in order and the first one that recognises its credential wins, as in
// `TeamAndOrgViewSetMixin.get_authenticators`: personal API key first, then anything registered
// later with `addAuthenticator` (session cookies, session.ts). An authenticator returns
// null when its kind of credential is absent and throws an ErrorResponse when it is present but bad.

import { createHash, randomBytes } from 'node:crypto';
import { invalidPersonalApiKey, type KeySource } from './errors.js';
import type { SandboxUser } from './world.js';

export interface ApiKeyRecord {
  id: string;
  label: string;
  createdAt: string;
  /** Only the hash is kept, as on the server; it also names the key's rate-limit buckets. */
  hash: string;
  /** phx_...abcd, the UI mask. */
  mask: string;
  scopes: string[];
  /** null or [] = every project the user can see. */
  scopedTeams: number[] | null;
  scopedOrganizations: string[] | null;
  userId: number;
}

export type Principal =
  | { kind: 'personal_api_key'; user: SandboxUser; key: ApiKeyRecord; source: KeySource }
  | { kind: 'session'; user: SandboxUser; sessionId: string };

/** What an authenticator may look at; request data is parsed lazily because reading it can
 * itself fail (415/400), exactly as touching `request.data` does in DRF. */
export interface AuthInput {
  /** The HTTP method: session authentication checks CSRF on unsafe ones. */
  method?: string;
  headers: Record<string, string | string[] | undefined>;
  query: URLSearchParams;
  data(): unknown;
}

export type Authenticator = (input: AuthInput) => Principal | null;

export function hashKey(value: string): string {
  return 'sha256$' + createHash('sha256').update(value).digest('hex');
}

export function maskKey(value: string): string {
  return `${value.slice(0, 4)}...${value.slice(-4)}`;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `phx_` + base62, like `generate_random_token_personal`. */
export function randomKeyValue(): string {
  const bytes = randomBytes(43);
  let out = 'phx_';
  for (const b of bytes) out += BASE62[b % 62];
  return out;
}

/**
 * The same `phx_` key for the same seed: a throwaway local key that survives a restart, so a
 * profile saved for `hogctl sandbox --port 8010` keeps working. Anyone who knows the seed knows
 * the key, which is why it is opt-in and the CLI uses it only on a loopback address.
 */
export function keyValueForSeed(seed: number): string {
  const bytes = createHash('sha512').update(`hogctl sandbox key, seed ${seed}`).digest();
  let out = 'phx_';
  for (let i = 0; i < 43; i++) out += BASE62[bytes[i]! % 62];
  return out;
}

export interface KeySpec {
  value: string;
  scopes: string[];
  scopedTeams: number[] | null;
}

/**
 * `phx_name:scope1,scope2` or with projects `phx_x:person:read@42` (several: `@1,2`). No colon
 * means all scopes (`*`); a trailing colon means no scopes at all (denied everywhere, which is what
 * the newest server does with empty scopes).
 */
export function parseKeySpec(spec: string): KeySpec {
  const colon = spec.indexOf(':');
  const value = (colon === -1 ? spec : spec.slice(0, colon)).trim();
  if (!/^phx_\S+$/.test(value)) throw new Error(`invalid key spec "${spec}": the key must start with phx_ (e.g. phx_readonly:person:read)`);
  if (colon === -1) return { value, scopes: ['*'], scopedTeams: null };
  let rest = spec.slice(colon + 1);
  let scopedTeams: number[] | null = null;
  const at = rest.lastIndexOf('@');
  if (at !== -1) {
    const teams = rest
      .slice(at + 1)
      .split(/[,+]/)
      .map((t) => t.trim())
      .filter(Boolean);
    if (teams.length === 0 || teams.some((t) => !/^\d+$/.test(t))) {
      throw new Error(`invalid key spec "${spec}": project ids after @ must be integers, e.g. phx_x:person:read@1,2`);
    }
    scopedTeams = teams.map(Number);
    rest = rest.slice(0, at);
  }
  const scopes = rest
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const scope of scopes) {
    if (scope !== '*' && !/^[a-z_]+:(read|write)$/.test(scope)) {
      throw new Error(`invalid key spec "${spec}": scope "${scope}" is not "*" or "<object>:read|write"`);
    }
  }
  return { value, scopes, scopedTeams };
}

export class KeyRing {
  private readonly byHash = new Map<string, ApiKeyRecord>();

  add(
    value: string,
    scopes: string[],
    userId: number,
    opts: { scopedTeams?: number[] | null; scopedOrganizations?: string[] | null; label?: string } = {},
  ): ApiKeyRecord {
    const hash = hashKey(value);
    const record: ApiKeyRecord = {
      id: hash.replace(/^sha256\$/, '').slice(0, 24),
      label: opts.label ?? 'sandbox key',
      createdAt: '2024-09-01T09:00:00.000000Z',
      hash,
      mask: maskKey(value),
      scopes: [...scopes],
      scopedTeams: opts.scopedTeams && opts.scopedTeams.length ? [...opts.scopedTeams] : null,
      scopedOrganizations: opts.scopedOrganizations && opts.scopedOrganizations.length ? [...opts.scopedOrganizations] : null,
      userId,
    };
    this.byHash.set(record.hash, record);
    return record;
  }

  find(value: string): ApiKeyRecord | undefined {
    return this.byHash.get(hashKey(value));
  }

  revoke(value: string): boolean {
    return this.byHash.delete(hashKey(value));
  }
}

function header(headers: AuthInput['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `find_key_with_source`: header (`^Bearer\s+(\S.+)$`, stripped), then body, then query string.
 * Only the first candidate is tried. */
export function findKeyWithSource(input: AuthInput): { value: string; source: KeySource } | null {
  const authorization = header(input.headers, 'authorization');
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S.+)$/.exec(authorization);
    if (match) {
      const token = match[1].trim();
      // OAuth access tokens and project secret keys belong to other authenticators.
      if (token.startsWith('pha_') || token.startsWith('phs_')) return null;
      return { value: token, source: 'Authorization header' };
    }
  }
  const data = input.data();
  if (data && typeof data === 'object' && !Array.isArray(data) && 'personal_api_key' in data) {
    return { value: String((data as Record<string, unknown>).personal_api_key), source: 'body' };
  }
  const all = input.query.getAll('personal_api_key');
  const fromQuery = all.length ? all[all.length - 1] : null;
  if (fromQuery !== null) return { value: fromQuery, source: 'query string' };
  return null;
}

export function personalApiKeyAuthenticator(
  keys: KeyRing,
  users: (id: number) => SandboxUser | undefined,
  siteUrl: () => string,
): Authenticator {
  return (input) => {
    const found = findKeyWithSource(input);
    if (!found) return null;
    const key = keys.find(found.value);
    const user = key ? users(key.userId) : undefined;
    // An inactive user's key fails like an unknown one (test_user_not_active).
    if (!key || !user || !user.isActive) throw invalidPersonalApiKey(found.source, siteUrl());
    return { kind: 'personal_api_key', user, key, source: found.source };
  };
}

export class Authentication {
  private readonly authenticators: Authenticator[] = [];

  /** Appends an authenticator; order matters (first recognised credential wins). */
  addAuthenticator(authenticator: Authenticator): void {
    this.authenticators.push(authenticator);
  }

  authenticate(input: AuthInput): Principal | null {
    for (const authenticator of this.authenticators) {
      const principal = authenticator(input);
      if (principal) return principal;
    }
    return null;
  }
}
