// Deterministic randomness for the sandbox. Everything the sandbox invents (persons, keys, fault
// decisions) comes from here so that the same seed always yields byte-identical data and the
// same sequence of faults, which is what makes end-to-end tests reproducible.

/** mulberry32: tiny, fast, good enough for test data (not for secrets). Returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** murmur3's finaliser over two words: a well-mixed 32-bit seed per (seed, index) pair, so any
 * person can be generated on its own without generating the ones before it. */
export function hash32(a: number, b: number): number {
  let h = (Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ b) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h ^ b, 0x27d4eb2f);
  h ^= h >>> 15;
  return h >>> 0;
}

/** Modular inverse of an odd number mod 2^32 (Newton iteration), for the reversible scrambler. */
function inverseOdd(a: number): number {
  let x = a >>> 0;
  for (let i = 0; i < 5; i++) x = Math.imul(x, 2 - Math.imul(a, x)) >>> 0;
  return x >>> 0;
}

const MUL_A = 0x2c1b3c6d;
const MUL_B = 0x297a2d39;
const MUL_A_INV = inverseOdd(MUL_A | 1);
const MUL_B_INV = inverseOdd(MUL_B | 1);

/**
 * A bijection on uint32 that looks random. Person UUIDs and anonymous distinct ids embed
 * scramble(index) so they can be mapped back to the person without building a 100k-entry index
 * at start-up (start-up time and memory matter: the sandbox is started in every e2e test).
 */
export function scramble32(x: number, key: number): number {
  let y = Math.imul((x ^ key) >>> 0, MUL_A | 1) >>> 0;
  y = (y ^ (y >>> 16)) >>> 0;
  return Math.imul(y, MUL_B | 1) >>> 0;
}

export function unscramble32(y: number, key: number): number {
  let x = Math.imul(y >>> 0, MUL_B_INV) >>> 0;
  x = (x ^ (x >>> 16)) >>> 0;
  return ((Math.imul(x, MUL_A_INV) >>> 0) ^ key) >>> 0;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function base62(rand: () => number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[Math.floor(rand() * 62)];
  return out;
}

const HEX2 = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Zero-padded lower-case hex of an unsigned value (width <= 8). Table-driven because UUID
 * formatting was the hot spot of person generation. */
export function hex(value: number, width: number): string {
  const v = value >>> 0;
  const full = HEX2[v >>> 24] + HEX2[(v >>> 16) & 255] + HEX2[(v >>> 8) & 255] + HEX2[v & 255];
  return width === 8 ? full : full.slice(8 - width);
}

/** The text of the UUID being rendered, written as bytes: one string, not the pieces of a
 * concatenation (half the CPU, and a fraction of the garbage, of a template of six hex() pieces).
 * Every person's UUID is made each time it is read, and an export's keyset walk renders the UUID
 * of every event it orders. */
const UUID_TEXT = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1');
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/** Writes the low `digits` hex digits of `value` into UUID_TEXT at `at`. */
function putHex(value: number, digits: number, at: number): void {
  let v = value >>> 0;
  for (let i = at + digits - 1; i >= at; i--) {
    UUID_TEXT[i] = HEX_DIGITS[v & 15];
    v >>>= 4;
  }
}

/** The 8-4-4-4-12 text of the UUID whose 128 bits are the words a, b, c and d, highest first. */
export function uuidText(a: number, b: number, c: number, d: number): string {
  putHex(a, 8, 0);
  putHex(b >>> 16, 4, 9);
  putHex(b, 4, 14);
  putHex(c >>> 16, 4, 19);
  putHex(c, 4, 24);
  putHex(d, 8, 28);
  return UUID_TEXT.toString('latin1', 0, 36);
}
