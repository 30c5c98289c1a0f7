// A bulk update reads the persons back from a quarter of a second after sending, doubling to 2 s,
// not in rounds 2 s apart: in this process on virtual time (test/cli/virtual-harness.ts), where the
// sandbox applies captured events 300 ms after accepting them on the same clock, so the rounds'
// times are exact. On the real clock: test/cli/persons/bulk-update.test.ts reads every update back.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 30, applyDelayMs: 300 });
});
afterAll(() => world.close());

describe('reading an update back', () => {
  it('reads again after 250 ms, then 500 ms: a change that shows in 300 ms is applied within a second', async () => {
    const persons = [...world.sandbox.store].filter((p) => typeof p.properties.email === 'string').slice(0, 3);
    const file = join(world.configDir, 'ids.txt');
    writeFileSync(file, `${persons.map((p) => p.uuid).join('\n')}\n`);
    const started = world.clock.now();
    const res = await world.run(['persons', 'bulk-update', '--file', file, '--set', 'tier=3', '-y', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ persons_applied: 3, persons_pending: 0 });
    for (const p of persons) expect(world.sandbox.store.getById(p.id)!.properties.tier).toBe(3);
    // The reads logged after the one capture batch (the lookup before it is at the same time).
    const log = world.sandbox.requests;
    const sent = log.findIndex((r) => r.path === '/batch/');
    const rounds = log
      .slice(sent + 1)
      .filter((r) => r.path === '/api/projects/1/persons/batch_by_uuids/')
      .map((r) => r.at - log[sent].at);
    // After the send: a round at once (not yet applied), one 250 ms later (not yet), one 500 ms
    // after that (applied). Rounds 2 s apart would have ended 2 s after the send.
    expect(rounds).toEqual([0, 250, 750]);
    expect(world.clock.now() - started).toBeLessThan(1_000);
  });
});
