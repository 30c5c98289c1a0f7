// The weekly event deletion can be run offline with the command `persons erasure-status --help`
// shows, so that an erasure's pending events can be seen complete against the sandbox.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 10 });
});
afterAll(() => world.close());

/** The example line of the help that runs the sandbox's weekly deletion, as argv. */
async function documentedCommand(): Promise<string[]> {
  const help = await world.run(['persons', 'erasure-status', '--help']);
  const line = help.stdout.split('\n').find((l) => /^\s*\$ .*\/_sandbox\/deletions\/run/.test(l));
  expect(line, 'the help names the command').toBeDefined();
  return line!
    .replace(/#.*$/, '')
    .trim()
    .replace(/^\$\s*/, '')
    .split(/\s+/)
    .slice(1);
}

describe('the sandbox weekly event deletion', () => {
  it('runs with the documented command, and erasure-status then says complete', async () => {
    const file = join(world.configDir, 'ids.txt');
    writeFileSync(file, `${[...world.sandbox.store][0].uuid}\n`);
    const receipt = join(world.configDir, 'erasure.json');
    const erased = await world.run(['persons', 'bulk-delete', '--file', file, '--delete-events', '--yes', '--receipt', receipt]);
    expect(erased.code, erased.stderr).toBe(0);
    const status = () => world.run(['persons', 'erasure-status', '--receipt', receipt, '-o', 'json']);
    const pending = await status();
    expect(pending.code, pending.stderr).toBe(8);

    const run = await world.run(await documentedCommand());
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).completed).toBeGreaterThan(0);

    const done = await status();
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('"complete"');
  });
});
