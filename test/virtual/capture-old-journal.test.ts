// A capture write resumed hours after its journal was made: a project with
// drop_events_older_than drops events older than that after capture answered 200
// (posthog-deletion-and-geoip.md H.3), so the journal's event time must not be sent again then.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from './harness.js';

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

describe('a capture write resumed past the project’s drop_events_older_than', () => {
  afterAll(() => dropOlderThan('off'));

  it('bulk-update sends its events afresh, so that they are applied, not dropped after a 200', async () => {
    const persons = [...world.sandbox.store].slice(0, 3);
    const file = join(world.configDir, 'ids.txt');
    writeFileSync(file, `${persons.map((p) => p.uuid).join('\n')}\n`);
    const args = [
      'persons',
      'bulk-update',
      '--file',
      file,
      '--set',
      'tier=gold',
      '--yes',
      '--journal',
      join(world.configDir, 'update.ndjson'),
    ];
    // Capture refuses the first run's events: it stops with them unsent.
    world.sandbox.setFaults('500=1,path=/batch/');
    const first = await world.run(args);
    world.sandbox.setFaults(undefined);
    expect(first.code, first.stderr).not.toBe(0);
    world.clock.advance(3 * HOUR);
    await dropOlderThan(7_200);
    const resumed = await world.run([...args, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const p of persons) expect(world.sandbox.store.getById(p.id)!.properties.tier).toBe('gold');
  });

  it('a merge does too', async () => {
    const [a, b] = [...world.sandbox.store].slice(5, 7);
    const args = ['persons', 'merge', a.uuid, b.uuid, '--yes', '--journal', join(world.configDir, 'merge.ndjson')];
    world.sandbox.setFaults('500=1,path=/batch/');
    const first = await world.run(args);
    world.sandbox.setFaults(undefined);
    expect(first.code, first.stderr).not.toBe(0);
    world.clock.advance(3 * HOUR);
    await dropOlderThan(7_200);
    const resumed = await world.run([...args, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(world.sandbox.store.getByDistinctId([...b.distinctIds][0])!.uuid).toBe(a.uuid);
  });
});
