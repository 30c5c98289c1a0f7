// `persons merge --resume` reads the groups it has not sent yet again before it sends them, as a
// first run does: a person merged elsewhere since is refused, not followed to where its distinct
// id went. An undo reads each group's persons before it writes to them, so a resumed one does not
// write to a person its receipt does not name either.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';
import { captureInto } from './merge-fixtures.js';

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 10, applyDelayMs: 0 });
});
afterAll(() => world.close());

const capture = (events: Parameters<typeof captureInto>[1]) => captureInto(world.sandbox, events);
const person = (id: string, name: string, more: Record<string, unknown> = {}) =>
  capture([{ event: '$identify', distinct_id: id, properties: { $set: { name, ...more } } }]);
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

  it('--undo --resume leaves a group whose kept person was merged into a person of no group since', async () => {
    await person('uk', 'K', { plan: 'k' });
    await person('uo', 'O', { email: 'o@example.com' });
    await person('uz', 'Z', { email: 'z@example.com', secret: 'z-only' });
    const receipt = join(world.configDir, 'undo-merged.json');
    expect((await world.run(['persons', 'merge', 'uk', 'uo', '--yes', '--receipt', receipt])).code).toBe(0);
    // The undo's first run: every split fails, nothing is written, the run stops unfinished.
    world.sandbox.setFaults('500=1,path=/split/');
    const first = await world.run(['persons', 'merge', '--undo', receipt, '--yes']).finally(() => world.sandbox.setFaults(undefined));
    expect(first.code).toBe(8);
    // Meanwhile the merged person is merged into Z, which no receipt names.
    await capture([{ event: '$merge_dangerously', distinct_id: 'uz', properties: { alias: 'uk' } }]);
    const z = uuidOf('uz');
    const zBefore = { ...world.sandbox.store.getByDistinctId('uz')!.properties };

    const resumed = await world.run(['persons', 'merge', '--undo', receipt, '--yes', '--resume']);
    expect(resumed.code, resumed.stderr).toBe(8);
    expect(resumed.stderr).toMatch(
      /now names person \S+, which also has "uz", of no person of the group: undoing it would write to a person this receipt does not name/,
    );
    expect(uuidOf('uz')).toBe(z);
    expect(world.sandbox.store.getByDistinctId('uz')!.properties).toEqual(zBefore);
    const undone = JSON.parse(readFileSync(receipt.replace(/\.json$/, '.undo.json'), 'utf8'));
    expect(undone.groups).toEqual([
      expect.objectContaining({ status: 'refused', reason: expect.stringMatching(/of no person of the group/) }),
    ]);
  });
});
