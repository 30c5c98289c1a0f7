// The built binary on a real 80-column terminal: `hogctl persons duplicates` reviews each
// candidate with what a person decides by. The rest of duplicates is tested in this process:
// test/cli/persons/duplicates.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { runInTerminal } from './terminal.js';
import { DUPLICATES_WORLD, seedDuplicates, type Seeded } from '../cli/persons/duplicates-fixtures.js';

let world: World;
let made: Seeded['made'];
let triples: Seeded['triples'];

beforeAll(async () => {
  world = await startWorld(DUPLICATES_WORLD);
  ({ made, triples } = await seedDuplicates(world));
}, 120_000);
afterAll(async () => {
  await world?.close();
});

describe('persons duplicates', () => {
  it('on an 80-column terminal, reviews each candidate with what a person decides by: ids, created, last seen, events, what differs', async () => {
    const res = await runInTerminal(['persons', 'duplicates', '--min-group', '3', '--events-since', 'all'], world.env, [], 60_000, {
      columns: 80,
      rows: 24,
    });
    expect(res.code, res.output).toBe(0);
    const lines = res.output.split(/\r?\n/);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    const email = [...triples][0];
    const [first, second] = made.get(email)!;
    const header = lines.findIndex((l) => l.includes(`email=${email}`));
    expect(header, res.output).toBeGreaterThanOrEqual(0);
    expect(lines[header]).toMatch(/^group \d+ · project \d+ · email=\S+ · 3 persons$/);
    const group = lines.slice(header + 1, lines.findIndex((l, i) => i > header && l.startsWith('group ')) >>> 0);
    // Every candidate: its whole UUID, then when it was created and last seen, its events, its ids, what differs.
    expect(group.filter((l) => /^  [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/.test(l))).toHaveLength(3);
    expect(
      group.filter((l) => /^    created \d{4}-\d\d-\d\d \d\d:\d\d, last seen \d{4}-\d\d-\d\d \d\d:\d\d, [\d,]+ events?$/.test(l)),
    ).toHaveLength(3);
    expect(group.some((l) => l.includes(`distinct ids: ${first}`))).toBe(true);
    expect(group.some((l) => l.includes(`distinct ids: ${second}`))).toBe(true);
    expect(group.filter((l) => l.startsWith('    differs: '))).toHaveLength(3);
    expect(group.join(' ')).toContain('plan=');
  });
});
