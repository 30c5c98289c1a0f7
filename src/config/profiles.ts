// Profiles: named sets of base URL and project id, plus the current choice. API keys live in a
// separate credentials file so that everything printed from a profile is free of secrets. Both
// files are mode 0600 in a 0700 directory.
import Conf from 'conf';
import { chmodSync, existsSync } from 'node:fs';
import { ensurePrivateDir } from './paths.js';
import { UsageError } from '../errors.js';

export interface Profile {
  base_url: string;
  project_id?: string;
  /** Lets credentials travel over plain http:// to a host that is not loopback. */
  allow_insecure_http?: boolean;
}

interface ConfigFile {
  current?: string;
  profiles: Record<string, Profile>;
}

interface CredentialsFile {
  api_keys: Record<string, string>;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function checkProfileName(name: string): string {
  if (!NAME.test(name)) {
    throw new UsageError(
      `invalid profile name "${name}": use letters, digits, ".", "_" or "-" (up to 64 characters), e.g. "prod"`,
    );
  }
  return name;
}

export class ProfileStore {
  private readonly config: Conf<ConfigFile>;
  private readonly credentials: Conf<CredentialsFile>;

  constructor(readonly dir: string) {
    ensurePrivateDir(dir);
    const common = { cwd: dir, projectName: 'hogctl', configFileMode: 0o600, accessPropertiesByDotNotation: false } as const;
    this.config = new Conf<ConfigFile>({ ...common, configName: 'config', defaults: { profiles: {} } });
    this.credentials = new Conf<CredentialsFile>({ ...common, configName: 'credentials', defaults: { api_keys: {} } });
    for (const store of [this.config, this.credentials]) if (existsSync(store.path)) chmodSync(store.path, 0o600);
  }

  get configPath(): string {
    return this.config.path;
  }

  get credentialsPath(): string {
    return this.credentials.path;
  }

  current(): string | undefined {
    return this.config.get('current');
  }

  names(): string[] {
    return Object.keys(this.config.get('profiles')).sort();
  }

  get(name: string): Profile | undefined {
    return this.config.get('profiles')[name];
  }

  /** The profile, or a usage error naming the profiles there are. */
  require(name: string): Profile {
    const profile = this.get(name);
    if (profile) return profile;
    const names = this.names();
    throw new UsageError(
      `no profile named "${name}"`,
      names.length ? `profiles: ${names.join(', ')}; add one with \`hogctl profile add ${name}\`` : `add one with \`hogctl profile add ${name}\``,
    );
  }

  apiKey(name: string): string | undefined {
    return this.credentials.get('api_keys')[name];
  }

  save(name: string, profile: Profile, apiKey?: string): void {
    this.config.set('profiles', { ...this.config.get('profiles'), [name]: profile });
    if (apiKey !== undefined) this.credentials.set('api_keys', { ...this.credentials.get('api_keys'), [name]: apiKey });
    if (!this.current()) this.use(name);
    this.tighten();
  }

  use(name: string): void {
    this.require(name);
    this.config.set('current', name);
    this.tighten();
  }

  remove(name: string): void {
    this.require(name);
    const { [name]: _removed, ...profiles } = this.config.get('profiles');
    this.config.set('profiles', profiles);
    const { [name]: _key, ...keys } = this.credentials.get('api_keys');
    this.credentials.set('api_keys', keys);
    if (this.current() === name) this.config.delete('current');
    this.tighten();
  }

  private tighten(): void {
    for (const store of [this.config, this.credentials]) if (existsSync(store.path)) chmodSync(store.path, 0o600);
  }
}
