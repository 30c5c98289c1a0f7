// Two shapes of src/ that a reading of the bulk engine asked to keep (issue 37): functions that fit
// a screen, and kinds that read their own receipts typed. A function over 80 lines fails here
// unless it is a command's definition, `<verb>Command()` in src/commands/, which is its help text
// (summary, description, options and examples) and nothing else; a type assertion to a receipt
// type (`as ExportReceipt['export']`) fails anywhere: a kind's receipt is `JobKind<R>`'s `R`.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Node, SourceFile } from 'typescript';
import { sourceFiles } from '../../../packages/sandbox/test/module-imports.js';

const ts: typeof import('typescript') = createRequire(import.meta.url)('typescript');
const root = resolve(import.meta.dirname, '../../..');
const MAX_LINES = 80;

const files = sourceFiles(join(root, 'src')).map((file) => {
  const path = relative(root, file);
  return { path, sf: ts.createSourceFile(path, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true) };
});

function eachNode(sf: SourceFile, visit: (node: Node) => void): void {
  const walk = (node: Node) => {
    visit(node);
    ts.forEachChild(node, walk);
  };
  walk(sf);
}

const lineOf = (sf: SourceFile, pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;

/** A command's definition: its help text, however many options it has. */
const isCommandDefinition = (path: string, name: string) => path.startsWith('src/commands/') && /Command$/.test(name);

describe('the shape of src/', () => {
  it(`has no function over ${MAX_LINES} lines but commands' definitions`, () => {
    const long: string[] = [];
    for (const { path, sf } of files)
      eachNode(sf, (node) => {
        if (!ts.isFunctionLike(node) || !('body' in node) || !node.body) return;
        const lines = lineOf(sf, node.end) - lineOf(sf, node.getStart(sf)) + 1;
        const name = node.name && ts.isIdentifier(node.name) ? node.name.text : '(anonymous)';
        if (lines > MAX_LINES && !isCommandDefinition(path, name))
          long.push(`${path}:${lineOf(sf, node.getStart(sf))} ${name} (${lines} lines)`);
      });
    expect(long).toEqual([]);
  });

  it('asserts no receipt type: a kind reads its receipt as JobKind<R> types it', () => {
    const casts: string[] = [];
    for (const { path, sf } of files)
      eachNode(sf, (node) => {
        if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && /Receipt\b/.test(node.type.getText(sf)))
          casts.push(`${path}:${lineOf(sf, node.getStart(sf))} ${node.getText(sf).slice(0, 80)}`);
      });
    expect(casts).toEqual([]);
  });
});
