// A capture write resumed hours after its journal was made: a project with
// drop_events_older_than drops events older than that after capture answered 200
// (docs/server-contract.md §14.8), so the journal's event time must not be sent again then.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 20 });
});
afterAll(() => world.close());

const HOUR = 3_600_000;

async function dropOlderThan(seconds: number | 'off'): Promise<void> {
  const res = await fetch(`${world.sandbox.url}/_sandbox/projects/1/drop-events-older-than/${seconds}`, { method: 'POST' });
  expect(res.status).toBe(200);
}

/** `args` with capture refusing every event (the run stops with them unsent), then `--resume`
 * three hours later against a project that drops events older than two. */
async function stoppedThenResumedLater(args: string[]) {
  world.sandbox.setFaults('500=1,path=/batch/');
  const first = await world.run(args);
  world.sandbox.setFaults(undefined);
  expect(first.code, first.stderr).not.toBe(0);
  world.clock.advance(3 * HOUR);
  await dropOlderThan(7_200);
  return world.run([...args, '--resume']);
}

describe('a capture write resumed past the project’s drop_events_older_than', () => {
  afterAll(() => dropOlderThan('off'));

  it('bulk-update sends its events afresh, so that they are applied, not dropped after a 200', async () => {
    const persons = [...world.sandbox.store].slice(0, 3);
    const file = join(world.configDir, 'ids.txt');
    writeFileSync(file, `${persons.map((p) => p.uuid).join('\n')}\n`);
    const journal = join(world.configDir, 'update.ndjson');
    const resumed = await stoppedThenResumedLater([
      'persons',
      'bulk-update',
      '--file',
      file,
      '--set',
      'tier=gold',
      '--yes',
      '--journal',
      journal,
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const p of persons) expect(world.sandbox.store.getById(p.id)!.properties.tier).toBe('gold');
  });

  it('a merge does too', async () => {
    const [a, b] = [...world.sandbox.store].slice(5, 7);
    const journal = join(world.configDir, 'merge.ndjson');
    const resumed = await stoppedThenResumedLater(['persons', 'merge', a.uuid, b.uuid, '--yes', '--journal', journal]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(world.sandbox.store.getByDistinctId([...b.distinctIds][0])!.uuid).toBe(a.uuid);
  });
});
