// A project over its billing limit: capture answers its events `200 {"status": "Ok"}` and drops
// them (PostHog/posthog rust/capture/src/v0_endpoint.rs `event()`; the sandbox's `quota-limited`
// fault). hogctl cannot tell that answer from an acceptance, so a bulk update or a merge ends
// with what it read back: pending, exit 8, in words that name the billing limit and how to check,
// never "accepted" as a success. In this process on virtual time (test/cli/virtual-harness.ts), where
// the read-back's timeout passes at once; test/cli/persons/bulk-update.test.ts runs on the real clock.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 30, applyDelayMs: 300 });
  world.sandbox.setFaults('quota-limited=1,path=/batch/');
});
afterAll(() => world.close());

describe('a project over its billing limit', () => {
  it('bulk-update ends pending (exit 8), naming the billing limit and how to check', async () => {
    const persons = [...world.sandbox.store].slice(0, 3);
    const file = join(world.configDir, 'ids.txt');
    writeFileSync(file, `${persons.map((p) => p.uuid).join('\n')}\n`);
    const receipt = join(world.configDir, 'update.json');
    const res = await world.run(['persons', 'bulk-update', '--file', file, '--set', 'tier=3', '-y', '--receipt', receipt]);
    expect(res.code, res.stderr).toBe(8);
    expect(res.stderr).toContain('3 persons did not show the changes when the read-back stopped');
    expect(res.stderr).toContain('over its billing limit, for which capture answers 200 and drops the events');
    expect(res.stderr).toContain("check the organization's billing limits and the project's ingestion warnings");
    expect(JSON.parse(readFileSync(receipt, 'utf8')).update).toMatchObject({ persons_applied: 0, persons_pending: 3 });
    for (const p of persons) expect(world.sandbox.store.getById(p.id)!.properties.tier).toBeUndefined();
  });

  it('a merge ends pending (exit 8), its receipt saying per group what may have happened', async () => {
    const [a, b] = [...world.sandbox.store].slice(10, 12);
    const receipt = join(world.configDir, 'merge.json');
    const res = await world.run(['persons', 'merge', a.distinctIds[0], b.distinctIds[0], '--yes', '--receipt', receipt]);
    expect(res.code, res.stderr).toBe(8);
    expect(res.stderr).toContain("check the organization's billing limits and the project's ingestion warnings");
    const [group] = JSON.parse(readFileSync(receipt, 'utf8')).groups;
    expect(group.status).toBe('pending');
    expect(group.reason).toMatch(/^accepted by capture but not applied when the read-back stopped: /);
    expect(group.reason).toContain('over its billing limit (capture answers 200 and drops the events)');
    expect(group.reason).toContain('an ingestion warning');
    expect(world.sandbox.store.getByDistinctId(b.distinctIds[0])!.uuid).toBe(b.uuid);
  });
});
