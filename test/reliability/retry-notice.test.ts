// A retry wait over a second is announced on stderr, and --quiet silences the notice: in this
// process on virtual time (test/cli/virtual-harness.ts), where the backoff before the notice takes no
// time. Against the built binary: test/reliability/fail-fast.test.ts prints the notice ("retry
// waits over a second are announced").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedHittingFirst } from './helpers.js';
import { startVirtualWorld, type VirtualWorld } from '../cli/virtual-harness.js';

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 30 });
});
afterAll(() => world.close());

describe('retry waits over a second are announced', () => {
  it('--quiet silences the notice', async () => {
    const path = '/api/projects/1/persons/';
    const seed = seedHittingFirst('502=0.5', '502', 'GET', path, 3);
    world.sandbox.setFaults(`502=0.5,seed=${seed},path=${path}`);
    try {
      const loud = await world.run(['persons', 'list', '-o', 'json']);
      // Without --quiet, the same run announces its third retry (a wait of 1.5 s here).
      expect(loud.stderr).toMatch(/^retrying \(4\/6\) after 502, in 2s$/m);
      // The same faults again (the seed starts over): the same three 502s, then the same waits.
      world.sandbox.setFaults(`502=0.5,seed=${seed},path=${path}`);
      const before = world.sandbox.requests.length;
      const res = await world.run(['persons', 'list', '-o', 'json', '--quiet']);
      expect(world.sandbox.requests.slice(before, before + 3).map((r) => r.status)).toEqual([502, 502, 502]);
      expect(res.stderr).not.toMatch(/retrying/);
    } finally {
      world.sandbox.setFaults();
    }
  });
});
