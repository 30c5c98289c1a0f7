// Resolves where and as whom a command talks: flags, then environment, then the chosen profile,
// then the current profile (design.md §1). The API key is never a flag.
import { UsageError } from '../errors.js';
import type { ProfileStore } from './profiles.js';

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
  sources: { baseUrl: Source; projectId?: Source; apiKey?: Source };
}

export function resolveSettings(flags: SettingFlags, env: NodeJS.ProcessEnv, store: ProfileStore): Settings {
  const explicit = flags.profile ?? (env.HOGCTL_PROFILE || undefined);
  const profileName = explicit ?? store.current();
  const profile = explicit ? store.require(explicit) : profileName ? store.get(profileName) : undefined;

  const pick = (flag: string | undefined, envValue: string | undefined, stored: string | undefined): [string | undefined, Source | undefined] =>
    flag !== undefined ? [flag, 'flag'] : envValue ? [envValue, 'env'] : stored !== undefined ? [stored, 'profile'] : [undefined, undefined];

  const [rawBase, baseSource] = pick(flags.baseUrl, env.HOGCTL_BASE_URL, profile?.base_url);
  const base = normalizeBaseUrl(rawBase ?? DEFAULT_BASE_URL);
  // An old saved URL such as https://host/api/environments/42/ names a project at its own level.
  const urlProject = base.projectId;
  const [projectId, projectSource] = pick(
    flags.project ?? (baseSource === 'flag' ? urlProject : undefined),
    env.HOGCTL_PROJECT_ID || (baseSource === 'env' ? urlProject : undefined),
    profile?.project_id ?? urlProject,
  );
  const envKey = env.HOGCTL_API_KEY?.trim();
  const storedKey = profileName ? store.apiKey(profileName) : undefined;
  const apiKey = envKey || storedKey;

  if (projectId !== undefined) checkProjectId(projectId);
  return {
    profileName,
    baseUrl: base.url,
    projectId,
    apiKey,
    allowInsecureHttp: profile?.allow_insecure_http === true,
    sources: { baseUrl: baseSource ?? 'default', projectId: projectSource, apiKey: envKey ? 'env' : storedKey ? 'profile' : undefined },
  };
}

export function checkProjectId(id: string): string {
  if (!/^(\d+|@current)$/.test(id)) {
    throw new UsageError(`invalid project id "${id}": use the number shown by \`hogctl projects list\``);
  }
  return id;
}

/**
 * Accepts a site URL with or without a trailing slash, and also an old saved URL that points into
 * `/api/environments/<id>/` or `/api/projects/<id>/`: the origin is kept and the id becomes the
 * default project, because hogctl always calls the canonical `/api/projects/` paths.
 */
export function normalizeBaseUrl(raw: string): { url: string; projectId?: string } {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new UsageError(`invalid base URL "${raw}": use the site address, e.g. https://us.posthog.com`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new UsageError(`invalid base URL "${raw}": it must start with https:// (or http:// for a local server)`);
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
