// In this process against the sandbox: `persons bulk-delete --sweep-events` sweeps
// the events of an address that names no person, and refuses to run without --delete-events. The
// whole case (a merged person, the approval and weekly job, erasure-status, the flag off, a lost
// answer and --resume) is test/cli/persons/erasure-status.sweep.test.ts, on virtual time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';

let world: World;
beforeAll(async () => {
  world = await startWorld({ persons: 3, seed: 3, eventsPerPerson: 0 });
  await fetch(`${world.sandbox.url}/_sandbox/projects/1/self-service-data-deletion/on`, { method: 'POST' });
});
afterAll(() => world.close());

const GHOST = 'ghost@example.net';

describe('persons bulk-delete --sweep-events', () => {
  it('refuses --sweep-events without --delete-events, sending nothing', async () => {
    const res = await world.run(['persons', 'bulk-delete', '--email', GHOST, '--sweep-events', '--yes']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--sweep-events goes with --delete-events');
    expect(world.sandbox.dataDeletions.list(1)).toHaveLength(0);
  });

  it('sweeps the events of an address used only as a personless distinct id', async () => {
    const token = world.sandbox.world.projects.find((p) => p.id === 1)!.apiToken;
    const event = { event: 'form_posted', distinct_id: GHOST, properties: { $process_person_profile: false, $geoip_disable: true } };
    const sent = await fetch(`${world.sandbox.url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: token, batch: [{ ...event, timestamp: new Date(Date.now() - 60_000).toISOString() }] }),
    });
    expect(sent.status).toBe(200);
    const stored = () => [...world.sandbox.ingestion.values()].reduce((k, x) => k + x.stats.events, 0);
    for (let i = 0; i < 500 && stored() < 1; i++) await new Promise((r) => setTimeout(r, 10));
    const res = await world.run(['persons', 'bulk-delete', '--email', GHOST, '--delete-events', '--sweep-events', '--yes']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(`(${GHOST}: 1)`);
    expect(world.sandbox.dataDeletions.list(1).map((r) => r.query)).toEqual([expect.stringContaining(`'${GHOST}'`)]);
  });
});
