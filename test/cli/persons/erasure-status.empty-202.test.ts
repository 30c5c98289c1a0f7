// `persons erasure-status` of an erasure whose bulk_delete answers (the empty 202 of older servers)
// did not say how many event deletions they queued: never "complete" while one is pending. (A sweep
// it cannot read is test/cli/persons/erasure-status.sweep.test.ts.)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
afterEach(() => world.close());

const control = (path: string) => fetch(`${world.sandbox.url}/_sandbox/${path}`, { method: 'POST' }).then((r) => r.json());

describe('persons erasure-status after the empty 202 of older servers', () => {
  beforeEach(async () => {
    world = await startVirtualWorld({ persons: 10, bulkDeleteResponse: 'empty' });
  });

  it('is not complete while the event deletion it cannot count is pending', async () => {
    const file = join(world.configDir, 'ids.txt');
    writeFileSync(file, `${[...world.sandbox.store][0].uuid}\n`);
    const receipt = join(world.configDir, 'erasure.json');
    expect((await world.run(['persons', 'bulk-delete', '--file', file, '--delete-events', '--yes', '--receipt', receipt])).code).toBe(0);
    // The weekly deletion has not run: the event deletion is pending.
    const status = await world.run(['persons', 'erasure-status', '--receipt', receipt, '-o', 'json']);
    expect(status.code).not.toBe(0);
    expect(JSON.parse(status.stdout)).toEqual([expect.objectContaining({ status: 'pending', events_queued: null, events_pending: 1 })]);
    // Once the weekly deletion ran, every person sent is listed completed: complete.
    await control('deletions/run');
    const after = await world.run(['persons', 'erasure-status', '--receipt', receipt, '-o', 'json']);
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual([expect.objectContaining({ status: 'complete', events_completed: 1 })]);
  });
});
