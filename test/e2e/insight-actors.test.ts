// The built binary: the persons behind an insight, stopped by the query limit, print the command
// that continues, and that command line pasted into a shell finishes the list. The actors queries
// themselves (docs/server-contract.md §7.1) are tested in this process:
// test/cli/persons/funnel.insight-actors.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPrinted, startWorld, type World } from './harness.js';
import { funnelPeople } from '@hogctl/sandbox';

let world: World;
beforeAll(async () => {
  world = await startWorld({ persons: 4000, seed: 8 });
});
afterAll(() => world.close());

describe('persons funnel, lifecycle and trends with a personal key', () => {
  // Waiting out the query limit between pages runs on virtual time: test/cli/persons/query.limits.test.ts.

  it('stopped by a wait past --max-wait, prints the command that continues at --offset; run as printed, the outputs appended are one CSV with every person once', async () => {
    const args = [
      'persons',
      'funnel',
      '--events',
      '[{"id": "a"}, {"id": "b"}]',
      '--all',
      '--page-size',
      '1000',
      '--max-wait',
      '5s',
      '-o',
      'csv',
      '--fields',
      'id',
    ];
    world.sandbox.setRateLimit('query=2/1h');
    let first;
    try {
      first = await world.run(args);
    } finally {
      world.sandbox.setRateLimit();
    }
    expect(first.code).toBe(6);
    expect(first.stderr).toMatch(
      /^error: the server limits queries and asks to wait \S+, longer than --max-wait 5s \(stopped after 2 queries\)$/m,
    );
    expect(first.stderr).toContain('2,000 persons printed; continue after the last one with:');
    const printed = /^\s+(hogctl .*)$/m.exec(first.stderr)?.[1] ?? '';
    expect(printed).toBe(
      `hogctl --output csv --fields id persons funnel --events '[{"id": "a"}, {"id": "b"}]' --all --page-size 1000 --max-wait 5s --offset 2000`,
    );
    const rest = await runPrinted(printed, world.env);
    expect(rest.code, rest.stderr).toBe(0);
    const lines = (first.stdout + rest.stdout).trim().split('\n');
    expect(lines).toEqual(['id', ...funnelPeople(world.sandbox.store, 2, 1).map((p) => p.uuid)]);
  });
});
