// The shape of the CLI's import graph, read from each file's syntax tree:
// - its static imports have no cycle;
// - the import rule (top of src/program.ts): verbs import statically; only the verb loaders, the
//   Context and the wrappers of heavy libraries use import().
// That the sandbox imports nothing from the CLI is the sandbox's own test
// (packages/sandbox/test/boundary.test.ts).
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleImports, sourceFiles } from '../../../packages/sandbox/test/module-imports.js';

const root = resolve(import.meta.dirname, '../../..');
const cliSrc = join(root, 'src');

const importsOf = (file: string) => moduleImports(readFileSync(file, 'utf8'), file).imports;

/** Cycles among the static value imports of `files` (relative imports only). */
function staticCycles(files: string[]): string[][] {
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const targets = importsOf(file)
      .filter((i) => i.kind === 'static' && !i.typeOnly && i.spec.startsWith('.'))
      .map((i) => resolve(dirname(file), i.spec).replace(/\.js$/, '.ts'));
    edges.set(file, targets);
  }
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const walk = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push(stack.slice(stack.indexOf(next)).map((f) => relative(root, f)));
      else if (!state.has(next)) walk(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) walk(file);
  return cycles;
}

/** Files allowed to use import(): the verb loaders, the Context, and wrappers of heavy modules. */
const LAZY_ALLOWED = [/^src\/program\.ts$/, /^src\/cli\/lazy-verb\.ts$/, /^src\/commands\/.*\/index\.ts$/, /^src\/context\.ts$/];
/** Heavy modules any file may load lazily: big libraries and the sandbox. */
const HEAVY = new Set(['chalk', 'csv-parse', 'csv-parse/sync', 'csv-stringify/sync', 'uqr', '@hogctl/sandbox']);

describe('the import graph', () => {
  it('the CLI has no cycle of static imports', () => {
    expect(staticCycles(sourceFiles(cliSrc))).toEqual([]);
  });

  it('only the verb loaders, the Context and wrappers of heavy modules import lazily', () => {
    const lazy = sourceFiles(cliSrc).flatMap((file) => {
      const path = relative(root, file);
      if (LAZY_ALLOWED.some((re) => re.test(path))) return [];
      return importsOf(file)
        .filter((i) => (i.kind === 'dynamic' || i.kind === 'require') && !HEAVY.has(i.spec))
        .map((i) => `${path}: import('${i.spec}')`);
    });
    // The one intended cycle: the demo runs hogctl commands in its own process through main().
    expect(lazy).toEqual(["src/commands/root/demo.ts: import('../../main.js')"]);
  });
});
