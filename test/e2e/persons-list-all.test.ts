// The built binary: `persons list --all` under the server's read limit. It waits as long as the server
// asks (a line off a terminal, a countdown on one), up to --max-wait; stopped, it prints the
// command that continues (--offset where the next page starts, --after the last person printed),
// and the two outputs appended hold every person once, even with persons deleted in between.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPrinted, startWorld, type World } from './harness.js';
import { runInTerminal } from './terminal.js';

const PERSONS = 1000;
let world: World;
beforeAll(async () => {
  world = await startWorld({ persons: PERSONS, seed: 21 });
});
afterAll(() => world.close());

const lines = (text: string) => text.trim().split('\n').filter(Boolean);
/** The persons as the list orders them: newest first. */
const listed = () => world.sandbox.store.listUuids(0, PERSONS * 2);

describe('persons list --all under the read limit', () => {
  it('on a terminal, counts the wait down on one line', async () => {
    world.sandbox.setRateLimit('read=2/2s');
    try {
      const res = await runInTerminal(['persons', 'list', '--all', '--page-size', '400', '-o', 'ndjson'], world.env, [], 60_000);
      expect(res.code).toBe(0);
      expect(res.raw).toContain('\r\u001b[2Krate-limited by the server (reading persons): waiting ');
      // Every person printed (the countdown's line is cleared, and the next row written over it).
      expect(res.output.match(/"distinct_ids":/g)).toHaveLength(PERSONS);
    } finally {
      world.sandbox.setRateLimit();
    }
  });

  it('stopped by a wait past --max-wait, prints the command that continues; run as printed after deletions, the outputs appended are one CSV with every survivor once', async () => {
    world.sandbox.setRateLimit('read=3/1h');
    let first;
    try {
      first = await world.run(['persons', 'list', '--all', '--page-size', '100', '--max-wait', '5s', '-o', 'csv', '--fields', 'id']);
    } finally {
      world.sandbox.setRateLimit();
    }
    expect(first.code).toBe(6);
    expect(first.stderr).toMatch(
      /^error: the server limits reads and asks to wait \S+, longer than --max-wait 5s \(stopped after 3 requests\)$/m,
    );
    expect(first.stderr).toContain('300 persons printed; continue after the last one with:');
    const printed = /^\s+(hogctl .*)$/m.exec(first.stderr)?.[1] ?? '';
    expect(printed).toMatch(
      /^hogctl --output csv --fields id persons list --all --page-size 100 --max-wait 5s --offset 300 --after \d{4}-\d\d-\d\dT[\d:.]+Z,[0-9a-f-]{36}(,[0-9a-f-]{36})*$/,
    );
    const before = listed();
    const firstIds = lines(first.stdout).slice(1);
    expect(firstIds).toEqual(before.slice(0, 300));
    // Meanwhile, persons printed already are deleted: the rest moves up past the overlap.
    for (const uuid of before.slice(200, 260)) world.sandbox.store.delete(uuid);
    const rest = await runPrinted(printed, world.env);
    expect(rest.code, rest.stderr).toBe(0);
    // The deletions happened before this run, not while it ran.
    expect(rest.stderr).toContain('the place to continue from had moved (persons deleted since the listing stopped');
    expect(rest.stderr).not.toContain('while this listing ran');
    expect(lines(rest.stdout)[0]).not.toBe('id');
    expect(lines(first.stdout + rest.stdout)).toEqual(['id', ...before]);
  });
});
