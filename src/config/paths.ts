// Where hogctl keeps its files. Kept apart from the config store so that commands which only
// need a path (completion, the bulk journal default) do not load conf.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { mkdirSync, chmodSync } from 'node:fs';

export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.HOGCTL_CONFIG_DIR) return env.HOGCTL_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'hogctl');
}

/** Creates a directory readable by its owner alone (0700), tightening it if it already exists. */
export function ensurePrivateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}
