// `persons erasure-status` says "unknown" where the server could not say, never "complete" or
// "nothing was swept" for what it did not see: a sweep whose requests cannot be read, and an
// erasure whose bulk_delete answers (the empty 202 of older servers) did not say how many event
// deletions they queued.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
afterEach(() => world.close());

const control = (path: string) => fetch(`${world.sandbox.url}/_sandbox/${path}`, { method: 'POST' }).then((r) => r.json());

async function capture(events: Record<string, unknown>[]): Promise<void> {
  const token = world.sandbox.world.projects.find((p) => p.id === 1)!.apiToken;
  const batch = events.map((e) => ({ ...e, properties: { $geoip_disable: true, ...(e.properties as object) } }));
  const res = await fetch(`${world.sandbox.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: token, batch }),
  });
  expect(res.status).toBe(200);
  const stored = () => [...world.sandbox.ingestion.values()].reduce((k, x) => k + x.stats.events, 0);
  for (let i = 0; i < 500 && stored() < world.sandbox.capture.events; i++) await new Promise((r) => setTimeout(r, 10));
}

describe('persons erasure-status: what the server could not say', () => {
  beforeEach(async () => {
    world = await startVirtualWorld({ persons: 3, eventsPerPerson: 0, applyDelayMs: 0 });
  });

  it('a sweep whose requests cannot be read (a 500) is unknown, not "nothing was swept"', async () => {
    const address = 'lee@example.net';
    const at = (minutesAgo: number) => new Date(world.clock.now() - minutesAgo * 60_000).toISOString();
    await control('projects/1/self-service-data-deletion/on');
    await capture([
      { event: '$pageview', distinct_id: 'lee-user', timestamp: at(10), properties: { $set: { email: address } } },
      { event: 'form_posted', distinct_id: address, timestamp: at(5), properties: { $process_person_profile: false } },
    ]);
    const receipt = join(world.configDir, 'erasure.json');
    const args = ['persons', 'bulk-delete', '--email', address, '--delete-events', '--sweep-events', '--yes', '--receipt', receipt];
    expect((await world.run(args)).code).toBe(0);
    await control('projects/1/data-deletion-requests/approve');
    await control('deletions/run');

    world.sandbox.setFaults('500=1,path=data_deletion_requests,method=GET');
    const res = await world.run(['persons', 'erasure-status', '--receipt', receipt, '-o', 'json']).finally(() => world.sandbox.setFaults());
    expect(res.stderr).not.toContain('nothing was swept');
    expect(res.stderr).toMatch(/the server could not say: the sweep its requests cannot be read/);
    expect(JSON.parse(res.stdout)).toEqual([expect.objectContaining({ status: 'unknown' })]);
  });
});

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
