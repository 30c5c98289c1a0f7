// Grouping never joins different people: `persons duplicates` piped into `persons merge --groups -
// --yes`, as its help shows, in this process against the sandbox. Three different people share
// each of the values a form or a test suite fills in when the real one is unknown, and values that
// are not text; none of them is grouped, each value left out is named with its reason, and the
// merge changes nobody. Real duplicates beside them are still found and merged.
// On the real clock: test/cli/persons/duplicates.test.ts pipes the same into a merge.
// And --max-group holds for the group as it would be merged, after the keys are joined.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
let seq = 0;
const distinctIdOf = new Map<string, string>();
/** A person with these properties and one distinct id of its own; its UUID. */
function person(properties: Record<string, unknown>): string {
  seq++;
  const uuid = `0190${String(seq).padStart(4, '0')}-0000-7000-8000-00000000abcd`;
  world.sandbox.store.addPerson({
    uuid,
    createdAtUs: Date.UTC(2026, 0, 1 + seq) * 1000,
    distinctIds: [`placeholder-test-${seq}`],
    properties,
    isIdentified: true,
  });
  distinctIdOf.set(uuid, `placeholder-test-${seq}`);
  return uuid;
}

const PLACEHOLDERS: unknown[] = ['null', 'n/a', 'test@test.com', 'NoReply@corp.example', true, 123, ['a@x.io'], { a: 1 }];

beforeAll(async () => {
  world = await startVirtualWorld({ persons: 10 });
});
afterAll(() => world.close());

describe('persons duplicates | persons merge --groups - --yes', () => {
  it('never groups persons through a placeholder or a value that is not text, names each, and the merge changes nobody', async () => {
    const people = PLACEHOLDERS.map((email) => [
      person({ email, name: 'one' }),
      person({ email, name: 'two' }),
      person({ email, name: 'three' }),
    ]);
    const twins = [person({ email: 'ana@corp.example' }), person({ email: ' ANA@corp.example' })];
    // A value a user knows to be shared by many: left out when given to --ignore-value.
    const shared = [person({ email: 'it-desk@corp.example' }), person({ email: 'IT-desk@corp.example' })];
    const dup = await world.run(['persons', 'duplicates', '--ignore-value', 'It-Desk@Corp.Example', '-o', 'ndjson']);
    expect(dup.code, dup.stderr).toBe(0);
    const groups = dup.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { persons: { uuid: string }[] });
    expect(groups.map((g) => g.persons.map((p) => p.uuid).sort())).toEqual([[...twins].sort()]);
    expect(dup.stderr).toContain(
      `project 1: left out email="null" (3 persons): a placeholder, not one person's (PostHog refuses to merge on it)`,
    );
    expect(dup.stderr).toContain(`left out email="n/a" (3 persons): a placeholder or test value, not one person's`);
    expect(dup.stderr).toContain(`left out email="test@test.com" (3 persons)`);
    expect(dup.stderr).toContain(`left out email="noreply@corp.example" (3 persons)`);
    // `true` as text is PostHog's placeholder word already: left out before its persons are read.
    expect(dup.stderr).toContain(`left out email="true" (3 persons): a placeholder, not one person's`);
    expect(dup.stderr).toContain(`left out email=123 (3 persons): a number, not text that names one person`);
    expect(dup.stderr).toContain(`left out email=["a@x.io"] (3 persons): a list, not text that names one person`);
    expect(dup.stderr).toContain(`left out email={"a":1} (3 persons): an object, not text that names one person`);
    expect(dup.stderr).toContain(`left out email="it-desk@corp.example" (2 persons): given to --ignore-value`);

    const merged = await world.run(['persons', 'merge', '--groups', '-', '--yes', '-o', 'json'], { stdin: dup.stdout });
    expect(merged.code, merged.stderr).toBe(0);
    const store = world.sandbox.store;
    for (const uuids of [...people, shared]) {
      const now = uuids.map((uuid) => store.getByUuid(uuid));
      expect(now.every(Boolean), 'nobody merged away').toBe(true);
      expect(new Set(now.map((p) => p!.distinctIds.join())).size).toBe(uuids.length);
    }
    // The twins are one person now, holding both their distinct ids.
    const [a, b] = twins.map((uuid) => distinctIdOf.get(uuid)!);
    expect(store.getByDistinctId(a)!.uuid).toBe(store.getByDistinctId(b)!.uuid);
  });

  it('--max-group holds for the group once its keys are joined, though every value alone is shared by fewer', async () => {
    // Pairs by e-mail address, threes by office: six persons, one chain, each value shared by 3 at most.
    const six = Array.from({ length: 6 }, (_, i) =>
      person({ email: `chain${Math.floor(i / 2)}@corp.example`, office: i < 3 ? 'north' : 'south' }),
    );
    const res = await world.run(['persons', 'duplicates', '--by', 'email', '--by', 'office', '--max-group', '4', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    const groups = JSON.parse(res.stdout) as { persons: { uuid: string }[] }[];
    expect(groups.filter((g) => g.persons.some((p) => six.includes(p.uuid)))).toEqual([]);
    expect(res.stderr).toContain(
      'project 1: a group of 6 persons, joined through email=chain0@corp.example, email=chain1@corp.example, email=chain2@corp.example, office=north, office=south, is more than --max-group 4: left out',
    );
    const wider = await world.run(['persons', 'duplicates', '--by', 'email', '--by', 'office', '--max-group', '6', '-o', 'json']);
    const found = (JSON.parse(wider.stdout) as { persons: { uuid: string }[] }[]).filter((g) =>
      g.persons.some((p) => six.includes(p.uuid)),
    );
    expect(found.map((g) => g.persons.map((p) => p.uuid).sort())).toEqual([[...six].sort()]);
  });
});
