// Profiles: named sets of base URL and project id, plus the current choice. API keys live in a
// separate credentials file so that everything printed from a profile is free of secrets. Both
// files are mode 0600, in a directory hogctl creates 0700 (one that exists is never changed).
//
// Every command reads profiles, few change them: reads are a plain JSON.parse of the two files,
// and each write replaces a whole file atomically (secret-file.ts), never through a link.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, openDirWarning } from './paths.js';
import { sessionFilePath } from './session-jar.js';
import { fileError, readSecretFile, writeSecretFile } from './secret-file.js';
import { UsageError } from '../errors.js';
import { suggest } from '../cli/suggest.js';

export interface Profile {
  base_url: string;
  project_id?: string;
  /** Lets credentials travel over plain http:// to a host that is not loopback. */
  allow_insecure_http?: boolean;
  /** Where capture requests (`persons bulk-update`) go, when not the host derived from base_url. */
  capture_url?: string;
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
    throw new UsageError(`invalid profile name "${name}": use letters, digits, ".", "_" or "-" (up to 64 characters), e.g. "prod"`);
  }
  return name;
}

export class ProfileStore {
  readonly configPath: string;
  readonly credentialsPath: string;
  private warned = false;

  /** `warn` hears once when the directory is open to other users. Nothing is touched here. */
  constructor(
    readonly dir: string,
    private readonly warn: (message: string) => void = () => {},
  ) {
    this.configPath = join(dir, 'config.json');
    this.credentialsPath = join(dir, 'credentials.json');
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
    const near = suggest(name, names);
    throw new UsageError(
      near ? `no profile named "${name}": did you mean "${near}"?` : `no profile named "${name}"`,
      names.length
        ? `profiles: ${names.join(', ')}; add one with \`hogctl profile add ${name}\``
        : `add one with \`hogctl profile add ${name}\``,
    );
  }

  apiKey(name: string): string | undefined {
    const keys = this.credentials().api_keys;
    return Object.hasOwn(keys, name) ? keys[name] : undefined;
  }

  async save(name: string, profile: Profile, apiKey?: string): Promise<void> {
    const config = this.config();
    // The key first: a profile saved without its key would be used with no key (or another one).
    if (apiKey !== undefined) this.writeCredentials({ api_keys: { ...this.credentials().api_keys, [name]: apiKey } });
    this.writeConfig({ ...config, current: config.current ?? name, profiles: { ...config.profiles, [name]: profile } });
  }

  async use(name: string): Promise<void> {
    this.require(name);
    this.writeConfig({ ...this.config(), current: name });
  }

  async remove(name: string): Promise<void> {
    this.require(name);
    const { current, profiles } = this.config();
    const { [name]: _removed, ...rest } = profiles;
    this.writeConfig({ ...(current === name ? {} : { current }), profiles: rest });
    const { [name]: _key, ...keys } = this.credentials().api_keys;
    this.writeCredentials({ api_keys: keys });
    // Its signed-in session goes too: a live session is a credential, and a profile added later
    // under the same name would sign in with it. (A profile's jar is named by the profile alone.)
    const jar = sessionFilePath(this.dir, name, '');
    try {
      rmSync(jar, { force: true });
    } catch (err) {
      throw fileError(err, jar, 'write');
    }
  }

  private config(): ConfigFile {
    const path = this.configPath;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return { profiles: {} };
      throw fileError(err, path, 'read');
    }
    this.checkDir();
    const file = parseObject(path, text);
    const profiles = file.profiles ?? {};
    if (!isObject(profiles)) throw badShape(path, '"profiles" must be an object of profiles');
    for (const [name, p] of Object.entries(profiles)) {
      if (!isObject(p) || typeof p.base_url !== 'string') throw badShape(path, `profile "${name}" must have a "base_url" text`);
      if (p.project_id !== undefined && typeof p.project_id !== 'string')
        throw badShape(path, `the "project_id" of profile "${name}" must be text`);
    }
    if (file.current !== undefined && typeof file.current !== 'string') throw badShape(path, '"current" must be the name of a profile');
    return { ...(file.current !== undefined ? { current: file.current as string } : {}), profiles: profiles as Record<string, Profile> };
  }

  private credentials(): CredentialsFile {
    const path = this.credentialsPath;
    const text = readSecretFile(path, () => this.warn(`${path} can be read by other users: \`chmod 600 ${path}\``));
    if (text === undefined) return { api_keys: {} };
    this.checkDir();
    const keys = parseObject(path, text).api_keys ?? {};
    if (!isObject(keys) || Object.values(keys).some((k) => typeof k !== 'string'))
      throw badShape(path, '"api_keys" must map profile names to keys');
    return { api_keys: keys as Record<string, string> };
  }

  private writeConfig(file: ConfigFile): void {
    this.prepareDir();
    writeSecretFile(this.configPath, `${JSON.stringify(file, null, '\t')}\n`);
  }

  private writeCredentials(file: CredentialsFile): void {
    this.prepareDir();
    writeSecretFile(this.credentialsPath, `${JSON.stringify(file, null, '\t')}\n`);
  }

  private prepareDir(): void {
    ensurePrivateDir(this.dir);
    this.checkDir();
  }

  private checkDir(): void {
    if (this.warned) return;
    this.warned = true;
    const warning = openDirWarning(this.dir);
    if (warning) this.warn(warning);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const REPAIR = 'fix it by hand, or move it away and add the profiles again with `hogctl profile add`';

function badShape(path: string, problem: string): UsageError {
  return new UsageError(`the hogctl file ${path} is damaged: ${problem}`, REPAIR);
}

function parseObject(path: string, text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`the hogctl file ${path} is not valid JSON`, REPAIR);
  }
  if (!isObject(parsed)) throw new UsageError(`the hogctl file ${path} is not valid JSON`, REPAIR);
  return parsed;
}
