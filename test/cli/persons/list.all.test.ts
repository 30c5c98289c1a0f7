// `persons list --all`, in this process (test/cli/harness.ts), under the server's read limit. It waits as long as the server
// asks (a line off a terminal, a countdown on one), up to --max-wait; stopped, it prints the
// command that continues (--offset where the next page starts, --after the last person printed),
// and the two outputs appended hold every person once, even with persons deleted in between.
// The countdown on a terminal and the printed command run in a shell: test/e2e/persons-list-all.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';

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
  it('waits as long as the server asks, saying so on a line off a terminal', async () => {
    world.sandbox.setRateLimit('read=3/2s');
    try {
      const res = await world.run(['persons', 'list', '--all', '--page-size', '250', '-o', 'ndjson']);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toMatch(/^rate-limited by the server \(reading persons\): waiting \d+s, until \d\d:\d\d:\d\d \(Ctrl-C stops\)$/m);
      expect(lines(res.stdout).map((l) => JSON.parse(l).id)).toEqual(listed());
    } finally {
      world.sandbox.setRateLimit();
    }
  });

  it('stopped on its first request, prints the command to run again', async () => {
    world.sandbox.setRateLimit('read=1/1h');
    let res;
    try {
      expect((await world.run(['persons', 'list', '--limit', '1'])).code).toBe(0);
      res = await world.run(['persons', 'list', '--all', '--max-wait', '5s', '-o', 'ndjson']);
    } finally {
      world.sandbox.setRateLimit();
    }
    expect(res.code).toBe(6);
    expect(res.stderr).toContain('no persons printed; run it again with:\n  hogctl --output ndjson persons list --all --max-wait 5s\n');
  });

  it('--offset, --after and --max-wait need --all; a malformed --after is refused before anything is sent', async () => {
    const before = world.sandbox.requests.length;
    for (const flag of [
      ['--offset', '10'],
      ['--after', '2025-01-01T00:00:00Z,01900000-aaaa-7bbb-8ccc-000000000001'],
      ['--max-wait', '1h'],
    ]) {
      const res = await world.run(['persons', 'list', ...flag]);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain(`${flag[0]} only applies with --all`);
    }
    const bad = await world.run(['persons', 'list', '--all', '--after', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid --after "yesterday"');
    expect(world.sandbox.requests.length).toBe(before);
  });
});
