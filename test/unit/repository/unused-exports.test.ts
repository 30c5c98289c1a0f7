// Dead code that tsc's noUnusedLocals cannot see, because an `export` keeps it alive: an export
// that no other file takes and its own file does not use either. This reads every module's syntax
// tree, collects which names each one takes from the others (import and export … from, import()
// with the names it destructures or reads, namespace members, and import('…').T in types), and
// fails on such an export in the CLI, the sandbox or a test helper. An export used in its own file
// is left alone: a verb exports its options type and run function by convention, and an exported
// function's parameter types are exported with it. The entry points are exempt: src/main.ts (the
// bin loads it from dist/), the sandbox's public entry, the bin, the scripts and the configs. A
// module taken whole (a namespace passed on, an import() whose value is kept) counts as every
// name used.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import type { DeclarationStatement, EntityName, Expression, Identifier, Node, ObjectBindingPattern, QualifiedName } from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../../../packages/sandbox/test/module-imports.js';

const root = resolve(import.meta.dirname, '../../..');
// Loaded with require, as in module-imports.ts: an import of the compiler costs a second of CPU more.
const ts: typeof import('typescript') = createRequire(import.meta.url)('typescript');

/** Files whose exports others must use: the CLI, the sandbox, and the helpers of the tests. */
const CHECKED = /^(src|packages\/sandbox\/src|test|packages\/sandbox\/test)\//;
const EXEMPT = [/^src\/main\.ts$/, /^packages\/sandbox\/src\/index\.ts$/, /\.test\.ts$/, /\.d\.ts$/];
/** Workspace packages by name, to the file their name resolves to. */
const PACKAGES: Record<string, string> = { '@hogctl/sandbox': 'packages/sandbox/src/index.ts' };
const EVERYTHING = '*';

/** The file among `known` (paths from the root) that `spec`, imported from `from`, names. */
function resolveSpec(known: Set<string>, from: string, spec: string): string | undefined {
  if (PACKAGES[spec]) return PACKAGES[spec];
  if (!spec.startsWith('.')) return undefined;
  const base = join(dirname(from), spec);
  const stem = base.replace(/\.[cm]?js$/, '');
  return [base, `${stem}.ts`, `${stem}.mts`, `${stem}.cts`, `${stem}.tsx`, join(base, 'index.ts')].find((c) => known.has(c));
}

interface ModuleFacts {
  /** The exported name, the local one it exports, and where. */
  exports: { name: string; local: string; line: number }[];
  /** How often each identifier appears in the file other than where it is declared or exported. */
  localUses: Map<string, number>;
  /** What this file takes from others: file → names, or EVERYTHING. */
  uses: Map<string, Set<string>>;
}

const hasExport = (node: Node) => ts.canHaveModifiers(node) && !!ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const hasDefault = (node: Node) =>
  ts.canHaveModifiers(node) && !!ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);

/** The names a binding pattern takes from the object it destructures, or EVERYTHING for a rest element. */
function boundNames(pattern: ObjectBindingPattern): string[] {
  return pattern.elements.map((e) => {
    if (e.dotDotDotToken) return EVERYTHING;
    const key = e.propertyName ?? e.name;
    return ts.isIdentifier(key) || ts.isStringLiteral(key) ? key.text : EVERYTHING;
  });
}

/** What the value of a module-loading expression (an import() or require() call) is used for. */
function namesTaken(call: Expression): string[] {
  let node: Node = call;
  let parent = node.parent;
  // Through `await` and parentheses to what uses the module object.
  while (ts.isAwaitExpression(parent) || ts.isParenthesizedExpression(parent)) {
    node = parent;
    parent = node.parent;
  }
  if (ts.isPropertyAccessExpression(parent) && parent.expression === node) return [parent.name.text];
  if (ts.isVariableDeclaration(parent) && ts.isObjectBindingPattern(parent.name)) return boundNames(parent.name);
  if (ts.isExpressionStatement(parent)) return [];
  // await Promise.all([a, import('x')]): the element bound at the same place.
  if (ts.isArrayLiteralExpression(parent) && ts.isCallExpression(parent.parent)) {
    const index = parent.elements.indexOf(node as Expression);
    let outer: Node = parent.parent;
    while (ts.isAwaitExpression(outer.parent) || ts.isParenthesizedExpression(outer.parent)) outer = outer.parent;
    const binding = outer.parent;
    if (ts.isVariableDeclaration(binding) && ts.isArrayBindingPattern(binding.name)) {
      const element = binding.name.elements[index];
      if (element === undefined || ts.isOmittedExpression(element)) return [];
      if (ts.isObjectBindingPattern(element.name)) return boundNames(element.name);
    }
  }
  return [EVERYTHING];
}

/** A property's or member's name (`a.name`, `{ name: 1 }`, `name(): void`), which refers to no variable. */
function isMemberName(node: Identifier): boolean {
  const parent = node.parent;
  return (
    (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
    (ts.isQualifiedName(parent) && parent.right === node) ||
    ((ts.isPropertyAssignment(parent) ||
      ts.isPropertySignature(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isMethodSignature(parent) ||
      ts.isGetAccessorDeclaration(parent) ||
      ts.isSetAccessorDeclaration(parent) ||
      ts.isEnumMember(parent)) &&
      parent.name === node) ||
    (ts.isBindingElement(parent) && parent.propertyName === node)
  );
}

function factsOf(known: Set<string>, file: string, source: string): ModuleFacts {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const exports: ModuleFacts['exports'] = [];
  const uses = new Map<string, Set<string>>();
  const localUses = new Map<string, number>();
  /** Identifiers that declare or export a name rather than use it. */
  const declaring = new Set<Node>();
  const lineOf = (node: Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  const use = (spec: string, names: string[]) => {
    const target = resolveSpec(known, file, spec);
    if (target === undefined || target === file) return;
    const set = uses.get(target) ?? new Set<string>();
    for (const name of names) set.add(name);
    uses.set(target, set);
  };
  /** Namespace imports (`import * as api`), by local name, to their module. */
  const namespaces = new Map<string, string>();

  const visit = (node: Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const spec = node.moduleSpecifier.text;
      const clause = node.importClause;
      const names: string[] = [];
      if (clause?.name) names.push('default');
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) names.push((e.propertyName ?? e.name).text);
      if (bindings && ts.isNamespaceImport(bindings)) namespaces.set(bindings.name.text, spec);
      use(spec, names);
    } else if (ts.isExportDeclaration(node)) {
      const spec = node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) ? node.moduleSpecifier.text : undefined;
      const clause = node.exportClause;
      if (clause && ts.isNamedExports(clause)) {
        for (const e of clause.elements) {
          const local = (e.propertyName ?? e.name).text;
          // A re-export has no local use of its own: it is dead unless another file takes it.
          exports.push({ name: e.name.text, local: spec ? '' : local, line: lineOf(e) });
          declaring.add(e.name);
          if (e.propertyName) declaring.add(e.propertyName);
          if (spec) use(spec, [local]);
        }
      } else if (spec) {
        // export * from: whatever is taken from this file may come from there.
        use(spec, [EVERYTHING]);
      }
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const expr = node.moduleReference.expression;
      if (ts.isStringLiteral(expr)) use(expr.text, [EVERYTHING]);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const qualifier = node.qualifier;
      let first: EntityName | undefined = qualifier;
      while (first && ts.isQualifiedName(first)) first = first.left;
      use(node.argument.literal.text, [first && ts.isIdentifier(first) ? first.text : EVERYTHING]);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      use(node.arguments[0].text, namesTaken(node));
    } else if (hasExport(node) && !ts.isModuleDeclaration(node)) {
      if (ts.isVariableStatement(node)) {
        for (const d of node.declarationList.declarations) {
          const names = ts.isIdentifier(d.name) ? [d.name] : d.name.elements.map((e) => (ts.isBindingElement(e) ? e.name : undefined));
          for (const n of names) {
            if (n && ts.isIdentifier(n)) {
              exports.push({ name: n.text, local: n.text, line: lineOf(n) });
              declaring.add(n);
            }
          }
        }
      } else {
        const name = (node as DeclarationStatement).name;
        const local = name && ts.isIdentifier(name) ? name.text : '';
        if (name) declaring.add(name);
        if (hasDefault(node)) exports.push({ name: 'default', local, line: lineOf(node) });
        else if (local) exports.push({ name: local, local, line: lineOf(node) });
      }
    } else if (ts.isExportAssignment(node)) {
      exports.push({ name: 'default', local: '', line: lineOf(node) });
    } else if (ts.isIdentifier(node) && namespaces.has(node.text) && !ts.isNamespaceImport(node.parent)) {
      // api.listPersons takes listPersons; anything else (passing the namespace on) takes it all.
      const parent = node.parent;
      const member =
        (ts.isPropertyAccessExpression(parent) && parent.expression === node) || (ts.isQualifiedName(parent) && parent.left === node)
          ? (ts.isPropertyAccessExpression(parent) ? parent.name : (parent as QualifiedName).right).text
          : EVERYTHING;
      use(namespaces.get(node.text)!, [member]);
    }
    if (ts.isIdentifier(node) && !declaring.has(node) && !isMemberName(node)) {
      localUses.set(node.text, (localUses.get(node.text) ?? 0) + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { exports, uses, localUses };
}

/** `<file>:<line> <name>` for every export of a checked file that no other file takes. */
function unusedExports(files: Record<string, string>): string[] {
  const known = new Set(Object.keys(files));
  const facts = new Map(Object.entries(files).map(([file, source]) => [file, factsOf(known, file, source)]));
  const taken = new Map<string, Set<string>>();
  for (const { uses } of facts.values()) {
    for (const [target, names] of uses) {
      const set = taken.get(target) ?? new Set<string>();
      for (const name of names) set.add(name);
      taken.set(target, set);
    }
  }
  const unused: string[] = [];
  for (const [file, { exports, localUses }] of facts) {
    if (!CHECKED.test(file) || EXEMPT.some((re) => re.test(file))) continue;
    const names = taken.get(file) ?? new Set<string>();
    if (names.has(EVERYTHING)) continue;
    for (const e of exports) {
      if (!names.has(e.name) && !localUses.get(e.local)) unused.push(`${file}:${e.line} ${e.name}`);
    }
  }
  return unused.sort();
}

/** Dead exports known and left for a change of their own (none now); an entry that is no longer dead must go too. */
const PENDING: string[] = [];

describe('exports', () => {
  it('every export of the CLI, the sandbox and the test helpers is used, in another file or its own', () => {
    const everything = ['src', 'packages', 'test', 'scripts', 'bin'].flatMap((dir) => sourceFiles(join(root, dir)));
    everything.push(join(root, 'vitest.config.ts'));
    const files = Object.fromEntries(everything.map((path) => [relative(root, path), readFileSync(path, 'utf8')]));
    expect(Object.keys(files).filter((f) => f.startsWith('src/')).length).toBeGreaterThan(100);
    const unused = unusedExports(files);
    const pending = (u: string) => PENDING.includes(u.replace(/:\d+ /, ' '));
    expect(unused.filter((u) => !pending(u))).toEqual([]);
    expect(PENDING.filter((p) => !unused.some((u) => u.replace(/:\d+ /, ' ') === p))).toEqual([]);
  });

  it('the check sees every way of taking a name, and what is left over', () => {
    const unused = unusedExports({
      'src/a.ts': [
        'export const named = 1, viaAlias = 2, viaType = 3, viaDynamic = 4, viaDestructure = 5, viaAll = 6, viaNamespace = 7;',
        'export function dead() {}',
        'export interface AlsoDead {}',
        'export { named as renamedDead };',
        'export const usedHere = 8;',
        'const local = usedHere;',
      ].join('\n'),
      'src/b.ts': [
        "import { named, viaAlias as alias } from './a.js';",
        "type T = import('./a.js').viaType;",
        "const x = (await import('./a.js')).viaDynamic;",
        "const { viaDestructure } = await import('./a.js');",
        "const [, { viaAll }] = await Promise.all([load(), import('./a.js')]);",
        "import * as a from './a.js';",
        'a.viaNamespace();',
      ].join('\n'),
    });
    expect(unused).toEqual(['src/a.ts:2 dead', 'src/a.ts:3 AlsoDead', 'src/a.ts:4 renamedDead']);
    // A namespace passed on, or an import() kept whole, takes every name.
    expect(unusedExports({ 'src/a.ts': 'export const x = 1;', 'src/b.ts': "import * as a from './a.js';\nuse(a);" })).toEqual([]);
    expect(unusedExports({ 'src/a.ts': 'export const x = 1;', 'src/b.ts': "const m = await import('./a.js');" })).toEqual([]);
  });
});
