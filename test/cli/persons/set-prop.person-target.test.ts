// In this process (test/cli/harness.ts): every per-person verb takes `--distinct-id` instead of the id (one shared
// resolver, person-target.ts), and the request goes to the person that owns the distinct id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Person } from '@hogctl/sandbox';
import { startWorld, type World } from '../harness.js';

let world: World;
let next = 100;

beforeAll(async () => {
  world = await startWorld({ persons: 300, seed: 5, applyDelayMs: 0 });
});
afterAll(async () => {
  await world.close();
});

/** A person no other test here uses, and one of its distinct ids. */
function fresh(): { person: Person; distinctId: string } {
  const person = world.sandbox.store.getById(next++)!;
  return { person, distinctId: person.distinctIds[0] };
}

/** The persons-API paths the sandbox received while `run` ran. */
async function pathsOf(run: () => Promise<unknown>): Promise<string[]> {
  const before = world.sandbox.requests.length;
  await run();
  return world.sandbox.requests.slice(before).map((r) => `${r.method} ${r.path.split('?')[0]}`);
}

describe('--distinct-id on per-person verbs', () => {
  const cases: [string, (d: string) => string[], (p: Person) => string][] = [
    ['update', (d) => ['persons', 'update', '--distinct-id', d, '--set', 'plan=x'], (p) => `PATCH /api/projects/1/persons/${p.uuid}/`],
    [
      'set-prop',
      (d) => ['persons', 'set-prop', '--distinct-id', d, 'plan', 'x'],
      (p) => `POST /api/projects/1/persons/${p.uuid}/update_property/`,
    ],
    [
      'unset-prop',
      (d) => ['persons', 'unset-prop', '--distinct-id', d, 'plan'],
      (p) => `POST /api/projects/1/persons/${p.uuid}/delete_property/`,
    ],
    // One person's deletes go through bulk_delete with ids: [uuid] (docs/server-contract.md §6.5).
    ['delete-events', (d) => ['persons', 'delete-events', '--distinct-id', d, '--yes'], () => 'POST /api/projects/1/persons/bulk_delete/'],
    [
      'delete-recordings',
      (d) => ['persons', 'delete-recordings', '--distinct-id', d, '--yes'],
      () => 'POST /api/projects/1/persons/bulk_delete/',
    ],
    [
      'split',
      (d) => ['persons', 'split', '--distinct-id', d, '--main-distinct-id', d, '--yes'],
      (p) => `POST /api/projects/1/persons/${p.uuid}/split/`,
    ],
    ['activity', (d) => ['persons', 'activity', '--distinct-id', d], (p) => `GET /api/projects/1/persons/${p.uuid}/activity/`],
    ['cohorts', (d) => ['persons', 'cohorts', '--distinct-id', d], () => `/persons/cohorts/`],
    ['delete', (d) => ['persons', 'delete', '--distinct-id', d, '--yes'], () => 'POST /api/projects/1/persons/bulk_delete/'],
  ];

  it.each(cases)('%s', async (_verb, args, expected) => {
    const { person, distinctId } = fresh();
    let result: Awaited<ReturnType<World['run']>> | undefined;
    const paths = await pathsOf(async () => (result = await world.run(args(distinctId))));
    expect(result!.stderr).not.toMatch(/error:/);
    expect(result!.code).toBe(0);
    expect(paths[0], 'the distinct id is looked up first').toBe('GET /api/projects/1/persons/');
    expect(
      paths.some((p) => p.includes(expected(person))),
      paths.join('\n'),
    ).toBe(true);
  });

  it('timeline resolves the distinct id before asking for the timeline', async () => {
    const { person, distinctId } = fresh();
    const paths = await pathsOf(() => world.run(['persons', 'timeline', '--distinct-id', distinctId]));
    expect(paths[0]).toBe('GET /api/projects/1/persons/');
    expect(paths[1]).toBe(`GET /api/projects/1/persons/${person.uuid}/properties_timeline/`);
  });

  it('set-prop with --distinct-id changes the property of that person', async () => {
    const { person, distinctId } = fresh();
    const r = await world.run(['persons', 'set-prop', '--distinct-id', distinctId, 'tier', 'gold']);
    expect(r.code).toBe(0);
    await expect.poll(() => world.sandbox.store.getById(person.id)?.properties.tier).toBe('gold');
  });

  it('an unknown distinct id is "not found" (exit 3) and nothing is sent', async () => {
    const paths = await pathsOf(async () => {
      const r = await world.run(['persons', 'delete', '--distinct-id', 'nobody-here', '--yes']);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('no person with distinct id "nobody-here"');
    });
    expect(paths).toEqual(['GET /api/projects/1/persons/']);
  });

  it('both an id and --distinct-id, or neither, is a usage error before any request', async () => {
    const paths = await pathsOf(async () => {
      const both = await world.run(['persons', 'unset-prop', '42', '--distinct-id', 'user-42', 'plan']);
      expect(both.code).toBe(2);
      expect(both.stderr).toContain('too many arguments: with --distinct-id, give no person id');
      const neither = await world.run(['persons', 'delete', '--yes']);
      expect(neither.code).toBe(2);
      expect(neither.stderr).toContain('give a person id, --distinct-id or --email');
      const missing = await world.run(['persons', 'set-prop', '--distinct-id', 'user-42', 'plan']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('missing argument <value>');
    });
    expect(paths).toEqual([]);
  });
});
