import { describe, expect, it } from 'vitest';
import { chunkIds } from '../../../src/bulk/chunk.js';

describe('chunkIds', () => {
  it('cuts at 1000 and numbers on from the journal', () => {
    const chunks = chunkIds(
      Array.from({ length: 2500 }, (_, i) => String(i)),
      8,
    );
    expect(chunks.map((c) => [c.index, c.ids.length])).toEqual([
      [8, 1000],
      [9, 1000],
      [10, 500],
    ]);
    expect(chunks[2].ids[0]).toBe('2000');
    expect(() => chunkIds(['a'], 1, 1001)).toThrow(RangeError);
    expect(chunkIds([])).toEqual([]);
  });
});
