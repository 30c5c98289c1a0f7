import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { counted, formatNumber, plural } from '../../../src/io/counts.js';

describe('counts', () => {
  it('groups digits by commas whatever the locale', () => {
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(1234567)).toBe('1,234,567');
  });

  it("writes every number as toLocaleString('en-US') does, whole numbers by hand", () => {
    fc.assert(fc.property(fc.oneof(fc.maxSafeInteger(), fc.double()), (n) => formatNumber(n) === n.toLocaleString('en-US')));
    for (const n of [-0, 0.5, 1.0005, -1234.5678, 2 ** 60, NaN, Infinity]) expect(formatNumber(n)).toBe(n.toLocaleString('en-US'));
  });

  it('gives the noun that agrees with the count', () => {
    expect(counted(1, 'request')).toBe('1 request');
    expect(counted(0, 'request')).toBe('0 requests');
    expect(counted(2000, 'person')).toBe('2,000 persons');
    expect(counted(1, 'query', 'queries')).toBe('1 query');
    expect(counted(3, 'query', 'queries')).toBe('3 queries');
    expect(plural(1, 'page was', 'pages were')).toBe('page was');
    expect(plural(2, 'page was', 'pages were')).toBe('pages were');
  });
});
