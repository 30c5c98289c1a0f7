// Resolves where and as whom a command talks: flags, then environment, then the chosen profile,
// then the current profile (ARCHITECTURE.md §1). The API key is never a flag.
//
// A profile's key belongs to the profile's host (ARCHITECTURE.md §5): it is never sent to another one
// given by --base-url or HOGCTL_BASE_URL (checkKeyDestination). A run whose host and key both come
// from flags and HOGCTL_* variables needs no config dir at all: the current profile is then only
// a source of the project, read if it can be and used if it is for the same host.
import { UsageError } from '../errors.js';
import type { Profile, ProfileStore } from './profiles.js';

export const DEFAULT_BASE_URL = 'https://us.posthog.com';

export interface SettingFlags {
  profile?: string;
  baseUrl?: string;
  project?: string;
}

export type Source = 'flag' | 'env' | 'profile' | 'default';

export interface Settings {
  profileName?: string;
  baseUrl: string;
  projectId?: string;
  apiKey?: string;
  allowInsecureHttp: boolean;
  /** The ingestion host for capture requests, when set (HOGCTL_CAPTURE_URL, or the profile's). */
  captureUrl?: string;
  sources: { baseUrl: Source; projectId?: Source; apiKey?: Source };
  /** The origin the profile's key belongs to (its base URL's), when a profile is in use. */
  profileOrigin?: string;
}

export function resolveSettings(flags: SettingFlags, env: NodeJS.ProcessEnv, store: ProfileStore): Settings {
  const explicit = flags.profile ?? (env.HOGCTL_PROFILE || undefined);
  const envKey = env.HOGCTL_API_KEY?.trim() || undefined;
  const givenBase = flags.baseUrl ?? (env.HOGCTL_BASE_URL || undefined);
  let profileName: string | undefined;
  let profile: Profile | undefined;
  if (explicit) {
    profileName = explicit;
    profile = fromEnv(flags.profile === undefined ? 'HOGCTL_PROFILE' : undefined, explicit, (name) => store.require(name));
  } else if (givenBase !== undefined && envKey) {
    const current = readCurrentIfAny(store);
    if (current && originOf(current.profile.base_url) === originOf(givenBase)) ({ name: profileName, profile } = current);
  } else {
    profileName = store.current();
    profile = profileName ? store.get(profileName) : undefined;
  }
  const profileOrigin = profile ? originOf(profile.base_url) : undefined;

  const pick = (
    flag: string | undefined,
    envValue: string | undefined,
    stored: string | undefined,
  ): [string | undefined, Source | undefined] =>
    flag !== undefined
      ? [flag, 'flag']
      : envValue
        ? [envValue, 'env']
        : stored !== undefined
          ? [stored, 'profile']
          : [undefined, undefined];

  const [rawBase, baseSource] = pick(flags.baseUrl, env.HOGCTL_BASE_URL, profile?.base_url);
  const base = fromEnv(baseSource === 'env' ? 'HOGCTL_BASE_URL' : undefined, rawBase ?? DEFAULT_BASE_URL, normalizeBaseUrl);
  // An old saved URL such as https://host/api/environments/42/ names a project at its own level.
  const urlProject = base.projectId;
  const [projectId, projectSource] = pick(
    flags.project ?? (baseSource === 'flag' ? urlProject : undefined),
    env.HOGCTL_PROJECT_ID || (baseSource === 'env' ? urlProject : undefined),
    profile?.project_id ?? urlProject,
  );
  // The stored key is read only when the environment gives none, and only of a profile that
  // exists: its site is what checkKeyDestination holds the key to. A "current" naming a profile
  // removed by hand would otherwise send a leftover key to any --base-url, or to the default site.
  const storedKey = !envKey && profile && profileName ? store.apiKey(profileName) : undefined;
  const apiKey = envKey || storedKey;

  if (projectId !== undefined) fromEnv(projectSource === 'env' ? 'HOGCTL_PROJECT_ID' : undefined, projectId, checkProjectId);
  return {
    profileName,
    baseUrl: base.url,
    projectId,
    apiKey,
    // The profile's permission is for its own host only.
    allowInsecureHttp: profile?.allow_insecure_http === true && profileOrigin === new URL(base.url).origin,
    // The profile's capture host is for the profile's own site.
    captureUrl: env.HOGCTL_CAPTURE_URL
      ? fromEnv('HOGCTL_CAPTURE_URL', env.HOGCTL_CAPTURE_URL, (v) => normalizeBaseUrl(v, 'capture').url)
      : profileOrigin === new URL(base.url).origin
        ? profile?.capture_url
        : undefined,
    sources: { baseUrl: baseSource ?? 'default', projectId: projectSource, apiKey: envKey ? 'env' : storedKey ? 'profile' : undefined },
    ...(profile ? { profileOrigin: profileOrigin ?? `(invalid base URL ${JSON.stringify(profile.base_url)})` } : {}),
  };
}

/** The current profile when there is one and the config can be read; nothing otherwise. */
function readCurrentIfAny(store: ProfileStore): { name: string; profile: Profile } | undefined {
  try {
    const name = store.current();
    const profile = name ? store.get(name) : undefined;
    return name && profile ? { name, profile } : undefined;
  } catch {
    return undefined;
  }
}

function originOf(raw: string): string | undefined {
  try {
    return new URL(normalizeBaseUrl(raw).url).origin;
  } catch {
    return undefined;
  }
}

/**
 * Refuses to send a profile's key anywhere but the profile's host: `--base-url` (or
 * HOGCTL_BASE_URL) naming another host with a stored key is a mistake of the command line, or
 * someone steering the key elsewhere. A key from HOGCTL_API_KEY goes where the user points it.
 * Exit 2: nothing was sent, and the fix is in the flags.
 */
export function checkKeyDestination(settings: Settings): void {
  if (settings.sources.apiKey !== 'profile' || settings.profileOrigin === undefined) return;
  const target = new URL(settings.baseUrl).origin;
  if (target === settings.profileOrigin) return;
  const via = settings.sources.baseUrl === 'flag' ? '--base-url' : 'HOGCTL_BASE_URL';
  throw new UsageError(
    `refusing to send the API key of profile "${settings.profileName}" to ${target} (${via}): the key belongs to ${settings.profileOrigin}`,
    `a profile's key goes only to its own host: drop ${via}, pick the profile saved for ${target} with --profile, or give that host's key in HOGCTL_API_KEY`,
  );
}

/**
 * Parses a setting; when its value came from the environment variable `name`, a usage error
 * says so ("unknown output format "yaml" (from HOGCTL_OUTPUT)"), since no flag on the command
 * line explains it.
 */
export function fromEnv<T>(name: string | undefined, value: string, parse: (value: string) => T): T {
  try {
    return parse(value);
  } catch (error) {
    if (name === undefined || !(error instanceof UsageError)) throw error;
    const quoted = `"${value}"`;
    const message = error.message.includes(quoted)
      ? error.message.replace(quoted, `${quoted} (from ${name})`)
      : `${error.message} (from ${name})`;
    throw new UsageError(message, error.hint ? `${error.hint}; or unset ${name}` : `fix or unset ${name}`);
  }
}

/** A project id, `@current`, or a project's name (looked up when a command first needs the id). */
export function checkProjectId(id: string): string {
  if (id.trim() === '') {
    throw new UsageError('the project is empty: give its id or name', '`hogctl projects list` shows them');
  }
  return id;
}

/** What a URL setting is called in its errors: the site (--base-url) or its ingestion host
 * (--capture-url, HOGCTL_CAPTURE_URL). */
const URL_KINDS = {
  base: { name: 'base URL', example: 'the site address, e.g. https://us.posthog.com' },
  capture: { name: 'capture URL', example: 'the ingestion host, e.g. https://us.i.posthog.com' },
};

/**
 * Accepts a site URL with or without a trailing slash, and also an old saved URL that points into
 * `/api/environments/<id>/` or `/api/projects/<id>/`: the origin is kept and the id becomes the
 * default project, because hogctl always calls the canonical `/api/projects/` paths.
 */
export function normalizeBaseUrl(raw: string, what: keyof typeof URL_KINDS = 'base'): { url: string; projectId?: string } {
  const kind = URL_KINDS[what];
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new UsageError(`invalid ${kind.name} "${raw}": use ${kind.example}`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new UsageError(`invalid ${kind.name} "${raw}": it must start with https:// (or http:// for a local server)`);
  }
  const match = /^(.*?)\/api\/(?:projects|environments)\/(\d+)(?:\/.*)?$/.exec(parsed.pathname);
  const path = (match ? match[1] : parsed.pathname).replace(/\/+$/, '');
  return { url: `${parsed.origin}${path}`, projectId: match?.[2] };
}

/** `phx_…abcd`: enough to tell keys apart, never enough to use one. */
export function maskKey(key: string | undefined): string {
  if (!key) return '(none)';
  const prefix = /^[a-z]{3}_/.test(key) ? key.slice(0, 4) : '';
  return `${prefix}…${key.slice(-4)}`;
}
