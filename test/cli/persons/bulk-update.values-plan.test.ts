// The plan of `persons bulk-update --values-from` names the properties the file will write and
// shows what the first persons get, on an 80-column terminal: not only where the values come from.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 10, applyDelayMs: 0 });
});
afterAll(() => world.close());

const emailOf = (distinctId: string) => world.sandbox.store.getByDistinctId(distinctId)!.properties.email as string;
/** What a person reads, the lines a terminal wrapped joined again. */
const unwrapped = (text: string) => text.replace(/ *\n */g, ' ');

describe('the plan of an update from a file of values', () => {
  it('lists the properties it writes and a sample of the values per person', async () => {
    const csv = join(world.configDir, 'crm-export.csv');
    const long = 'x'.repeat(60);
    writeFileSync(
      csv,
      [
        'email,plan,seats,note',
        'nobody@example.org,team,1,',
        `${emailOf('user-1')},enterprise,25,`,
        `${emailOf('user-2')},team,3,"hello, world"`,
        `${emailOf('user-3')},free,1,${long}`,
        `${emailOf('user-4')},team,9,`,
      ].join('\n') + '\n',
    );
    const res = await world.run(['persons', 'bulk-update', '--values-from', csv, '--dry-run'], { terminal: { columns: 80 } });
    expect(res.code, res.stderr).toBe(0);
    const text = unwrapped(res.stderr);
    expect(text).toContain(`values    3 properties from ${csv}, each person their own: plan, seats, note`);
    // The persons the file names, not the address that names no one; an empty cell sets nothing.
    expect(text).toContain(`e.g.      ${emailOf('user-1')}: plan="enterprise" · seats=25`);
    expect(text).toContain(`${emailOf('user-2')}: plan="team" · seats=3 · note="hello, world"`);
    expect(text).toContain(`${emailOf('user-3')}: plan="free" · seats=1 · note="${'x'.repeat(38)}…`);
    expect(text).not.toContain(emailOf('user-4') + ':');
    expect(text).not.toContain('nobody@example.org:');
  });
});
