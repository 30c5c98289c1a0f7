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
 * The files that mock a module start first, each in a fresh worker; then the black-box suites,
 * and the short in-process tests fill the gaps at the end, so that the workers finish together.
 * A shared worker is kept only while the next file in the queue is one it can take, so the
 * mocks, in the middle or at the end, would end a shared worker early (and, at the end, leave
 * the run waiting on the last of them). Within each folder, vitest's own order holds: the
 * longest files of the last run first, or the largest files on a clean checkout (CI).
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const path = relative(file.project.config.root, file.moduleId);
      if (MOCKS_MODULES.includes(path)) return -1;
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
        test: {
          // Every file but those that mock a module, in one project, so that a worker takes one file
          // after another whatever its folder: the unit tests, the verbs in this process
          // (test/cli/harness.ts, test/cli/virtual-harness.ts) and the built binary as a child
          // process (test/e2e/, test/reliability/). A worker of another project would import the
          // CLI and the sandbox again (about 2.5 s of CPU each), and with a project for each of
          // the three, a run started 16 workers instead of 4 and transformed the sources three
          // times. A whole run took 394 CPU-s instead of 400-429.
          name: 'shared',
          include: ['test/{unit,cli,e2e,reliability}/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: [...MOCKS_MODULES],
          // What modules of the CLI and the sandbox keep is the same for every command of a
          // process (ARCHITECTURE.md §2 lists it; test/unit/repository/module-state.test.ts holds
          // the list), so the files share their workers' modules instead of importing them again
          // for each file; each file starts its own sandbox.
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
