// In this process against the sandbox: `events delete --help`, and a dry run that
// counts the selected events, shows the plan and sends no deletion request. The
// scenarios on virtual time (submission, lost answer and --resume, the flag off, the limits) are
// test/cli/events/delete.flow.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';

let world: World;
beforeAll(async () => {
  world = await startWorld({ persons: 5, seed: 3, eventsPerPerson: 2 });
  await fetch(`${world.sandbox.url}/_sandbox/projects/1/self-service-data-deletion/on`, { method: 'POST' });
});
afterAll(() => world.close());

describe('events delete', () => {
  it('prints its help', async () => {
    const res = await world.run(['events', 'delete', '--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('--distinct-ids <file>');
  });

  it('counts and plans a dry run, and makes no request', async () => {
    const res = await world.run(['events', 'delete', '--event', '$pageview', '--dry-run']);
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/events selected now: \d+/);
    expect(res.stderr).toContain('dry run: no request was sent');
    expect(world.sandbox.dataDeletions.list(1)).toHaveLength(0);
  });
});
