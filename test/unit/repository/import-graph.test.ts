// The shape of the CLI's import graph, read from each file's syntax tree:
// - its static imports have no cycle, `import type` included (a cycle of types is still two
//   modules that cannot be read one without the other);
// - the import rule (top of src/program.ts): verbs import statically; only the verb loaders, the
//   Context and the wrappers of heavy libraries use import(), and heavy libraries load only
//   through their wrappers (and a verb's mode that needs far more than the verb: persons get
//   --email);
// - `persons get` by id loads none of the bulk engine.
// That the sandbox imports nothing from the CLI is the sandbox's own test
// (packages/sandbox/test/boundary.test.ts).
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleImports, sourceFiles } from '../../../packages/sandbox/test/module-imports.js';

const root = resolve(import.meta.dirname, '../../..');
const cliSrc = join(root, 'src');

const importsOf = (file: string) => moduleImports(readFileSync(file, 'utf8'), file).imports;

/** Cycles among the static imports of `files` (relative imports only); `types`: type-only imports count too. */
function staticCycles(files: string[], types: boolean): string[][] {
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const targets = importsOf(file)
      .filter((i) => i.kind === 'static' && (types || !i.typeOnly) && i.spec.startsWith('.'))
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

/** The verb loaders and the Context: they may load the CLI's own modules lazily, and nothing else. */
const LOADERS = [/^src\/program\.ts$/, /^src\/cli\/lazy-verb\.ts$/, /^src\/commands\/.*\/index\.ts$/, /^src\/context\.ts$/];
/**
 * Every other lazy load in the CLI: the wrappers of heavy modules, each with what it wraps, and
 * the one intended cycle (the demo runs hogctl commands in its own process through main()). A
 * new wrapper is added here, on purpose.
 */
const LAZY_ELSEWHERE: Record<string, string[]> = {
  'src/io/output.ts': ['chalk', 'csv-stringify/sync'],
  'src/io/filter.ts': ['jq-wasm', 'handlebars'],
  'src/io/csv-records.ts': ['csv-parse/sync'],
  'src/bulk/input/read-ids.ts': ['csv-parse'],
  'src/commands/users/2fa/shared/qr.ts': ['uqr'],
  'src/commands/root/shared/start-sandbox.ts': ['@hogctl/sandbox'],
  'src/mcp/sdk.ts': ['@modelcontextprotocol/sdk/server/mcp.js', '@modelcontextprotocol/sdk/server/stdio.js', 'zod'],
  'src/commands/root/demo.ts': ['../../main.js'],
  // A verb's mode that needs far more than the verb: --email looks the address up as an erasure
  // does, in persons get and in every verb that takes one person (shared/person-target.ts).
  'src/commands/persons/get.ts': ['./shared/get-by-email.js'],
  'src/commands/persons/shared/person-target.ts': ['./get-by-email.js'],
};
const HEAVY = new Set(Object.values(LAZY_ELSEWHERE).flatMap((specs) => specs.filter((spec) => !spec.startsWith('.'))));

interface LazyRule {
  /** Lazy loads outside the loaders, by file: must equal LAZY_ELSEWHERE. */
  elsewhere: Record<string, string[]>;
  /** Loaders loading a package lazily, and heavy modules imported statically. */
  misplaced: string[];
}

/** Where `files` (paths from the root, with their sources) load modules lazily or heavy ones statically. */
function lazyRule(files: { path: string; source: string }[]): LazyRule {
  const elsewhere: Record<string, string[]> = {};
  const misplaced: string[] = [];
  for (const { path, source } of files) {
    const imports = moduleImports(source, path).imports;
    const lazy = imports.filter((i) => i.kind === 'dynamic' || i.kind === 'require');
    if (LOADERS.some((re) => re.test(path))) {
      misplaced.push(
        ...lazy
          .filter((i) => !i.spec.startsWith('.'))
          .map((i) => `${path}:${i.line} loads ${i.spec}: a loader loads only the CLI's modules`),
      );
    } else if (lazy.length > 0) {
      elsewhere[path] = [...new Set(lazy.map((i) => i.spec))];
    }
    for (const i of imports) {
      if (i.kind === 'static' && !i.typeOnly && HEAVY.has(i.spec)) {
        misplaced.push(`${path}:${i.line} imports ${i.spec} statically: it loads through its wrapper`);
      }
    }
  }
  return { elsewhere, misplaced };
}

/** What `file` loads at start-up: its static value imports, followed (relative ones and built-ins). */
function staticClosure(file: string): Set<string> {
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    if (!path.endsWith('.ts')) return;
    for (const i of importsOf(path)) {
      if (i.kind !== 'static' || i.typeOnly) continue;
      if (i.spec.startsWith('.')) visit(resolve(dirname(path), i.spec).replace(/\.js$/, '.ts'));
      else if (i.spec.startsWith('node:')) seen.add(i.spec);
    }
  };
  visit(file);
  return new Set([...seen].map((p) => (p.startsWith('node:') ? p : relative(root, p))));
}

describe('the import graph', () => {
  it('persons get loads only what a person by id needs: not the bulk engine, HogQL or node:crypto', () => {
    const loaded = [...staticClosure(join(cliSrc, 'commands/persons/get.ts'))];
    expect(loaded.filter((p) => /^src\/(bulk|hogql)\//.test(p) || p === 'node:crypto')).toEqual([]);
  });

  it('persons get loads nothing of the MCP server', () => {
    const loaded = [...staticClosure(join(cliSrc, 'commands/persons/get.ts'))];
    expect(loaded.filter((p) => p.startsWith('src/mcp/'))).toEqual([]);
  });

  it("the bulk engine and its input readers import no kind's code, type imports included", () => {
    const kinds = /^src\/(bulk\/kinds|merge)\//;
    const crossings = sourceFiles(join(cliSrc, 'bulk'))
      .filter((file) => /^src\/bulk\/(engine|input)\//.test(relative(root, file)))
      .flatMap((file) =>
        importsOf(file)
          .filter((i) => i.spec.startsWith('.'))
          .map((i) => relative(root, resolve(dirname(file), i.spec)))
          .filter((target) => kinds.test(target))
          .map((target) => `${relative(root, file)} → ${target}`),
      );
    expect(crossings).toEqual([]);
  });

  it('the CLI has no cycle of static imports', () => {
    expect(staticCycles(sourceFiles(cliSrc), false)).toEqual([]);
  });

  it('the CLI has no cycle of imports, type imports included', () => {
    expect(staticCycles(sourceFiles(cliSrc), true)).toEqual([]);
  });

  it('only the verb loaders, the Context and the wrappers of heavy modules import lazily', () => {
    const files = sourceFiles(cliSrc).map((file) => ({ path: relative(root, file), source: readFileSync(file, 'utf8') }));
    const { elsewhere, misplaced } = lazyRule(files);
    expect(elsewhere).toEqual(LAZY_ELSEWHERE);
    expect(misplaced).toEqual([]);
  });

  it('the rule refuses a lazy import in a verb, a heavy module imported statically, and a loader loading a package', () => {
    const { elsewhere, misplaced } = lazyRule([
      { path: 'src/commands/persons/list.ts', source: "const { parse } = await import('csv-parse/sync');" },
      { path: 'src/commands/persons/get.ts', source: "import chalk from 'chalk';\nimport type { Sandbox } from '@hogctl/sandbox';" },
      { path: 'src/commands/persons/index.ts', source: "const load = () => import('./get.js');\nconst c = () => import('chalk');" },
    ]);
    expect(elsewhere).toEqual({ 'src/commands/persons/list.ts': ['csv-parse/sync'] });
    expect(misplaced).toEqual([
      'src/commands/persons/get.ts:1 imports chalk statically: it loads through its wrapper',
      "src/commands/persons/index.ts:2 loads chalk: a loader loads only the CLI's modules",
    ]);
  });
});
