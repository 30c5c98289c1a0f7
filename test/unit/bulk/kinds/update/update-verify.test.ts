import { describe, expect, it } from 'vitest';
import { shows } from '../../../../../src/bulk/kinds/update/update-verify.js';

describe('shows', () => {
  it('reads an object value back as applied whatever the order of its keys', () => {
    const expected = { set: { meta: { zeta: 1, alpha: 2 } }, setOnce: [], unset: ['email'], own: new Map() };
    expect(shows({ meta: { alpha: 2, zeta: 1 } }, expected, undefined)).toBe(true);
    expect(shows({ meta: { alpha: 2, zeta: 1 }, email: 'a@b.c' }, expected, undefined)).toBe(false);
    expect(shows({ meta: { alpha: 2 } }, expected, undefined)).toBe(false);
  });
});
