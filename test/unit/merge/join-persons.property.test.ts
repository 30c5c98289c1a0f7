// Properties of joining persons, over random persons, keys and values among which placeholders,
// values that are not text, values a user ignores, joins through two keys and overlaps: a group is
// exactly a set of persons connected through values that name one person, never through any
// other; every person is in one group at most; no group is smaller than --min-group or larger
// than --max-group once joined.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinPersons, rowReason, type KeyedRow } from '../../../src/merge/join-persons.js';
import { comparable } from '../../../src/merge/placeholders.js';

const REAL = ['ana@x.io', 'bo@x.io', 'cy@x.io', '7', '8', 'IT'];
const PLACEHOLDERS = ['null', 'NULL', 'n/a', 'test@test.com', 'true', 'noreply@x.io', ''];
const VALUES = [...REAL, ...PLACEHOLDERS];

const world = fc.record({
  rows: fc.array(
    fc.record({
      uuid: fc.integer({ min: 0, max: 11 }).map((n) => `p${n}`),
      key: fc.constantFrom('email', 'user_id', 'country'),
      // Mostly values that may join, so that most runs make groups, unions and overlaps.
      value: fc.oneof({ arbitrary: fc.constantFrom(...REAL), weight: 3 }, { arbitrary: fc.constantFrom(...PLACEHOLDERS), weight: 1 }),
      // Mostly text; undefined for a key that is an expression (no stored type to check).
      type: fc.oneof(
        { arbitrary: fc.constant('string' as const), weight: 4 },
        { arbitrary: fc.constant(undefined), weight: 2 },
        { arbitrary: fc.constantFrom('number' as const, 'boolean' as const, 'array' as const), weight: 1 },
      ),
    }),
    { minLength: 5, maxLength: 40 },
  ),
  ignored: fc.subarray(VALUES, { maxLength: 3 }),
  minGroup: fc.integer({ min: 2, max: 4 }),
  extra: fc.integer({ min: 0, max: 6 }),
});

/** The persons reachable from each person through values that may join, found by a plain walk. */
function components(rows: KeyedRow[], ignored: ReadonlySet<string>): string[][] {
  const valid = rows.filter((r) => rowReason(r, ignored) === undefined);
  const persons = [...new Set(rows.map((r) => r.uuid))];
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const start of persons) {
    if (seen.has(start)) continue;
    const component: string[] = [];
    const todo = [start];
    seen.add(start);
    while (todo.length > 0) {
      const p = todo.pop()!;
      component.push(p);
      for (const r of valid.filter((v) => v.uuid === p))
        for (const other of valid)
          if (other.key === r.key && other.value === r.value && !seen.has(other.uuid)) {
            seen.add(other.uuid);
            todo.push(other.uuid);
          }
    }
    out.push(component.sort());
  }
  return out;
}

describe('joinPersons (properties)', () => {
  it('groups exactly the persons connected through values that name one person, within the limits, each person once', () => {
    fc.assert(
      fc.property(world, ({ rows, ignored, minGroup, extra }) => {
        const maxGroup = minGroup + extra;
        const ignoredSet = new Set(ignored.map(comparable));
        const joined = joinPersons(rows, { minGroup, maxGroup, ignored: ignoredSet });
        const all = [...joined.groups, ...joined.tooLarge];
        // Every person in one group at most.
        const members = all.flatMap((g) => g.uuids);
        expect(new Set(members).size).toBe(members.length);
        for (const g of joined.groups) {
          expect(g.uuids.length).toBeGreaterThanOrEqual(minGroup);
          expect(g.uuids.length).toBeLessThanOrEqual(maxGroup);
        }
        for (const g of joined.tooLarge) expect(g.uuids.length).toBeGreaterThan(maxGroup);
        // No group was joined through a placeholder: each value it names may join persons.
        for (const g of all)
          for (const [key, values] of Object.entries(g.values))
            for (const value of values) {
              expect(rows.some((r) => r.key === key && r.value === value && rowReason(r, ignoredSet) === undefined)).toBe(true);
            }
        // The groups are the connected sets of the valid values, those within the limits.
        const expected = components(rows, ignoredSet).filter((c) => c.length >= minGroup);
        expect(all.map((g) => [...g.uuids].sort()).sort()).toEqual(expected.sort());
      }),
      { numRuns: 300 },
    );
  });

  it('a placeholder shared by everyone joins no one', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 30 }), fc.constantFrom('null', 'N/A', 'undefined', 'test@example.com'), (n, value) => {
        const rows = Array.from({ length: n }, (_, i) => ({ uuid: `p${i}`, key: 'email', value, type: 'string' as const }));
        const joined = joinPersons(rows, { minGroup: 2, maxGroup: 100, ignored: new Set() });
        expect(joined.groups).toEqual([]);
        expect(joined.leftOut).toHaveLength(1);
        expect(joined.leftOut[0].persons).toBe(n);
      }),
    );
  });
});
