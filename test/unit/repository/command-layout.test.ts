// Every file in a command folder is a verb, so a newcomer never mistakes a helper for one: a
// file in src/commands/<group>/ (or a nested group) is loaded by that folder's index.ts, or by
// src/program.ts for src/commands/root/, and a group's helpers live in its shared/ folder.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleImports } from '../../../packages/sandbox/test/module-imports.js';

const root = resolve(import.meta.dirname, '../../..');
const commands = join(root, 'src/commands');

/** The folders of verbs: every folder under src/commands/ but the shared/ ones. */
function verbFolders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'shared')
    .flatMap((entry) => [join(dir, entry.name), ...verbFolders(join(dir, entry.name))]);
}

/** The files `loader` imports, in any way, resolved to their .ts path. */
function loaded(loader: string): Set<string> {
  return new Set(
    moduleImports(readFileSync(loader, 'utf8'), loader)
      .imports.filter((i) => i.spec.startsWith('.'))
      .map((i) => resolve(dirname(loader), i.spec).replace(/\.js$/, '.ts')),
  );
}

/** The files of `folder` that its loader does not load: helpers out of place. */
function notVerbs(folder: string, loader: string): string[] {
  const verbs = loaded(loader);
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && entry.name !== 'index.ts')
    .map((entry) => join(folder, entry.name))
    .filter((file) => !verbs.has(file))
    .map((file) => relative(root, file));
}

describe('command folders', () => {
  it('hold only verbs: every file is loaded by the folder index.ts (src/program.ts for root/)', () => {
    const folders = verbFolders(commands);
    expect(folders.length).toBeGreaterThan(6);
    const misplaced = folders.flatMap((folder) =>
      notVerbs(folder, relative(commands, folder) === 'root' ? join(root, 'src/program.ts') : join(folder, 'index.ts')),
    );
    expect(misplaced).toEqual([]);
  });

  it('the check finds a helper among the verbs', () => {
    // profile/index.ts loads the verbs, not the helpers in profile/shared/.
    const profile = join(commands, 'profile');
    expect(notVerbs(join(profile, 'shared'), join(profile, 'index.ts'))).toEqual(['src/commands/profile/shared/verify.ts']);
  });
});
