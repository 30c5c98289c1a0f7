import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Unit tests that replace a module with vi.mock: a module already loaded by another file would
 * not see the mock, so they do not share modules with other files. */
const MOCKS_MODULES = [
  'test/unit/bulk/engine/lock.test.ts',
  'test/unit/bulk/engine/receipt-write.test.ts',
  'test/reliability/unrecorded.test.ts',
  'test/unit/io/write-all.test.ts',
];

/** Where the files that take longest are: each file of test/reliability/ is one long scenario. */
const LONGEST_FIRST = ['test/reliability/', 'test/e2e/', 'test/cli/', 'packages/', 'test/unit/'];

/**
 * The black-box suites start first and the short in-process tests fill the gaps at the end, so
 * that the workers finish together. Within each folder, vitest's own order holds: the longest
 * files of the last run first, or the largest files on a clean checkout (CI).
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const path = relative(file.project.config.root, file.moduleId);
      const at = LONGEST_FIRST.findIndex((folder) => path.startsWith(folder));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    const sorted = await super.sort(files);
    return sorted
      .map((file, order) => ({ file, order, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.order - b.order)
      .map(({ file }) => file);
  }
}

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores, but a black-box test uses a core a quarter of its time or less (measured: a file
    // of 110 s of wall time took 27 s of CPU, its children included): the rest it waits on child
    // processes, polling and real timeouts. The waits on rate windows and backoff run on virtual
    // time (test/cli/virtual-harness.ts); four workers keep the cores busy while others wait.
    maxWorkers: 4,
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        // What modules of the CLI and the sandbox keep is the same for every command of a
        // process (ARCHITECTURE.md §2 lists it; test/unit/repository/module-state.test.ts holds
        // the list), so the unit tests share their workers' modules instead of importing them
        // again for each file: a third of the CPU time of a run of them.
        // A file that mocks a module (vi.mock) needs modules of its own: it runs isolated, below.
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: [...MOCKS_MODULES],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          // The verbs in this process (test/cli/harness.ts, test/cli/virtual-harness.ts): no build needed.
          name: 'cli',
          include: ['test/cli/**/*.test.ts'],
          exclude: [...MOCKS_MODULES],
          isolate: false,
          execArgv: ['--max-semi-space-size=64'],
        },
      },
      {
        extends: true,
        test: {
          // The built binary as a child process: what only it can show.
          name: 'end-to-end',
          include: ['test/e2e/**/*.test.ts', 'test/reliability/**/*.test.ts'],
          exclude: [...MOCKS_MODULES],
          // As the unit tests: the harness, the sandbox and the CLI's modules are loaded once a
          // worker, not once a file (about 30 s of CPU a run); each file starts its own sandbox.
          isolate: false,
          // The sandbox of a large world makes young garbage by the hundred megabytes (a person is
          // generated whenever read): with a larger young generation, the HogQL paging test
          // (persons-query) took 14.8 s of CPU instead of 18.4.
          execArgv: ['--max-semi-space-size=64'],
        },
      },
      {
        extends: true,
        // Isolated: a mock must be in place before any other file loads the module it replaces.
        test: { name: 'mocks', include: [...MOCKS_MODULES] },
      },
    ],
  },
});
