// The world of the tests of how persons are named (uuid, id) and found by e-mail address: 200
// generated persons, and three added with known UUIDs, one address written in two cases.
import type { SandboxOptions } from '@hogctl/sandbox';
import { startWorld, type World } from '../harness.js';
import { useWorld } from './fixtures.js';

export const LEE = '01900000-aaaa-7bbb-8ccc-0000000000e1';
export const TWIN_A = '01900000-aaaa-7bbb-8ccc-0000000000e2';
export const TWIN_B = '01900000-aaaa-7bbb-8ccc-0000000000e3';

/** The world, and Lee's integer id once it is started. `start` as for useWorld. */
export function usePersonNamesWorld(start: (options: SandboxOptions) => Promise<World> = startWorld): {
  world: World;
  leeId: () => number;
} {
  let leeId = 0;
  const world = useWorld({ persons: 200 }, async (options) => {
    const started = await start(options);
    const store = started.sandbox.store;
    leeId = store.addPerson({
      uuid: LEE,
      createdAtUs: Date.UTC(2030, 0, 3) * 1000,
      distinctIds: ['user-lee'],
      properties: { email: 'Lee.Park@Example.net', plan: 'team' },
    }).id;
    // Two persons under one address, written in two cases.
    store.addPerson({
      uuid: TWIN_A,
      createdAtUs: Date.UTC(2030, 0, 2) * 1000,
      distinctIds: ['twin-a'],
      properties: { email: 'twin@example.org' },
    });
    store.addPerson({
      uuid: TWIN_B,
      createdAtUs: Date.UTC(2030, 0, 1) * 1000,
      distinctIds: ['twin-b'],
      properties: { email: 'Twin@Example.org' },
    });
    return started;
  });
  return { world, leeId: () => leeId };
}
