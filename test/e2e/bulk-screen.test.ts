// End-to-end, on a real 80-column terminal: what a bulk run shows while it runs and the line it
// ends with. The progress bar says how many requests are in flight and does not promise a
// finish in a second while slow requests are out; the last line counts in the units the person
// asked in (addresses, then persons).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld, type World } from './harness.js';
import { runInTerminal } from './terminal.js';

const SCREEN = { columns: 80, rows: 24 };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hogctl-bulk-screen-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every state the bar was drawn in: each redraw starts with a carriage return and a line erase. */
const frames = (raw: string) =>
  raw
    .split(/\r\u001b\[2K/)
    .map((f) => f.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').split(/[\r\n]/)[0])
    .filter((f) => /ids \d+%/.test(f));

describe('the progress bar with slow requests in flight', () => {
  let world: World;
  beforeAll(async () => {
    // Every request to bulk_delete takes 4 s: the plan's guess is half a second.
    world = await startWorld({ persons: 5, faults: 'slow=1@4000,path=bulk_delete' });
  });
  afterAll(() => world.close());

  it('says how many requests are in flight, and at 0% gives no ETA shorter than they have taken', async () => {
    const path = join(dir, 'slow.txt');
    writeFileSync(path, Array.from({ length: 5000 }, () => randomUUID()).join('\n'));
    const res = await runInTerminal(['persons', 'bulk-delete', '--file', path, '-y'], world.env, [], 60_000, SCREEN);
    expect(res.code, res.output).toBe(0);
    const bars = frames(res.raw);
    const waiting = bars.filter((f) => /0\/5,000 ids 0% .*· 4 in flight/.test(f));
    expect(waiting.length, bars.join('\n')).toBeGreaterThan(0);
    // The bar gives way to the words: every state keeps its ETA on an 80-column screen.
    for (const f of bars) expect(f.length, f).toBeLessThan(80);
    for (const f of bars) expect(f, bars.join('\n')).toMatch(/ETA (over )?(\d+s|done)/);
    // While both requests are out and nothing is answered, the ETA grows with their age and is
    // said to be a floor; it never claims a second or two.
    for (const f of waiting) expect(f, bars.join('\n')).not.toMatch(/ETA [0-2]s/);
    expect(
      waiting.some((f) => /ETA over [3-9]s/.test(f)),
      bars.join('\n'),
    ).toBe(true);
  });
});
