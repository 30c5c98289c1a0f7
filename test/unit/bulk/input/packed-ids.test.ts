import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IdSet } from '../../../../src/bulk/input/id-set.js';
import { PackedIds } from '../../../../src/bulk/input/packed-ids.js';

describe('PackedIds', () => {
  const uuids = Array.from({ length: 6 }, () => randomUUID());

  it('gives back the ids of a request as they were, whatever they are', () => {
    for (const ids of [uuids, [uuids[0], 'user-1971', uuids[1].toUpperCase()], []]) {
      const packed = new PackedIds(ids);
      expect(packed.length).toBe(ids.length);
      expect([...packed]).toEqual(ids);
      expect(ids.map((_, i) => packed.at(i))).toEqual(ids);
      expect(JSON.stringify(packed)).toBe(JSON.stringify(ids));
      expect(packed.filter((id) => id !== ids[0])).toEqual(ids.slice(1));
      expect(packed.some((id) => id === ids[1])).toBe(ids.length > 1);
    }
  });

  it('keeps a request cut from the list as its places in it, in a run or scattered', () => {
    const list = new IdSet(uuids);
    const run = new PackedIds(uuids.slice(2, 5), list);
    expect([0, 1, 2].map((i) => run.placeIn(list, i))).toEqual([2, 3, 4]);
    expect([...run]).toEqual(uuids.slice(2, 5));
    const scattered = new PackedIds([uuids[5], uuids[0]], list);
    expect([0, 1].map((i) => scattered.placeIn(list, i))).toEqual([5, 0]);
    expect([...scattered]).toEqual([uuids[5], uuids[0]]);
    // An id outside the list: the request keeps its ids itself, and has no places.
    const outside = new PackedIds([uuids[0], randomUUID()], list);
    expect(outside.placeIn(list, 0)).toBe(-1);
    expect(run.placeIn(new IdSet(uuids), 0)).toBe(-1);
  });
});
