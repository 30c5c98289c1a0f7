// The sandbox's LZ-string decoder against the lz-string library's own encoder.
import LZString from 'lz-string';
import { describe, expect, it } from 'vitest';
import { decompressFromBase64, LzStringError } from '../src/lz-string.js';

describe('decompressFromBase64', () => {
  it.each([
    ['one character', 'a'],
    ['repeats', 'hello hello hello'],
    [
      'a capture batch with non-ASCII text',
      JSON.stringify({ api_key: 'phc_x', batch: [{ event: 'é€😀', distinct_id: 'x'.repeat(5000) }] }),
    ],
    ['a long periodic text', 'abababababababab'.repeat(300)],
    ['the empty string', ''],
  ])('decodes %s as the library encoded it', (_name, text) => {
    expect(decompressFromBase64(LZString.compressToBase64(text))).toBe(text);
  });

  it('answers null for an empty input, as the library does', () => {
    expect(decompressFromBase64('')).toBeNull();
  });

  it('refuses what is not LZ-string base64', () => {
    expect(() => decompressFromBase64('not lz-string!')).toThrow(LzStringError);
  });
});
