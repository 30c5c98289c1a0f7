// A sandbox started with duplicates holds groups of persons that `persons duplicates` finds, and
// that a merge makes one and its undo splits again: all of it offline, with nothing hand-edited.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

interface Group {
  key: { email: string };
  size: number;
  persons: { uuid: string; is_identified: boolean; event_count: number; properties: { email: string } }[];
}

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 20, duplicates: 3, applyDelayMs: 0 });
});
afterAll(() => world.close());

const adas = () => [...world.sandbox.store].filter((p) => String(p.properties.email).toLowerCase() === 'ada.lovelace@example.net');

describe('a sandbox with duplicates', () => {
  it('holds groups of one address in varied case, identified and anonymous persons, with events', async () => {
    // The seeded history is of 2025 (store.ts ANCHOR_MS): older than the default window of 90 days.
    const res = await world.run(['persons', 'duplicates', '--events-since', 'all', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    const groups = JSON.parse(res.stdout) as Group[];
    expect(groups.map((g) => g.size).sort()).toEqual([2, 3, 3]);
    const ada = groups.find((g) => g.key.email === 'ada.lovelace@example.net')!;
    expect(new Set(ada.persons.map((p) => p.properties.email)).size).toBe(3);
    expect(ada.persons.map((p) => p.is_identified).sort()).toEqual([false, true, true]);
    for (const p of ada.persons) expect(p.event_count).toBeGreaterThan(0);
  });

  it('holds the persons examples/groups.json names (the same seed gives the same groups)', async () => {
    const file = fileURLToPath(new URL('../../../examples/groups.json', import.meta.url));
    const named = (JSON.parse(readFileSync(file, 'utf8')) as Group[]).flatMap((g) => g.persons);
    expect(named.length).toBeGreaterThan(1);
    for (const p of named) expect(world.sandbox.store.getByUuid(p.uuid)?.properties.email).toBe(p.properties.email);
    const plan = await world.run(['persons', 'merge', '--groups', file, '--dry-run']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).not.toMatch(/not found|no longer/i);
  });

  it('merges a group into one person, and the undo gives the persons back', async () => {
    const groups = join(world.configDir, 'groups.json');
    const found = await world.run(['persons', 'duplicates', '-o', 'json']);
    writeFileSync(groups, found.stdout);
    const receipt = join(world.configDir, 'merge.json');
    const merged = await world.run(['persons', 'merge', '--groups', groups, '--yes', '--receipt', receipt]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(adas()).toHaveLength(1);
    const undone = await world.run(['persons', 'merge', '--undo', receipt, '--yes']);
    expect(undone.code, undone.stderr).toBe(0);
    expect(adas()).toHaveLength(3);
  });

  it('hogctl sandbox --duplicates says how many groups it seeded', async () => {
    const res = await world.run(['sandbox', '--duplicates', '2', '--persons', '10'], { interruptWhen: /Ctrl-C to stop/ });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('duplicates: 2 groups in project 1 (`hogctl persons duplicates`)');
  });
});
