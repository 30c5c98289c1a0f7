import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IdSet } from '../../../../src/bulk/input/id-set.js';
import { IdSubset } from '../../../../src/bulk/input/id-subset.js';
import { PackedIds } from '../../../../src/bulk/input/packed-ids.js';

describe('IdSubset', () => {
  it('keeps ids of the list (by a bit) and others, each once: the list order first, then the others as they came', () => {
    const uuids = Array.from({ length: 10 }, () => randomUUID());
    const list = new IdSet(uuids);
    const sent = new IdSubset(list);
    const stranger = randomUUID();
    expect(sent.add(uuids[7])).toBe(true);
    expect(sent.add('user-1')).toBe(true);
    sent.addAll(new PackedIds(uuids.slice(2, 5), list));
    sent.addAll(new PackedIds([uuids[3], stranger]));
    expect(sent.add(uuids[7])).toBe(false);
    expect(sent.add(stranger)).toBe(false);
    const expected = [uuids[2], uuids[3], uuids[4], uuids[7], 'user-1', stranger];
    expect([sent.size, sent.length]).toEqual([6, 6]);
    expect([...sent]).toEqual(expected);
    expect(sent.slice(1, 5)).toEqual(expected.slice(1, 5));
    expect(sent.at(4)).toBe('user-1');
    expect(JSON.stringify(sent)).toBe(JSON.stringify(expected));
    expect([sent.has(uuids[3]), sent.has(uuids[0]), sent.has(stranger), sent.has('user-2')]).toEqual([true, false, true, false]);
  });

  it('works without a list, as a set of its own', () => {
    const sent = new IdSubset();
    sent.addAll(new PackedIds(['a', 'b', 'a']));
    expect([...sent]).toEqual(['a', 'b']);
  });
});
