import { describe, expect, it } from 'vitest';
import { chunkIds, lazyChunks } from '../../../../src/bulk/engine/chunk.js';
import { IdSet } from '../../../../src/bulk/input/id-set.js';

describe('chunkIds', () => {
  it('cuts at 1000 and numbers on from the journal', () => {
    const chunks = chunkIds(
      Array.from({ length: 2500 }, (_, i) => String(i)),
      1000,
      8,
    );
    expect(chunks.map((c) => [c.index, c.ids.length])).toEqual([
      [8, 1000],
      [9, 1000],
      [10, 500],
    ]);
    expect(chunks[2].ids[0]).toBe('2000');
    expect(() => chunkIds(['a'], 0)).toThrow(RangeError);
    expect(() => chunkIds(['a'], 1.5)).toThrow(RangeError);
    expect(chunkIds([], 1000)).toEqual([]);
  });
});

describe('lazyChunks', () => {
  it('cuts the projects in turn as they are taken, numbering on, leaving out what is skipped', () => {
    const a = new IdSet(Array.from({ length: 5 }, (_, i) => `a${i}`));
    const b = ['b0', 'b1', 'b2'];
    const chunks = lazyChunks(
      [
        { ids: a, project: '1', skip: (at) => at === 1 || at === 4 },
        { ids: b, project: '2', skip: (_at, id) => id === 'b2' },
      ],
      2,
      8,
    );
    expect([chunks.length, chunks.ids]).toEqual([3, 5]);
    const taken = [...chunks];
    expect(taken).toEqual([
      { index: 8, ids: ['a0', 'a2'], project: '1' },
      { index: 9, ids: ['a3'], project: '1' },
      { index: 10, ids: ['b0', 'b1'], project: '2' },
    ]);
    // Taken again, the same chunks (a run that checks lost answers first reads them twice).
    expect([...chunks]).toEqual(taken);
    expect(() => lazyChunks([], 0)).toThrow(RangeError);
    expect([...lazyChunks([{ ids: [] }], 1000)]).toEqual([]);
  });
});
