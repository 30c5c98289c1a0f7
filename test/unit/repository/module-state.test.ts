// What the modules of the CLI and the sandbox keep at their top level, outside any command's
// Context, is exactly what ARCHITECTURE.md §2 lists: the unit and in-process tests run many
// commands in one process (vitest.config.ts shares modules between test files), which is right
// only while no module keeps what one command learnt for the next. A new module-level `let` or
// `var`, a `Map`, `WeakMap` or `WeakSet` made empty at the top level, or a top-level constant that
// a function writes into (`pool.used = 0`, `text[i] = c`), fails here until it is either moved
// into the Context or added to that list and to KNOWN below.
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../../../packages/sandbox/test/module-imports.js';

const root = resolve(import.meta.dirname, '../../..');

/** Each module that keeps something, with the names it keeps (ARCHITECTURE.md §2). */
const KNOWN: Record<string, string[]> = {
  'src/io/filter.ts': ['jqPromise'],
  'src/bulk/input/id-set.ts': ['TEXT'],
  'src/docs/help-layout.ts': ['relevantGlobals'],
  'src/mcp/progress.ts': ['senders'],
  'packages/sandbox/src/hogql/execute.ts': ['convertedLists', 'stringSets'],
  'packages/sandbox/src/hogql/posthog-grammar.ts': ['parser', 'loaded', 'memo'],
  'packages/sandbox/src/cohorts.ts': ['counts'],
  'packages/sandbox/src/routes/subject-data.ts': ['sessionCache'],
  'packages/sandbox/src/prng.ts': ['UUID_TEXT'],
  'packages/sandbox/src/capture.ts': ['randomPool'],
};

/** A `let` or `var`, or a map made empty (to be filled later: one made from entries is a table). */
const STATE =
  /^(?:export )?(?:(?:let|var) ([A-Za-z_$][\w$]*)|const ([A-Za-z_$][\w$]*)\b[^=]*= *new (?:Map|WeakMap|WeakSet)(?:<.*>)?\(\))/gm;

/** A top-level constant's name (a line that starts the declaration at column 0). */
const CONSTANT = /^(?:export )?const ([A-Za-z_$][\w$]*)\b/gm;

/** Whether an indented line (inside a function) writes into `name`'s properties or elements: a
 * table filled at the top level, as the module loads, is not state. */
function writtenInto(text: string, name: string): boolean {
  const target = `(?<![\\w$.])${name.replace(/\$/g, '\\$')}(?:\\.[\\w$]+|\\[(?:[^\\[\\]]|\\[[^\\]]*\\])+\\])+`;
  return new RegExp(`^[ \\t]+.*${target}\\s*(?:(?:[-+*/%&|^]|\\*\\*|<<|>>>?|\\?\\?|&&|\\|\\|)?=(?!=)|\\+\\+|--)`, 'm').test(text);
}

/** The names `text` keeps at its top level (a line that starts the declaration at column 0). */
function moduleState(text: string): string[] {
  const declared = [...text.matchAll(STATE)].map((m) => m[1] ?? m[2]);
  const written = [...text.matchAll(CONSTANT)].map((m) => m[1]).filter((name) => !declared.includes(name) && writtenInto(text, name));
  return [...declared, ...written];
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

  it('reads a let, a var, a top-level Map and a constant a function writes into, and not a table or an indented one', () => {
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
      'const HEX = new Int8Array(128);',
      'for (let i = 0; i < 10; i++) HEX[48 + i] = i;',
      'const pool = { bytes: Buffer.alloc(64), used: 0 };',
      'const TEXT = new Array<number>(36);',
      'const AT = [0, 2];',
      'function g(b: number) {',
      '  pool.used += 16;',
      '  TEXT[AT[b]] = 1;',
      '  const x = AT[0] === 1;',
      '}',
    ].join('\n');
    expect(moduleState(text)).toEqual(['a', 'b', 'c', 'd', 'pool', 'TEXT']);
  });
});
