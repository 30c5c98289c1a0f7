// Every event hogctl captures carries `$geoip_disable: true` (src/api/capture.ts `batchBody`): the
// sandbox, as PostHog, runs the GeoIP transformation on a project by default, which would
// otherwise `$set` the location of the address the request came from, and `$set_once` its
// `$initial_geoip_*`, on each person an update, a merge or an undo names. In this process on
// virtual time (test/cli/virtual-harness.ts); the e2e suites of bulk-update and merge read the same
// persons back exactly against the built binary.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 30, applyDelayMs: 300 });
});
afterAll(() => world.close());

const isGeo = (key: string) => /^\$(?:initial_)?geoip_/.test(key) && key !== '$geoip_disable';

/** Each person that holds a key GeoIP writes, with those keys. */
function geoKeys(): string[] {
  return [...world.sandbox.store].flatMap((p) => {
    const keys = Object.keys(p.properties).filter(isGeo);
    return keys.length ? [`${p.uuid}: ${keys.join(', ')}`] : [];
  });
}

describe('capture writes with GeoIP on', () => {
  it('the project runs GeoIP, as a new PostHog project does', () => {
    expect(world.sandbox.world.projects.find((p) => p.id === 1)!.geoipEnabled).toBe(true);
  });

  it('bulk-update gives nobody a $geoip_* or $initial_geoip_* key', async () => {
    const persons = [...world.sandbox.store].slice(0, 3);
    const file = join(world.configDir, 'ids.txt');
    writeFileSync(file, `${persons.map((p) => p.uuid).join('\n')}\n`);
    const res = await world.run(['persons', 'bulk-update', '--file', file, '--set', 'tier=3', '-y', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    for (const p of persons) expect(world.sandbox.store.getById(p.id)!.properties.tier).toBe(3);
    expect(geoKeys()).toEqual([]);
  });

  it('a merge and its undo give nobody one either, and the undo restores the properties exactly', async () => {
    const [a, b] = [...world.sandbox.store].slice(10, 12);
    const before = [a, b].map((p) => ({ ids: [...p.distinctIds].sort(), properties: { ...p.properties } }));
    const receipt = join(world.configDir, 'merge.json');
    const merged = await world.run(['persons', 'merge', a.distinctIds[0], b.distinctIds[0], '--yes', '--receipt', receipt, '-o', 'json']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(JSON.parse(readFileSync(receipt, 'utf8')).groups[0].status).toBe('merged');
    expect(geoKeys()).toEqual([]);
    const undone = await world.run(['persons', 'merge', '--undo', receipt, '--yes', '-o', 'json']);
    expect(undone.code, undone.stderr).toBe(0);
    expect(geoKeys()).toEqual([]);
    for (const { ids, properties } of before) {
      const now = world.sandbox.store.getByDistinctId(ids[0])!;
      expect([...now.distinctIds].sort()).toEqual(ids);
      expect(now.properties).toEqual(properties);
    }
  });
});
