// Reliability: reads under every fault the sandbox can inject. Each run must either succeed with
// complete output or exit with its documented code and a clear one-line error, never a stack.
// In this process on virtual time (test/cli/virtual-harness.ts): the backoff between attempts is
// virtual, a slow answer's timeout real. Against the built binary: the exit codes of reads after
// spent retries in test/e2e/foundation.test.ts, and the retry notices in
// test/reliability/fail-fast.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../cli/virtual-harness.js';
import { expectCleanFailure } from './helpers.js';

const PERSONS = 1200;

/** The exit codes ARCHITECTURE.md §4 allows for each fault once retries are spent. */
const FAULTS: { spec: string; allowed: number[] }[] = [
  { spec: '429=0.4', allowed: [0, 6] },
  { spec: '429-no-retry=0.4', allowed: [0, 6] },
  { spec: '500=0.3', allowed: [0, 7] },
  { spec: '502=0.4', allowed: [0, 7] },
  { spec: '503=0.4', allowed: [0, 7] },
  { spec: 'drop=0.3', allowed: [0, 7] },
  { spec: 'slow=0.3@1500', allowed: [0, 7] },
  { spec: 'truncate=0.3', allowed: [0, 7] },
  { spec: 'html=0.4', allowed: [0, 7] },
];

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: PERSONS, seed: 3 });
});
afterAll(async () => {
  await world.close();
});

describe.each(FAULTS)('under $spec', ({ spec, allowed }) => {
  it('persons list --all returns every person or fails cleanly', async () => {
    world.sandbox.setFaults(`${spec},seed=11`);
    try {
      const res = await world.run(['persons', 'list', '--all', '--page-size', '100', '-o', 'ndjson', '--timeout', '1']);
      expect(allowed).toContain(res.code);
      if (res.code === 0) {
        const ids = res.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).id);
        expect(new Set(ids).size).toBe(PERSONS);
      } else expectCleanFailure(world, res);
    } finally {
      world.sandbox.setFaults();
    }
  });

  it('persons get succeeds or fails cleanly', async () => {
    const person = world.sandbox.store.list({}, 0, 1)[0]!;
    world.sandbox.setFaults(`${spec},seed=5`);
    try {
      const res = await world.run(['persons', 'get', person.uuid, '-o', 'json', '--timeout', '1']);
      expect(allowed).toContain(res.code);
      if (res.code === 0) expect(JSON.parse(res.stdout).uuid).toBe(person.uuid);
      else expectCleanFailure(world, res);
    } finally {
      world.sandbox.setFaults();
    }
  });
});
