// An erasure by address reports as a near-match a person whose distinct id differs from an address
// given only by surrounding spaces or a trailing dot, as it does for the `email` property: such a
// person is left alone, but named in the plan, not counted as an address that "names no person"
// without a word.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 20, applyDelayMs: 0 });
});
afterAll(() => world.close());

describe('bulk-delete --emails', () => {
  it('lists a distinct id with spaces around the address, or a trailing dot, as a near-match, and deletes no one', async () => {
    const res = await fetch(`${world.sandbox.url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: world.sandbox.world.projects[0].apiToken,
        batch: [' ada@example.org ', 'bob@example.org.'].map((id) => ({
          event: '$identify',
          distinct_id: id,
          properties: { $set: { plan: 'x' }, $geoip_disable: true },
        })),
      }),
    });
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 20));
    const ada = world.sandbox.store.getByDistinctId(' ada@example.org ')!;
    const file = join(world.configDir, 'emails.txt');
    writeFileSync(file, 'ada@example.org\nbob@example.org\n');
    const run = await world.run(['persons', 'bulk-delete', '--emails', file, '--dry-run']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('near      2 stored addresses differ from one given only by surrounding spaces or a trailing dot');
    expect(run.stderr).toContain(`" ada@example.org " (distinct id of person ${ada.uuid}) for ada@example.org`);
    expect(run.stderr).toContain('"bob@example.org." (distinct id of person');
    expect(world.sandbox.store.getByDistinctId(' ada@example.org ')).toBeDefined();
  });
});
