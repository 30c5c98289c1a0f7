// What a command reads from outside its arguments is written down where a reader looks for it:
// every environment variable the code reads is in ARCHITECTURE.md §1 (hogctl's own, HOGCTL_*, in
// `hogctl help environment` too), every global flag of src/program.ts is in ARCHITECTURE.md §1,
// and every verb file is named as ARCHITECTURE.md §7 says.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOPICS } from '../../../src/docs/topics.js';

const root = resolve(import.meta.dirname, '../../..');
const architecture = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? sources(path) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The variables the CLI reads: `env.NAME` (upper case, or npm's `npm_*`; a lower-case `env.x`
 * is a field of some other env), and the names of constants read as `env[NAME]`. */
function variablesRead(source: string): string[] {
  const names = [...source.matchAll(/\benv\.([A-Z][A-Z0-9_]*|npm_[a-z_]+)\b/g)].map((m) => m[1]);
  for (const [, constant] of source.matchAll(/\benv\[([A-Z_][A-Z0-9_]*)\]/g)) {
    const value = new RegExp(`const ${constant} = '([A-Za-z_][A-Za-z0-9_]*)'`).exec(source);
    if (value) names.push(value[1]);
  }
  return names;
}

const read = [...new Set(sources(join(root, 'src')).flatMap((file) => variablesRead(readFileSync(file, 'utf8'))))].sort();

/** The global flags: the options declared on the root command in src/program.ts. */
function globalFlags(): string[] {
  const program = readFileSync(join(root, 'src/program.ts'), 'utf8');
  return [...program.matchAll(/(?:\.option|new Option)\('((?:-\w, )?--[\w-]+)/g)].map((m) => m[1].replace(/^-\w, /, ''));
}

describe('documented settings', () => {
  it('every environment variable the code reads is in ARCHITECTURE.md', () => {
    expect(read).toContain('HOGCTL_PROFILE');
    expect(read).toContain('HOGCTL_EVIDENCE_KEY');
    expect(read.filter((name) => !architecture.includes(`\`${name}\``))).toEqual([]);
  });

  it('every HOGCTL_ variable is in `hogctl help environment`', () => {
    const rows = (TOPICS.environment as { rows: string[][] }).rows.map((row) => row[0]).join(' ');
    expect(read.filter((name) => name.startsWith('HOGCTL_') && !rows.includes(`\`${name}\``))).toEqual([]);
  });

  it('the check reads both ways of naming a variable', () => {
    expect(variablesRead("const KEY_ENV = 'HOGCTL_X';\nconst a = env.HOGCTL_Y ?? env[KEY_ENV] ?? env.client;")).toEqual([
      'HOGCTL_Y',
      'HOGCTL_X',
    ]);
  });

  it('every global flag is in ARCHITECTURE.md §1', () => {
    const flags = globalFlags();
    expect(flags).toContain('--wide');
    const section = architecture.slice(architecture.indexOf('## 1.'), architecture.indexOf('## 2.'));
    expect(flags.filter((flag) => !new RegExp(`\`(-\\w/)?${flag}\``).test(section))).toEqual([]);
  });

  it('every verb file exports <group><Verb>Command and <group><Verb>Run, as ARCHITECTURE.md §7 says', () => {
    const commands = join(root, 'src/commands');
    const camel = (words: string) => words.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
    const prefixOf = (folder: string) => (folder === 'root' ? '' : folder === '2fa' ? 'twoFactor' : camel(folder));
    const misnamed = sources(commands)
      .filter((file) => !file.includes('/shared/') && basename(file) !== 'index.ts')
      .flatMap((file) => {
        const source = readFileSync(file, 'utf8');
        const folder = basename(join(file, '..'));
        const stem = camel(basename(file, '.ts'));
        const name = prefixOf(folder) ? `${prefixOf(folder)}${stem[0].toUpperCase()}${stem.slice(1)}` : stem;
        // help and completion are commander's own work on the whole tree: no Context, no run function.
        const wanted = ['root/help.ts', 'root/completion.ts'].includes(relative(commands, file)) ? ['Command'] : ['Command', 'Run'];
        return wanted
          .filter((suffix) => !new RegExp(`export (async )?function ${name}${suffix}\\(`).test(source))
          .map((suffix) => `${relative(root, file)}: ${name}${suffix}`);
      });
    expect(misnamed).toEqual([]);
  });
});
