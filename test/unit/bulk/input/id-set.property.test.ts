// IdSet behaves as a Set<string> of the same ids: the same answers to add and has, the same size,
// the same order, the index of each id in that order, and sorted the order of the default sort;
// whatever mix of UUIDs (canonical or not) and other ids it is given.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { IdSet } from '../../../../src/bulk/input/id-set.js';
import { idListSha256 } from '../../../../src/bulk/input/validate.js';

const id = fc.oneof(
  fc.uuid(),
  // UUIDs sharing their first bytes, to fill one bucket of the sort.
  fc
    .string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 12, maxLength: 12 })
    .map((tail) => `0190ffff-0000-7000-8000-${tail}`),
  fc.uuid().map((u) => u.toUpperCase()),
  fc.constantFrom('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'gggggggg-0000-0000-0000-000000000000'),
  fc.string({ maxLength: 40 }),
  fc.integer({ min: 1, max: 50 }).map(String),
);

describe('IdSet (properties)', () => {
  it('answers as a Set<string> does', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), id), { maxLength: 300 }), (ops) => {
        const model = new Set<string>();
        const set = new IdSet();
        for (const [adding, value] of ops) {
          if (adding) expect(set.add(value)).toBe(!model.has(value));
          else expect(set.has(value)).toBe(model.has(value));
          if (adding) model.add(value);
        }
        expect(set.size).toBe(model.size);
        const order = [...model];
        expect([...set]).toEqual(order);
        order.forEach((value, i) => expect(set.indexOf(value)).toBe(i));
        expect([...set.sorted()]).toEqual([...model].sort());
        // The hash that binds journals and receipts is the same from the set as from a list.
        expect(idListSha256(set)).toBe(idListSha256([...model]));
      }),
      { numRuns: 300 },
    );
  });
});
