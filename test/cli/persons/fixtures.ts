// Shared setup of the tests of the person verbs that change things: one sandbox a file, a person
// no other test of the file has touched, and the requests a run sent. A test of one verb often
// reads the server with another (a deletion, then `deletion-status`); each file starts its own
// small world, so that files stay independent of one another's order.
import { afterAll, beforeAll } from 'vitest';
import type { Person, RecordedRequest, SandboxOptions } from '@hogctl/sandbox';
import { startWorld as startInProcess, type RunOptions, type RunResult, type World } from '../harness.js';

/** Where the persons API of the sandbox's first project is. */
export const PERSONS_PATH = '/api/projects/1/persons/';

/** The world of the person-action tests: 400 persons, and writes that land 20 ms after they are
 * accepted, as PostHog applies them asynchronously. */
export const PERSON_ACTIONS_WORLD: SandboxOptions = { persons: 400, seed: 11, applyDelayMs: 20 };

export interface PersonsWorld {
  /** The file's world, started before its first test and closed after its last. */
  world: World;
  /** A live person no other test has touched, with at least `minIds` distinct ids. */
  fresh(minIds?: number): Person;
  /** Requests sent since `mark` (from `mark()`), to paths under the persons API. */
  mark(): () => RecordedRequest[];
  /** The ids of the persons handed out, for a test that makes a person others must not pick. */
  used: Set<number>;
  /** A key that may read persons but not change them. */
  readOnlyKey(): string;
}

/** Starts a world for the calling test file (vitest's beforeAll/afterAll) and the helpers on it.
 * `start` is the harness's startWorld: this process's by default, the black box's for the tests
 * that must spawn the binary. */
export function usePersonsWorld(options: SandboxOptions = PERSON_ACTIONS_WORLD, start = startInProcess): PersonsWorld {
  const world = useWorld(options, start);
  const used = new Set<number>();
  return {
    world,
    fresh: (minIds = 1) => {
      for (const p of world.sandbox.store) {
        if (!used.has(p.id) && p.distinctIds.length >= minIds) {
          used.add(p.id);
          return p;
        }
      }
      throw new Error('ran out of persons');
    },
    mark: () => {
      const before = world.sandbox.requests.length;
      return () => world.sandbox.requests.slice(before);
    },
    used,
    readOnlyKey: () => world.sandbox.addKey(['person:read']),
  };
}

/** A world for the calling test file, started in its beforeAll and closed in its afterAll, that the
 * file can name at its top: it stands for the started one once a test runs. */
export function useWorld(options: SandboxOptions, start: (options: SandboxOptions) => Promise<World> = startInProcess): World {
  let started: World | undefined;
  beforeAll(async () => {
    started = await start(options);
  });
  afterAll(async () => {
    await started?.close();
  });
  return lazyWorld(() => {
    if (!started) throw new Error('the world is started in beforeAll: use it inside a test');
    return started;
  });
}

/** A World that is the one `get` returns when used. */
function lazyWorld(get: () => World): World {
  return {
    get sandbox() {
      return get().sandbox;
    },
    get configDir() {
      return get().configDir;
    },
    get env() {
      return get().env;
    },
    run: (args: string[], options?: RunOptions): Promise<RunResult> => get().run(args, options),
    withFaults: (spec, run) => get().withFaults(spec, run),
    close: () => get().close(),
  };
}

/** Polls until a write PostHog applies later is seen (the one helper of every test). */
export { until } from '../../e2e/harness.js';
