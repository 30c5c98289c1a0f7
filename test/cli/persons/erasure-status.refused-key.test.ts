// A key the server refuses is exit 4 everywhere, and a verification that could not run says so:
// neither a finished erasure run again nor erasure-status may end as if it had checked.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
let receipt = '';
let args: string[] = [];
const BOGUS = { HOGCTL_API_KEY: `phx_${'x'.repeat(40)}` };

beforeAll(async () => {
  world = await startVirtualWorld({ persons: 30 });
  const file = join(world.configDir, 'ids.txt');
  writeFileSync(
    file,
    `${[...world.sandbox.store]
      .slice(0, 3)
      .map((p) => p.uuid)
      .join('\n')}\n`,
  );
  receipt = join(world.configDir, 'erasure.json');
  args = ['persons', 'bulk-delete', '--file', file, '--yes', '--receipt', receipt];
  const done = await world.run(args);
  expect(done.code, done.stderr).toBe(0);
});
afterAll(() => world.close());

describe('a refused key', () => {
  it('fails a completed bulk-delete run again (exit 4), instead of passing with an unavailable verification', async () => {
    const res = await world.run([...args, '-o', 'json'], { env: BOGUS });
    expect(res.code, res.stderr).toBe(4);
    expect(res.stderr).toContain('401 authentication_failed');
  });

  it('fails erasure-status (exit 4), instead of "not complete, check again later" (exit 8)', async () => {
    const res = await world.run(['persons', 'erasure-status', '--receipt', receipt], { env: BOGUS });
    expect(res.code, res.stderr).toBe(4);
    expect(res.stderr).not.toContain('check again later');
  });
});

describe('a verification that could not run', () => {
  it('is said, with how to check later, when the server cannot answer the read-back', async () => {
    world.sandbox.setFaults('503=1,path=batch_by_uuids');
    const res = await world.run([...args, '--resume']);
    world.sandbox.setFaults(undefined);
    expect(res.stderr).toContain('the verification could not run');
    expect(res.stderr).toContain(`hogctl persons erasure-status --receipt ${receipt}`);
  });
});
