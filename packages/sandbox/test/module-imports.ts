// Reads which modules a source file names, from its syntax tree rather than with a regular
// expression, so that no way of reaching another module slips past a boundary check. The
// sandbox's boundary test uses it, and so does the repository's import-graph test: it lives here
// because the sandbox's tests may import nothing from outside the package.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export type ImportKind =
  /** import … from, export … from, import x = require() */
  | 'static'
  /** import() */
  | 'dynamic'
  /** require(), require.resolve(), createRequire(…)(), and a function createRequire returned */
  | 'require'
  /** import('…').T in a type, and /// <reference path> */
  | 'type';

export interface ModuleImport {
  spec: string;
  kind: ImportKind;
  /** Erased from the JavaScript: `import type`, `export type`, or only `type` names. */
  typeOnly: boolean;
  line: number;
}

export interface ModuleImports {
  imports: ModuleImport[];
  /** import() or require() of something other than a string: what it loads cannot be checked. */
  unreadable: { text: string; line: number }[];
}

/** The source files under `dir`, in every extension TypeScript and Node load. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules') return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : /\.[cm]?[jt]sx?$/.test(entry.name) ? [path] : [];
  });
}

/** Every module `source` imports, re-exports, requires or names in a type. */
export function moduleImports(source: string, fileName: string): ModuleImports {
  // The file name picks the grammar: .js, .mjs and .cjs parse as JavaScript.
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const imports: ModuleImport[] = [];
  const unreadable: ModuleImports['unreadable'] = [];
  const lineOf = (node: ts.Node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  // Names bound to a require function: `const load = createRequire(import.meta.url)`.
  const requireNames = new Set(['require']);

  const isCreateRequire = (node: ts.Expression): boolean =>
    ts.isCallExpression(node) &&
    ((ts.isIdentifier(node.expression) && node.expression.text === 'createRequire') ||
      (ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'createRequire'));
  const isRequireFunction = (node: ts.Expression): boolean =>
    (ts.isIdentifier(node) && requireNames.has(node.text)) ||
    isCreateRequire(node) ||
    // require.resolve('x') and load.resolve('x') name a module too.
    (ts.isPropertyAccessExpression(node) && node.name.text === 'resolve' && isRequireFunction(node.expression));

  const collectRequireNames = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && isCreateRequire(node.initializer)) {
      requireNames.add(node.name.text);
    }
    ts.forEachChild(node, collectRequireNames);
  };
  collectRequireNames(file);

  const loadCall = (node: ts.CallExpression, kind: ImportKind): void => {
    const [arg] = node.arguments;
    if (arg && ts.isStringLiteralLike(arg)) imports.push({ spec: arg.text, kind, typeOnly: false, line: lineOf(node) });
    else unreadable.push({ text: node.getText(file), line: lineOf(node) });
  };

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly =
        !!clause?.isTypeOnly || (!!clause && !clause.name && !!named && named.length > 0 && named.every((element) => element.isTypeOnly));
      imports.push({ spec: node.moduleSpecifier.text, kind: 'static', typeOnly, line: lineOf(node) });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      imports.push({ spec: node.moduleSpecifier.text, kind: 'static', typeOnly: node.isTypeOnly, line: lineOf(node) });
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      imports.push({ spec: node.moduleReference.expression.text, kind: 'static', typeOnly: node.isTypeOnly, line: lineOf(node) });
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) {
        imports.push({ spec: arg.literal.text, kind: 'type', typeOnly: true, line: lineOf(node) });
      }
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      loadCall(node, 'dynamic');
    } else if (ts.isCallExpression(node) && isRequireFunction(node.expression)) {
      loadCall(node, 'require');
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  for (const reference of file.referencedFiles) {
    imports.push({
      spec: reference.fileName,
      kind: 'type',
      typeOnly: true,
      line: file.getLineAndCharacterOfPosition(reference.pos).line + 1,
    });
  }
  return { imports, unreadable };
}
