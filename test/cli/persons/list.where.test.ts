// `hogctl persons list --where`, in this process: an empty value is refused as bulk-delete and
// bulk-update refuse it, and has:/lacks: choose by whether a property is set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';
import { EMPTY_WHERE_TITLE, itRefusesEveryEmptyWhere } from './empty-where.js';

let world: World;

beforeAll(async () => {
  world = await startWorld({ persons: 200, seed: 11 });
});
afterAll(() => world.close());

describe(EMPTY_WHERE_TITLE, () => {
  itRefusesEveryEmptyWhere(() => world, 'list');

  it('has:<key> and lacks:<key> choose by whether the property is set', async () => {
    const has = await world.run(['persons', 'list', '--where', 'has:email', '--limit', '5', '-o', 'json']);
    expect(has.code).toBe(0);
    const withEmail = JSON.parse(has.stdout);
    expect(withEmail.length).toBeGreaterThan(0);
    expect(withEmail.every((p: { properties: Record<string, unknown> }) => typeof p.properties.email === 'string')).toBe(true);
    const lacks = await world.run(['persons', 'list', '--where', 'lacks:email', '--limit', '5', '-o', 'json']);
    expect(lacks.code).toBe(0);
    expect(JSON.parse(lacks.stdout).every((p: { properties: Record<string, unknown> }) => p.properties.email === undefined)).toBe(true);
  });
});
