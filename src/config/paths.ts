// Where hogctl keeps its files. Kept apart from the config store so that commands which only
// need a path (completion, the bulk journal default) do not load it.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { mkdirSync, statSync } from 'node:fs';
import { fileError } from './secret-file.js';

export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.HOGCTL_CONFIG_DIR) return env.HOGCTL_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'hogctl');
}

/**
 * Creates a directory (and its missing parents) readable by its owner alone (0700). One that
 * exists is left exactly as it is: it may be shared (a 1777 directory, `/tmp` through
 * HOGCTL_CONFIG_DIR) or set up on purpose, and hogctl never changes the mode of a directory it
 * did not create. `openDirWarning` says when such a directory is unsafe.
 */
export function ensurePrivateDir(dir: string): string {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw fileError(err, dir, 'create');
  }
  return dir;
}

/** A warning when other users can write to `dir` (and so replace the files in it), else undefined. */
export function openDirWarning(dir: string): string | undefined {
  let mode: number;
  try {
    mode = statSync(dir).mode;
  } catch {
    return undefined;
  }
  if ((mode & 0o022) === 0) return undefined;
  const who = (mode & 0o002) !== 0 ? 'all users' : 'its group';
  return (
    `the hogctl directory ${dir} is writable by ${who} (mode ${(mode & 0o7777).toString(8)}): they could replace your profiles, and so where your API key is sent; ` +
    `use a private directory (set HOGCTL_CONFIG_DIR), or \`chmod 700 ${dir}\` if it is yours alone`
  );
}
