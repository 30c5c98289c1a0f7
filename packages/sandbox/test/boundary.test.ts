// The sandbox is the oracle hogctl is tested against, so it shares no code with the CLI: its
// sources import only their own files, Node's built-ins and its one runtime dependency (PostHog's
// own HogQL grammar, pinned: src/hogql/posthog-grammar.ts), its tests only the package's files,
// Node's built-ins and the package's declared devDependencies.
// Any way of naming a module counts: import and export, import(), import('…') in a type,
// require() and createRequire(), in TypeScript and JavaScript files alike.
import { readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { moduleImports, sourceFiles } from './module-imports.js';

const packageDir = resolve(import.meta.dirname, '..');
const srcDir = join(packageDir, 'src');
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));

/** A package name without its subpath: `undici/lib/x.js` → `undici`, `@scope/a/b` → `@scope/a`. */
function packageName(spec: string): string {
  return spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');
}

/** The file or folder a path-like specifier names, or undefined for a package or built-in. */
function target(file: string, spec: string): string | undefined {
  if (spec.startsWith('file:')) return fileURLToPath(spec);
  if (spec.startsWith('.') || spec.startsWith('/')) return resolve(dirname(file), spec);
  return undefined;
}

function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * What is wrong with `file` (a path in `packageDir`) naming `spec`, or undefined when it may:
 * a source file only its own sources and Node's built-ins; any other file of the package (its
 * tests) anything in the package, Node's built-ins and the declared devDependencies.
 */
/** The sandbox's one runtime dependency, pinned to an exact version. */
const RUNTIME_DEPENDENCIES = { '@posthog/hogql-parser': '1.3.87' };

function violation(
  file: string,
  spec: string,
  packageRoot = packageDir,
  devDependencies = manifest.devDependencies ?? {},
): string | undefined {
  const isSource = inside(join(packageRoot, 'src'), file);
  const where = relative(packageRoot, file);
  const path = target(file, spec);
  if (path !== undefined) {
    const allowed = isSource ? join(packageRoot, 'src') : packageRoot;
    return inside(allowed, path) ? undefined : `${where} imports ${spec}, outside ${relative(packageRoot, allowed) || 'the package'}`;
  }
  if (isBuiltin(spec)) return undefined;
  if (!isSource && Object.hasOwn(devDependencies, packageName(spec))) return undefined;
  if (isSource && Object.hasOwn(RUNTIME_DEPENDENCIES, packageName(spec))) return undefined;
  return isSource ? `${where} imports the package ${spec}` : `${where} imports ${spec}, which is not among the package's devDependencies`;
}

function violationsOf(file: string): string[] {
  const { imports, unreadable } = moduleImports(readFileSync(file, 'utf8'), file);
  return [
    ...imports.map((i) => violation(file, i.spec)).filter((v): v is string => v !== undefined),
    ...unreadable.map((u) => `${relative(packageDir, file)}:${u.line} loads a module it names at run time: ${u.text}`),
  ];
}

describe('the sandbox boundary', () => {
  it('its sources import only their own files and Node built-ins', () => {
    const files = sourceFiles(srcDir);
    expect(files.length).toBeGreaterThan(30);
    expect(files.flatMap(violationsOf)).toEqual([]);
  });

  it('its tests import only the package, Node built-ins and its devDependencies', () => {
    const files = sourceFiles(packageDir).filter((file) => !inside(srcDir, file));
    expect(files.length).toBeGreaterThan(10);
    expect(files.flatMap(violationsOf)).toEqual([]);
  });

  it("is private, and its one runtime dependency is PostHog's HogQL grammar, pinned", () => {
    expect(manifest.private).toBe(true);
    expect(manifest.dependencies).toEqual(RUNTIME_DEPENDENCIES);
    for (const field of ['peerDependencies', 'optionalDependencies', 'bundleDependencies']) {
      expect(manifest[field] ?? {}, field).toEqual({});
    }
  });
});

describe('the boundary check', () => {
  const source = join(srcDir, 'routes', 'persons.ts');
  const testFile = join(packageDir, 'test', 'persons.test.ts');
  const specs = (text: string, name = 'file.ts') => moduleImports(text, name).imports.map((i) => `${i.kind} ${i.spec}`);

  it('reads every way of naming a module', () => {
    expect(
      specs(`
        import { a } from './a.js';
        import type { B } from './b.js';
        export * from './c.js';
        import d = require('./d.js');
        type E = import('./e.js').E;
        const f = await import('./f.js');
        const g = require('./g.js');
        const h = createRequire(import.meta.url)('./h.js');
        const load = module.createRequire(import.meta.url);
        const i = load('./i.js');
        const j = require.resolve('./j.js');
        const k = store.require('not-a-module');
      `),
    ).toEqual([
      'static ./a.js',
      'static ./b.js',
      'static ./c.js',
      'static ./d.js',
      'type ./e.js',
      'dynamic ./f.js',
      'require ./g.js',
      'require ./h.js',
      'require ./i.js',
      'require ./j.js',
    ]);
    for (const name of ['file.mts', 'file.cts', 'file.js', 'file.mjs', 'file.cjs']) {
      expect(specs(`const x = require('../../src/context.js');`, name), name).toEqual(['require ../../src/context.js']);
    }
    expect(moduleImports('const x = await import(name);', 'file.ts').unreadable).toEqual([{ text: 'import(name)', line: 1 }]);
  });

  it('refuses the CLI and packages in sources, and the CLI in tests', () => {
    expect(violation(source, '../../../../src/errors.js')).toMatch(/outside src/);
    expect(violation(source, 'undici')).toMatch(/imports the package undici/);
    expect(violation(source, '../../test/helpers.js')).toMatch(/outside src/);
    expect(violation(testFile, '../../../src/context.js')).toMatch(/outside the package/);
    expect(violation(testFile, 'commander')).toMatch(/not among the package's devDependencies/);
    expect(violation(testFile, join(packageDir, '../../src/context.js'))).toMatch(/outside the package/);
  });

  it('lets sources import their own files and built-ins, and tests the package and its devDependencies', () => {
    expect(violation(source, '../errors.js')).toBeUndefined();
    expect(violation(source, 'node:http')).toBeUndefined();
    expect(violation(source, 'zlib')).toBeUndefined();
    expect(violation(testFile, '../src/server.js')).toBeUndefined();
    expect(violation(testFile, './helpers.js')).toBeUndefined();
    expect(violation(testFile, 'vitest')).toBeUndefined();
    expect(violation(testFile, 'undici/lib/api/api-request.js', packageDir, { undici: '^7' })).toBeUndefined();
  });
});
