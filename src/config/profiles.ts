// Profiles: named sets of base URL and project id, plus the current choice. API keys live in a
// separate credentials file so that everything printed from a profile is free of secrets. Both
// files are mode 0600 in a 0700 directory.
//
// Every command reads profiles, few change them: reads are a plain JSON.parse of the two files,
// and conf (atomic writes, file modes; ~35 ms to load) is loaded only to write.
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Conf from 'conf';
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

/**
 * conf registers a SIGINT handler (through its atomic-write library) that re-raises the signal,
 * which would turn one Ctrl-C into the bin's "second Ctrl-C, exit now". Loading it without
 * keeping that handler leaves Ctrl-C to hogctl; conf's clean-up still runs from its exit hook.
 */
async function loadConfWithoutSigintHooks(): Promise<typeof Conf> {
  const before = new Set(process.listeners('SIGINT'));
  try {
    return (await import('conf')).default;
  } finally {
    for (const listener of process.listeners('SIGINT')) if (!before.has(listener)) process.removeListener('SIGINT', listener);
  }
}

export class ProfileStore {
  readonly configPath: string;
  readonly credentialsPath: string;
  private writers?: { config: Conf<ConfigFile>; credentials: Conf<CredentialsFile> };

  constructor(readonly dir: string) {
    this.configPath = join(dir, 'config.json');
    this.credentialsPath = join(dir, 'credentials.json');
    // Files made too open (by hand, or by another tool) are tightened whenever hogctl sees them.
    if (existsSync(dir)) {
      chmodSync(dir, 0o700);
      this.tighten();
    }
  }

  current(): string | undefined {
    return this.config().current;
  }

  names(): string[] {
    return Object.keys(this.config().profiles).sort();
  }

  get(name: string): Profile | undefined {
    return Object.hasOwn(this.config().profiles, name) ? this.config().profiles[name] : undefined;
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
    const keys = this.credentials().api_keys;
    return Object.hasOwn(keys, name) ? keys[name] : undefined;
  }

  async save(name: string, profile: Profile, apiKey?: string): Promise<void> {
    const w = await this.writer();
    w.config.set('profiles', { ...this.config().profiles, [name]: profile });
    if (apiKey !== undefined) w.credentials.set('api_keys', { ...this.credentials().api_keys, [name]: apiKey });
    if (!this.current()) w.config.set('current', name);
    this.tighten();
  }

  async use(name: string): Promise<void> {
    this.require(name);
    (await this.writer()).config.set('current', name);
    this.tighten();
  }

  async remove(name: string): Promise<void> {
    this.require(name);
    const w = await this.writer();
    const { [name]: _removed, ...profiles } = this.config().profiles;
    w.config.set('profiles', profiles);
    const { [name]: _key, ...keys } = this.credentials().api_keys;
    w.credentials.set('api_keys', keys);
    if (this.current() === name) w.config.delete('current');
    this.tighten();
  }

  private config(): ConfigFile {
    return { profiles: {}, ...this.readJson<ConfigFile>(this.configPath) };
  }

  private credentials(): CredentialsFile {
    return { api_keys: {}, ...this.readJson<CredentialsFile>(this.credentialsPath) };
  }

  private readJson<T>(path: string): Partial<T> {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw err;
    }
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Partial<T>;
    } catch {
      // reported below
    }
    throw new UsageError(`the hogctl file ${path} is not valid JSON`, 'fix it by hand, or move it away and add the profiles again with `hogctl profile add`');
  }

  private async writer(): Promise<NonNullable<ProfileStore['writers']>> {
    if (!this.writers) {
      ensurePrivateDir(this.dir);
      const ConfClass = await loadConfWithoutSigintHooks();
      const common = { cwd: this.dir, projectName: 'hogctl', configFileMode: 0o600, accessPropertiesByDotNotation: false } as const;
      this.writers = {
        config: new ConfClass<ConfigFile>({ ...common, configName: 'config', defaults: { profiles: {} } }),
        credentials: new ConfClass<CredentialsFile>({ ...common, configName: 'credentials', defaults: { api_keys: {} } }),
      };
    }
    return this.writers;
  }

  /** conf creates files with the mode given, but an existing file keeps its own: make sure. */
  private tighten(): void {
    for (const path of [this.configPath, this.credentialsPath]) if (existsSync(path)) chmodSync(path, 0o600);
  }
}
