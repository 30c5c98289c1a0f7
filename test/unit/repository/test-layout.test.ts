// Unit tests mirror what they test: test/unit/<path>/<module>.test.ts (or .property.test.ts, for
// fast-check properties) tests src/<path>/<module>.ts, so the test of a module is found by its
// path. repository/ holds whole-tree checks and scripts/ the build's, which mirror no module.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../../../packages/sandbox/test/module-imports.js';

const root = resolve(import.meta.dirname, '../../..');

/** The module a unit test file names, or undefined for the folders that mirror none. */
function moduleOf(test: string): string | undefined {
  const m = /^test\/unit\/(.+?)(?:\.property)?\.test\.ts$/.exec(test);
  if (!m || /^(repository|scripts)\//.test(m[1])) return undefined;
  return `src/${m[1]}.ts`;
}

describe('unit tests', () => {
  it('each names, by its path, the module it tests', () => {
    const tests = sourceFiles(join(root, 'test/unit'))
      .map((file) => relative(root, file))
      .filter((file) => file.endsWith('.test.ts'));
    expect(tests.length).toBeGreaterThan(40);
    const astray = tests.filter((test) => {
      const module = moduleOf(test);
      return module !== undefined && !existsSync(join(root, module));
    });
    expect(astray).toEqual([]);
  });

  it('maps a test to its module by path; a test left at an old path maps to nothing', () => {
    expect(moduleOf('test/unit/commands/auth/shared/login-errors.test.ts')).toBe('src/commands/auth/shared/login-errors.ts');
    expect(moduleOf('test/unit/api/person-filters.property.test.ts')).toBe('src/api/person-filters.ts');
    expect(moduleOf('test/unit/repository/citations.test.ts')).toBeUndefined();
    expect(existsSync(join(root, moduleOf('test/unit/commands/auth/login-errors.test.ts')!))).toBe(false);
  });
});

/** The command a test of test/cli/ names: test/cli/<group>/<verb>.test.ts, or <verb>.<aspect>.test.ts
 * for one side of a verb with many (bulk-delete.plan.test.ts), tests src/commands/<group>/<verb>.ts;
 * a group within a group (users 2fa) is a folder within a folder, as in src/commands/.
 * Undefined for a file that is not a test there. */
function commandOf(test: string): string | undefined {
  const m = /^test\/cli\/((?:[a-z0-9-]+\/)*[a-z0-9-]+)\/([a-z0-9-]+)(?:\.[a-z0-9-]+)?\.test\.ts$/.exec(test);
  return m ? `src/commands/${m[1]}/${m[2]}.ts` : undefined;
}

describe('in-process tests of the verbs', () => {
  it('each names, by its path, the verb it tests', () => {
    const tests = sourceFiles(join(root, 'test/cli'))
      .map((file) => relative(root, file))
      .filter((file) => file.endsWith('.test.ts'));
    const astray = tests.filter((test) => {
      const command = commandOf(test);
      return command === undefined || !existsSync(join(root, command));
    });
    expect(astray).toEqual([]);
  });

  it('maps a test to its verb by path', () => {
    expect(commandOf('test/cli/persons/bulk-delete.test.ts')).toBe('src/commands/persons/bulk-delete.ts');
    expect(commandOf('test/cli/persons/bulk-delete.plan.test.ts')).toBe('src/commands/persons/bulk-delete.ts');
    expect(commandOf('test/cli/users/2fa/validate.test.ts')).toBe('src/commands/users/2fa/validate.ts');
    expect(commandOf('test/cli/bulk-delete.test.ts')).toBeUndefined();
    expect(existsSync(join(root, commandOf('test/cli/persons/wipe.test.ts')!))).toBe(false);
  });
});

describe('test files that mock a module', () => {
  // The test files share their workers' modules (vitest.config.ts); a file that replaces a module
  // with vi.mock runs in a project of its own. A path left behind by a move (seen: the lock's
  // test ran shared, and hung when another file had loaded node:fs/promises first) fails here.
  it('are exactly the files vitest.config.ts lists in MOCKS_MODULES', () => {
    const config = readFileSync(join(root, 'vitest.config.ts'), 'utf8');
    const listed = [...(/const MOCKS_MODULES = \[([^\]]*)\]/.exec(config)?.[1] ?? '').matchAll(/'([^']+)'/g)].map((m) => m[1]);
    const mocking = ['test', 'packages']
      .flatMap((dir) => sourceFiles(join(root, dir)))
      .filter((file) => file.endsWith('.test.ts') && /\bvi\.mock\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(mocking.length).toBeGreaterThan(0);
    expect(listed.sort()).toEqual(mocking.sort());
  });
});
