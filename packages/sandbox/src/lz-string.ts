// LZ-string decompression, for capture bodies sent with `compression=lz64` (older posthog-js).
//
// The algorithm is Pieroxy's lz-string (https://github.com/pieroxy/lz-string, libs/lz-string.js,
// `_decompress` and `decompressFromBase64`, MIT licence), which PostHog's capture service decodes
// with its Rust port (rust/capture/src/payload/decompression.rs, `lz_string::decompress_from_base64`).
// Written here because the sandbox has no runtime dependencies.

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';
const BASE64_VALUE = new Map([...BASE64_ALPHABET].map((c, i) => [c, i]));

/** Thrown for input that is not LZ-string data. */
export class LzStringError extends Error {}

/** `LZString.decompressFromBase64`: null for an empty input, as the library answers. */
export function decompressFromBase64(input: string): string | null {
  if (input === '') return null;
  return decompress(input.length, 32, (index) => {
    const value = BASE64_VALUE.get(input.charAt(index));
    if (value === undefined) throw new LzStringError(`not LZ-string base64: "${input.charAt(index)}" at ${index}`);
    return value;
  });
}

/**
 * The dictionary decoder: reads `bitsPerChar`-bit values from `valueAt`, most significant bit
 * first, and rebuilds the text from codes of growing width (2 bits at first, one more each time
 * the dictionary doubles). Codes 0 and 1 bring a new 8- or 16-bit character, 2 ends the stream.
 */
function decompress(length: number, resetValue: number, valueAt: (index: number) => number): string {
  const dictionary: string[] = ['0', '1', '2'];
  let enlargeIn = 4;
  let dictSize = 4;
  let numBits = 3;
  const result: string[] = [];
  // The current value, the bit of it read next (starting at the top), and the next value's index.
  let value = valueAt(0);
  let position = resetValue;
  let index = 1;

  const readBits = (count: number): number => {
    let bits = 0;
    const max = 2 ** count;
    for (let power = 1; power !== max; power <<= 1) {
      const bit = value & position;
      position >>= 1;
      if (position === 0) {
        position = resetValue;
        // Past the end the library reads a missing character as 0.
        value = index < length ? valueAt(index) : 0;
        index++;
      }
      if (bit) bits |= power;
    }
    return bits;
  };

  let entry: string;
  switch (readBits(2)) {
    case 0:
      entry = String.fromCharCode(readBits(8));
      break;
    case 1:
      entry = String.fromCharCode(readBits(16));
      break;
    case 2:
      return '';
    default:
      throw new LzStringError('not LZ-string data');
  }
  dictionary[3] = entry;
  let w = entry;
  result.push(entry);

  for (;;) {
    if (index > length) throw new LzStringError('LZ-string data ends early');
    let code = readBits(numBits);
    if (code === 0 || code === 1) {
      dictionary[dictSize++] = String.fromCharCode(readBits(code === 0 ? 8 : 16));
      code = dictSize - 1;
      enlargeIn--;
    } else if (code === 2) {
      return result.join('');
    }
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
    if (dictionary[code] !== undefined) entry = dictionary[code];
    else if (code === dictSize) entry = w + w.charAt(0);
    else throw new LzStringError('not LZ-string data');
    result.push(entry);
    dictionary[dictSize++] = w + entry.charAt(0);
    enlargeIn--;
    w = entry;
    if (enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
  }
}
