// `persons export` of a subject who is no person, in this process on virtual time: an address
// used only as a personless distinct id. The export writes persons, so it cannot put those events
// in a bundle yet; it must not say "no person" and stop there as if nothing were held: it counts
// the events the identifiers carry, says they are not in the bundle, and how to reach them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
beforeEach(async () => {
  world = await startVirtualWorld({ persons: 3, eventsPerPerson: 0, applyDelayMs: 0 });
});
afterEach(() => world.close());

const GHOST = 'ghost@example.net';

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

const at = (minutesAgo: number) => new Date(world.clock.now() - minutesAgo * 60_000).toISOString();
const personless = (distinctId: string, minutesAgo: number) => ({
  event: 'form_posted',
  distinct_id: distinctId,
  timestamp: at(minutesAgo),
  properties: { $process_person_profile: false },
});

describe('persons export of a subject who is no person', () => {
  it('counts the events an address used only as a distinct id carries, and says they are not in a bundle', async () => {
    await capture([personless(GHOST, 10), personless(GHOST, 5)]);
    const res = await world.run(['persons', 'export', '--email', GHOST, '--out', `${world.configDir}/bundle`]);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain(`no person matches ${GHOST}`);
    expect(res.stderr).toContain(`events carry them as distinct ids of no person (project 1: ${GHOST}: 2)`);
    expect(res.stderr).toMatch(/--sweep-events/);
  });

  it('beside a person, the plan names the events it leaves out', async () => {
    await capture([
      { event: '$identify', distinct_id: 'sam-user', timestamp: at(20), properties: { $set: { email: 'sam@example.net' } } },
      personless(GHOST, 5),
    ]);
    const res = await world.run([
      'persons',
      'export',
      '--email',
      'sam@example.net',
      '--email',
      GHOST,
      '--out',
      `${world.configDir}/bundle`,
      '--dry-run',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(`not in it events of the given identifiers as distinct ids of no person: project 1: ${GHOST}: 1`);
  });
});
