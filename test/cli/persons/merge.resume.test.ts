// `persons merge --resume` reads the groups it has not sent yet again before it sends them, as a
// first run does: a person merged elsewhere since is refused, not followed to where its distinct
// id went.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 10, applyDelayMs: 0 });
});
afterAll(() => world.close());

async function capture(events: { event: string; distinct_id: string; properties: Record<string, unknown> }[]): Promise<void> {
  const batch = events.map((e) => ({ ...e, properties: { ...e.properties, $geoip_disable: true } }));
  const res = await fetch(`${world.sandbox.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: world.sandbox.world.projects[0].apiToken, batch }),
  });
  expect(res.status).toBe(200);
  await new Promise((r) => setTimeout(r, 20));
}
const person = (id: string, name: string) => capture([{ event: '$identify', distinct_id: id, properties: { $set: { name } } }]);
const uuidOf = (id: string) => world.sandbox.store.getByDistinctId(id)!.uuid;

describe('persons merge --resume', () => {
  it('refuses a group whose person was merged elsewhere since, and merges no person of no group', async () => {
    await person('rk', 'K');
    await person('ro', 'O');
    await person('rw', 'W');
    const w = uuidOf('rw');
    const journal = join(world.configDir, 'resume.ndjson');
    const args = ['persons', 'merge', 'rk', 'ro', '--yes', '--journal', journal];
    // The first run: capture fails every time, nothing is merged, the run stops unfinished.
    world.sandbox.setFaults('500=1,path=/batch/');
    const first = await world.run(args).finally(() => world.sandbox.setFaults(undefined));
    expect(first.code).toBe(8);
    // Meanwhile O is merged into W, which is in no group: O's distinct id now names W.
    await capture([{ event: '$merge_dangerously', distinct_id: 'rw', properties: { alias: 'ro' } }]);
    expect(uuidOf('ro')).toBe(w);
    const before = world.sandbox.capture.events;

    const resumed = await world.run([...args, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(3);
    expect(resumed.stderr).toMatch(
      /recorded group 1 person 2 \(\S+\): neither its UUID nor its distinct ids name a person there; nothing was sent/,
    );
    expect(world.sandbox.capture.events).toBe(before);
    expect(uuidOf('rw')).toBe(w);
    expect(uuidOf('rk')).not.toBe(w);
  });
});
