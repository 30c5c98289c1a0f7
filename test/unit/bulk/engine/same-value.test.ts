import { describe, expect, it } from 'vitest';
import { sameValue } from '../../../../src/bulk/engine/same-value.js';

describe('sameValue', () => {
  it('takes objects with the same keys and values in any order as the same', () => {
    // The order PostgreSQL's jsonb gives keys back in: shorter first.
    expect(sameValue({ b: { x: 3, yy: 2 }, zeta: 1 }, { zeta: 1, b: { yy: 2, x: 3 } })).toBe(true);
    expect(sameValue([{ a: 1, bb: 2 }], [{ bb: 2, a: 1 }])).toBe(true);
    expect(sameValue('07', '07')).toBe(true);
    expect(sameValue(null, null)).toBe(true);
  });

  it('tells other values apart: order of arrays, missing or extra keys, types', () => {
    expect(sameValue([1, 2], [2, 1])).toBe(false);
    expect(sameValue({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameValue({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(sameValue(7, '7')).toBe(false);
    expect(sameValue(null, {})).toBe(false);
    expect(sameValue({}, [])).toBe(false);
    expect(sameValue({ a: { b: 1 } }, { a: { b: 2 } })).toBe(false);
  });
});
