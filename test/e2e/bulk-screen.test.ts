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

/** The lines the screen keeps: of a line the bar was redrawn in, what was written last. */
const screenText = (output: string) => output.split(/\r?\n/).map((l) => l.split('\r').at(-1)!);
/** The same as one text, lines wrapped at 80 columns joined again at their space. */
const joined = (output: string) =>
  screenText(output)
    .map((line) => line.trimStart())
    .join(' ');

describe('the closing lines, in the units asked for', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ persons: 2000 });
  });
  afterAll(() => world.close());

  it('an erasure of 5 addresses ends in addresses found and not found, naming the one that named no one, and persons deleted', async () => {
    const emails = join(dir, 'five.txt');
    const four = world.sandbox.store
      .list({}, 0, 40)
      .map((p) => p.properties.email)
      .filter((e): e is string => typeof e === 'string')
      .slice(0, 4);
    expect(four).toHaveLength(4);
    writeFileSync(emails, [...four, 'nobody@example.com'].join('\n'));
    const res = await runInTerminal(['persons', 'bulk-delete', '--emails', emails, '-y'], world.env, [], 30_000, SCREEN);
    expect(res.code, res.output).toBe(0);
    for (const line of screenText(res.output)) expect(line.length, line).toBeLessThanOrEqual(80);
    const all = joined(res.output);
    expect(all).toMatch(/✔ 5 e-mail addresses: 4 named 4 persons, 1 named no one \(nobody@example\.com\); 4 persons deleted; receipt: /);
    expect(all).not.toContain('ids sent');
  });

  it('an update of 3 addresses ends in addresses found and not found too, then the persons changed', async () => {
    const two = world.sandbox.store
      .list({}, 60, 40)
      .map((p) => p.properties.email)
      .filter((e): e is string => typeof e === 'string')
      .slice(0, 2);
    const emails = join(dir, 'update.txt');
    writeFileSync(emails, [...two, 'nobody@example.com'].join('\n'));
    const res = await runInTerminal(
      ['persons', 'bulk-update', '--emails', emails, '--set', 'tier=gold', '-y'],
      world.env,
      [],
      60_000,
      SCREEN,
    );
    expect(res.code, res.output).toBe(0);
    expect(joined(res.output)).toMatch(
      /✔ 3 e-mail addresses: 2 named 2 persons, 1 named no one \(nobody@example\.com\); 2 persons sent their changes in 1 request;/,
    );
  });

  it('an interrupt with the answer out, then --resume: the ids sent are counted once, and the lost answer is said as such', async () => {
    world.sandbox.setFaults('slow=1@5000,path=bulk_delete');
    const ids = world.sandbox.store.listUuids(100, 900);
    const path = join(dir, 'lost.txt');
    writeFileSync(path, ids.join('\n'));
    const journal = join(dir, 'lost.ndjson');
    const args = ['persons', 'bulk-delete', '--file', path, '--journal', journal, '-y'];
    const deletedBefore = world.sandbox.store.deletedCount;
    let stopped;
    try {
      stopped = await runInTerminal(
        args,
        world.env,
        [
          { when: '1 in flight', send: '\u0003' },
          { when: 'Ctrl-C again', send: '\u0003' },
        ],
        30_000,
        SCREEN,
      );
      // The server carries the request out after its delay, with no one to hear the answer.
      for (let i = 0; i < 200 && world.sandbox.store.deletedCount < deletedBefore + 900; i++) await new Promise((r) => setTimeout(r, 50));
    } finally {
      world.sandbox.setFaults();
    }
    expect(stopped.code, stopped.output).toBe(130);
    const said = joined(stopped.output);
    expect(said).toMatch(
      /interrupted: no request was answered; 900 ids were on the way, without an answer \(the next run takes them up first\)/,
    );
    expect(said).not.toMatch(/from 0 ids sent|ids not done yet/);
    expect(world.sandbox.store.deletedCount).toBe(deletedBefore + 900);

    const resumed = await runInTerminal([...args, '--resume'], world.env, [], 30_000, SCREEN);
    expect(resumed.code, resumed.output).toBe(0);
    const end = joined(resumed.output);
    expect(end).toMatch(
      /✔ 900 ids sent whose answers were lost name no person any more when checked \(the lost request deleted them, or they never named one\); receipt: /,
    );
    expect(end).not.toMatch(/0 persons deleted|more ids were gone/);
  });
});

describe('stored addresses that differ only by spaces or a trailing dot', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ persons: 30 });
  });
  afterAll(() => world.close());

  it('are reported in the plan as near-matches, with their persons, and not deleted', async () => {
    const store = world.sandbox.stores.get(1)!;
    const [spaced, dotted, exact] = [...store].slice(0, 3);
    store.setProperties(spaced.id, { email: '  lee@example.net ' });
    store.setProperties(dotted.id, { email: 'Dee@Example.net.' });
    store.setProperties(exact.id, { email: 'kim@example.net' });
    const emails = join(dir, 'near.txt');
    writeFileSync(emails, 'lee@example.net\ndee@example.net\nkim@example.net\n');
    const res = await runInTerminal(['persons', 'bulk-delete', '--emails', emails, '-y'], world.env, [], 30_000, SCREEN);
    expect(res.code, res.output).toBe(0);
    for (const line of screenText(res.output)) expect(line.length, line).toBeLessThanOrEqual(80);
    const all = joined(res.output).replace(/ +/g, ' ');
    expect(all).toContain(
      'near 2 stored addresses differ from one given only by surrounding spaces or a trailing dot; they will not be deleted:',
    );
    expect(all).toContain(`" lee@example.net " (person ${spaced.uuid}) for lee@example.net`);
    expect(all).toContain(`"Dee@Example.net." (person ${dotted.uuid}) for dee@example.net`);
    // Only the exact match went.
    expect(store.getByUuid(exact.uuid)).toBeUndefined();
    expect(store.getByUuid(spaced.uuid)).toBeDefined();
    expect(store.getByUuid(dotted.uuid)).toBeDefined();
  });
});
