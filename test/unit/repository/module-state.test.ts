// What the modules of the CLI and the sandbox keep at their top level, outside any command's
// Context, is exactly what ARCHITECTURE.md §2 lists: the unit and in-process tests run many
// commands in one process (vitest.config.ts shares modules between test files), which is right
// only while no module keeps what one command learnt for the next. A new module-level `let` or
// `var`, or a `Map`, `WeakMap` or `WeakSet` made empty at the top level, fails here until it is either
// moved into the Context or added to that list and to KNOWN below.
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../../../packages/sandbox/test/module-imports.js';

const root = resolve(import.meta.dirname, '../../..');

/** Each module that keeps something, with the names it keeps (ARCHITECTURE.md §2). */
const KNOWN: Record<string, string[]> = {
  'src/io/filter.ts': ['jqPromise'],
  'src/docs/help-layout.ts': ['relevantGlobals'],
  'src/mcp/progress.ts': ['senders'],
  'packages/sandbox/src/hogql/execute.ts': ['convertedLists', 'stringSets'],
  'packages/sandbox/src/hogql/posthog-grammar.ts': ['parser', 'loaded', 'memo'],
  'packages/sandbox/src/cohorts.ts': ['counts'],
  'packages/sandbox/src/routes/subject-data.ts': ['sessionCache'],
};

/** A `let` or `var`, or a map made empty (to be filled later: one made from entries is a table). */
const STATE =
  /^(?:export )?(?:(?:let|var) ([A-Za-z_$][\w$]*)|const ([A-Za-z_$][\w$]*)\b[^=]*= *new (?:Map|WeakMap|WeakSet)(?:<.*>)?\(\))/gm;

/** The names `text` keeps at its top level (a line that starts the declaration at column 0). */
function moduleState(text: string): string[] {
  return [...text.matchAll(STATE)].map((m) => m[1] ?? m[2]);
}

describe('module-level state', () => {
  it('is kept only where ARCHITECTURE.md §2 says', () => {
    const found: Record<string, string[]> = {};
    for (const dir of ['src', 'packages/sandbox/src']) {
      for (const file of sourceFiles(join(root, dir))) {
        const names = moduleState(readFileSync(file, 'utf8'));
        if (names.length > 0) found[relative(root, file)] = names;
      }
    }
    expect(found).toEqual(KNOWN);
    const architecture = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');
    for (const file of Object.keys(KNOWN)) expect(architecture, file).toContain(file.replace(/^packages\/sandbox\/src\//, ''));
  });

  it('reads a let, a var and a top-level Map, and not a constant or an indented one', () => {
    const text = [
      'let a: number | undefined;',
      'export var b = 1;',
      'const c = new WeakMap<object, string>();',
      'const d: Map<string, number> = new Map();',
      'const e = new Set([1]);',
      "const table = new Map([['a', 1]]);",
      'function f() {',
      '  let g = 1;',
      '  const h = new Map();',
      '}',
    ].join('\n');
    expect(moduleState(text)).toEqual(['a', 'b', 'c', 'd']);
  });
});
