// Reads which modules a source file names, from its syntax tree rather than with a regular
// expression, so that no way of reaching another module slips past a boundary check. The
// sandbox's boundary test uses it, and so does the repository's import-graph test: it lives here
// because the sandbox's tests may import nothing from outside the package.
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { CallExpression, Expression, Node } from 'typescript';

// Loaded with require: an `import` of the compiler has Node scan its 9 MB for the names it exports
// first, which took 1.3 s of CPU against 0.5 s for require() (measured on Node 20), once a worker.
const ts: typeof import('typescript') = createRequire(import.meta.url)('typescript');

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
  readonly imports: readonly ModuleImport[];
  /** import() or require() of something other than a string: what it loads cannot be checked. */
  readonly unreadable: readonly { text: string; line: number }[];
}

/** The source files under `dir`, in every extension TypeScript and Node load. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules') return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : /\.[cm]?[jt]sx?$/.test(entry.name) ? [path] : [];
  });
}

/**
 * What moduleImports read, by file name, with the text it read it from. The repository's tests ask
 * for the same files again and again (the import-graph test reads each of the CLI's files four
 * times or more, the sandbox's layout test its sources twice), and the unit tests share their
 * worker's modules (vitest.config.ts): the boundary, layout, command-layout and import-graph tests
 * of one worker parse each file once. Parsing is most of what these tests cost.
 */
const readBefore = new Map<string, { source: string; found: ModuleImports }>();

/** Every module `source` imports, re-exports, requires or names in a type (frozen: it is shared). */
export function moduleImports(source: string, fileName: string): ModuleImports {
  const before = readBefore.get(fileName);
  if (before?.source === source) return before.found;
  const found = readImports(source, fileName);
  readBefore.set(fileName, { source, found });
  return found;
}

function readImports(source: string, fileName: string): ModuleImports {
  // The file name picks the grammar: .js, .mjs and .cjs parse as JavaScript.
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const imports: ModuleImport[] = [];
  const unreadable: { text: string; line: number }[] = [];
  const lineOf = (node: Node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  // Names bound to a require function: `const load = createRequire(import.meta.url)`.
  const requireNames = new Set(['require']);

  const isCreateRequire = (node: Expression): boolean =>
    ts.isCallExpression(node) &&
    ((ts.isIdentifier(node.expression) && node.expression.text === 'createRequire') ||
      (ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'createRequire'));
  const isRequireFunction = (node: Expression): boolean =>
    (ts.isIdentifier(node) && requireNames.has(node.text)) ||
    isCreateRequire(node) ||
    // require.resolve('x') and load.resolve('x') name a module too.
    (ts.isPropertyAccessExpression(node) && node.name.text === 'resolve' && isRequireFunction(node.expression));

  const collectRequireNames = (node: Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && isCreateRequire(node.initializer)) {
      requireNames.add(node.name.text);
    }
    ts.forEachChild(node, collectRequireNames);
  };
  collectRequireNames(file);

  const loadCall = (node: CallExpression, kind: ImportKind): void => {
    const [arg] = node.arguments;
    if (arg && ts.isStringLiteralLike(arg)) imports.push({ spec: arg.text, kind, typeOnly: false, line: lineOf(node) });
    else unreadable.push({ text: node.getText(file), line: lineOf(node) });
  };

  const visit = (node: Node): void => {
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
  return Object.freeze({ imports: Object.freeze(imports), unreadable: Object.freeze(unreadable) });
}
