// The sandbox is the oracle the CLI is tested against, so it must not share code with the CLI:
// a shared mistake would pass every test. It imports only its own files and Node's built-ins,
// and has no runtime dependencies.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = join(packageDir, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module specifier the file imports or re-exports, statically or with import(), from its syntax tree. */
function specifiers(source: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile('file.ts', source, ts.ScriptTarget.Latest));
  return found;
}

/** What is wrong with importing `spec` from `file`, or undefined when it is allowed. */
function boundaryViolation(file: string, spec: string): string | undefined {
  if (spec.startsWith('.')) {
    const target = resolve(dirname(file), spec);
    return relative(srcDir, target).startsWith('..') ? `${relative(packageDir, file)} imports ${spec}, outside the sandbox` : undefined;
  }
  const bare = spec.replace(/^node:/, '');
  return builtinModules.includes(bare) ? undefined : `${relative(packageDir, file)} imports the package ${spec}`;
}

describe('the sandbox package boundary', () => {
  it('the check catches an import of the CLI and of a package', () => {
    const file = join(srcDir, 'routes', 'persons.ts');
    expect(specifiers(`import { x } from '../../../../src/errors.js';\nconst y = await import("undici");`)).toEqual(['../../../../src/errors.js', 'undici']);
    expect(boundaryViolation(file, '../../../../src/errors.js')).toMatch(/outside the sandbox/);
    expect(boundaryViolation(file, 'undici')).toMatch(/imports the package undici/);
    expect(boundaryViolation(file, '../errors.js')).toBeUndefined();
    expect(boundaryViolation(file, 'node:http')).toBeUndefined();
  });

  it('imports nothing from the CLI and no package, only its own files and Node built-ins', () => {
    const files = sourceFiles(srcDir);
    expect(files.length).toBeGreaterThan(30);
    const violations = files.flatMap((file) => specifiers(readFileSync(file, 'utf8')).map((spec) => boundaryViolation(file, spec)).filter(Boolean));
    expect(violations).toEqual([]);
  });

  it('declares no runtime dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    expect(manifest.private).toBe(true);
    expect(manifest.dependencies ?? {}).toEqual({});
  });
});
