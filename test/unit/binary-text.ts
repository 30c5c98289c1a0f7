// Text of any code points, lone surrogates included: what fast-check's `fc.string({ unit:
// 'binary' })` gives, without its cost. fast-check steers strings towards a few risky ones
// ('__proto__', 'constructor', ...) by reading them back through the unit's arbitrary, and for
// its built-in 'binary' unit that first builds a map of all 1,114,112 code points: 1.4 s of CPU
// in every test process that creates one. This unit reads a character back with
// `codePointAt`, so the risky strings are still steered towards, for nothing.
import fc from 'fast-check';

const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map(
  (codePoint) => String.fromCodePoint(codePoint),
  (char) => {
    if (typeof char !== 'string' || char.length === 0) throw new Error('not one code point');
    const codePoint = char.codePointAt(0)!;
    if (String.fromCodePoint(codePoint) !== char) throw new Error('not one code point');
    return codePoint;
  },
);

/** `fc.string({ unit: 'binary', ...constraints })`, cheaply. */
export function binaryText(constraints: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<string> {
  return fc.string({ unit: anyCodePoint, ...constraints });
}
