// The shape of the import graph, read from each file's syntax tree:
// - the sandbox (packages/sandbox) is the oracle the CLI is tested against, so it shares no code
//   with the CLI: it imports only its own files and Node's built-ins, and has no dependencies;
// - the CLI's static imports have no cycle;
// - the import rule (top of src/program.ts): verbs import statically; only the verb loaders, the
//   Context and the wrappers of heavy libraries use import().
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const sandboxDir = join(root, 'packages/sandbox');
const sandboxSrc = join(sandboxDir, 'src');
const cliSrc = join(root, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

interface Import {
  spec: string;
  dynamic: boolean;
  typeOnly: boolean;
}

/** Every module the source imports or re-exports, statically or with import(). */
function importsOf(source: string): Import[] {
  const found: Import[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const typeOnly = ts.isImportDeclaration(node) ? !!node.importClause?.isTypeOnly : node.isTypeOnly;
      found.push({ spec: node.moduleSpecifier.text, dynamic: false, typeOnly });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push({ spec: node.arguments[0].text, dynamic: true, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile('file.ts', source, ts.ScriptTarget.Latest));
  return found;
}

/** What is wrong with the sandbox file `file` importing `spec`, or undefined when it is allowed. */
function sandboxViolation(file: string, spec: string): string | undefined {
  if (spec.startsWith('.')) {
    return relative(sandboxSrc, resolve(dirname(file), spec)).startsWith('..')
      ? `${relative(root, file)} imports ${spec}, outside the sandbox`
      : undefined;
  }
  return builtinModules.includes(spec.replace(/^node:/, '')) ? undefined : `${relative(root, file)} imports the package ${spec}`;
}

/** Cycles among the static value imports of `files` (relative imports only). */
function staticCycles(files: string[]): string[][] {
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const targets = importsOf(readFileSync(file, 'utf8'))
      .filter((i) => !i.dynamic && !i.typeOnly && i.spec.startsWith('.'))
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
  it('the sandbox imports nothing from the CLI and no package, only its own files and Node built-ins', () => {
    const files = sourceFiles(sandboxSrc);
    expect(files.length).toBeGreaterThan(30);
    const violations = files.flatMap((file) =>
      importsOf(readFileSync(file, 'utf8'))
        .map((i) => sandboxViolation(file, i.spec))
        .filter(Boolean),
    );
    expect(violations).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(sandboxDir, 'package.json'), 'utf8'));
    expect(manifest.private).toBe(true);
    expect(manifest.dependencies ?? {}).toEqual({});
  });

  it('the checks catch what they are for', () => {
    const file = join(sandboxSrc, 'routes', 'persons.ts');
    expect(importsOf(`import { x } from '../../../../src/errors.js';\nconst y = await import("undici");`).map((i) => i.spec)).toEqual([
      '../../../../src/errors.js',
      'undici',
    ]);
    expect(sandboxViolation(file, '../../../../src/errors.js')).toMatch(/outside the sandbox/);
    expect(sandboxViolation(file, 'undici')).toMatch(/imports the package undici/);
    expect(sandboxViolation(file, '../errors.js')).toBeUndefined();
    expect(sandboxViolation(file, 'node:http')).toBeUndefined();
  });

  it('the CLI has no cycle of static imports', () => {
    expect(staticCycles(sourceFiles(cliSrc))).toEqual([]);
  });

  it('only the verb loaders, the Context and wrappers of heavy modules import lazily', () => {
    const lazy = sourceFiles(cliSrc).flatMap((file) => {
      const path = relative(root, file);
      if (LAZY_ALLOWED.some((re) => re.test(path))) return [];
      return importsOf(readFileSync(file, 'utf8'))
        .filter((i) => i.dynamic && !HEAVY.has(i.spec))
        .map((i) => `${path}: import('${i.spec}')`);
    });
    // The one intended cycle: the demo runs hogctl commands in its own process through main().
    expect(lazy).toEqual(["src/commands/root/demo.ts: import('../../main.js')"]);
  });
});
