// A set of ids small enough for ten million of them. A JavaScript string of a UUID costs about 56
// bytes and a Set entry about 30 more; here a UUID in its canonical form (lower case, hyphenated,
// as validate.ts keeps person ids) is 16 bytes in pages of a fixed size, found through an
// open-addressing table of 4-byte slots. Any other id (a distinct id, an integer id, a UUID in
// upper case, which must come back exactly as given) is kept as a string. Ids come back in the
// order they were first added, and each has an index in that order (`indexOf`).

/** Ids per page of 16-byte keys: a page is 1 MiB, and the set never copies one to grow. */
const PAGE_IDS = 1 << 16;
const KEY_BYTES = 16;
/** Below this many ids, sorted() sorts the strings instead of bucketing the UUIDs. */
const SHORT_LIST = 4096;

/** The value of a hex digit's char code, or -1. Lower case only: the canonical form. */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = 10 + i;
const DIGIT_CODES = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));

/** Reads a canonical UUID into `out` at `at`; false (nothing to trust in `out`) for any other text. */
export function parseUuid(id: string, out: Uint8Array, at: number): boolean {
  if (id.length !== 36) return false;
  let k = at;
  for (let i = 0; i < 36;) {
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (id.charCodeAt(i) !== 45) return false;
      i++;
      continue;
    }
    const a = id.charCodeAt(i);
    const b = id.charCodeAt(i + 1);
    const hi = a < 128 ? HEX[a] : -1;
    const lo = b < 128 ? HEX[b] : -1;
    if (hi < 0 || lo < 0) return false;
    out[k++] = (hi << 4) | lo;
    i += 2;
  }
  return true;
}

/** The text of a UUID as char codes, filled in place: a string made by 20 concatenations would
 * be a tree of 20 pieces (about 600 bytes) until something flattens it. */
const TEXT = new Array<number>(36).fill(45);
const TEXT_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/** The canonical text (lower case, hyphenated) of the 16 bytes of a UUID at `at`. */
export function formatUuid(bytes: Uint8Array, at: number): string {
  for (let i = 0; i < KEY_BYTES; i++) {
    const b = bytes[at + i];
    TEXT[TEXT_AT[i]] = DIGIT_CODES[b >> 4];
    TEXT[TEXT_AT[i] + 1] = DIGIT_CODES[b & 15];
  }
  return String.fromCharCode.apply(null, TEXT);
}

/** Mixes all 16 bytes: UUIDs of version 7 share their leading (time) bytes. */
function hashKey(bytes: Uint8Array, at: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < KEY_BYTES; i++) h = Math.imul(h ^ bytes[at + i], 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

/** A list of ids in order: an array, or an IdSet, which holds ten million of them compactly. */
export type Ids = Pick<readonly string[], 'length' | 'at' | 'slice'> & Iterable<string>;

export class IdSet implements Iterable<string> {
  private readonly pages: Uint8Array[] = [];
  private uuids = 0;
  /** Slots hold a UUID's number + 1; 0 is empty. */
  private table = new Int32Array(1024);
  private readonly scratch = new Uint8Array(KEY_BYTES);
  /** Ids that are not canonical UUIDs, with their index in the order of the set; made again
   * from `othersList` when it was let go (`letLookupGo`). */
  private othersMap?: Map<string, number> = new Map();
  /** The index in the set's order of each UUID, kept once both kinds are present (else the
   * UUIDs' own numbers are their indexes, or the others' come first in a set without UUIDs). */
  private order?: Int32Array;
  /** For each index of the set's order: a UUID's number, or -1 - an other's position. */
  private sequence?: Int32Array;
  private othersList: string[] = [];

  constructor(ids?: Iterable<string>) {
    if (ids) for (const id of ids) this.add(id);
  }

  get size(): number {
    return this.uuids + this.othersList.length;
  }

  /** The number of ids, as a list names it: the set stands for the list of its ids, in order. */
  get length(): number {
    return this.size;
  }

  /** As JSON, the list it stands for. */
  toJSON(): string[] {
    return [...this];
  }

  /** The id at this place in the order of the set (0 for the first added), or undefined. */
  at(index: number): string | undefined {
    if (index < 0 || index >= this.size) return undefined;
    if (this.sequence) {
      const s = this.sequence[index];
      return s >= 0 ? this.uuidAt(s) : this.othersList[-1 - s];
    }
    return index < this.uuids ? this.uuidAt(index) : this.othersList[index - this.uuids];
  }

  /** The ids from `start` to before `end`, as strings: a request's worth at a time. */
  slice(start = 0, end = this.size): string[] {
    const out: string[] = [];
    for (let i = Math.max(0, start); i < Math.min(end, this.size); i++) out.push(this.at(i)!);
    return out;
  }

  /** Adds the id; true when it was not in the set yet. */
  add(id: string): boolean {
    if (parseUuid(id, this.scratch, 0)) {
      const slot = this.find(this.scratch, 0);
      if (this.table[slot] !== 0) return false;
      const n = this.uuids;
      const page = n >>> 16;
      if (page === this.pages.length) this.pages.push(new Uint8Array(PAGE_IDS * KEY_BYTES));
      this.pages[page].set(this.scratch, (n & (PAGE_IDS - 1)) * KEY_BYTES);
      this.table[slot] = n + 1;
      this.uuids++;
      this.remember(n);
      if (this.uuids * 4 > this.table.length * 3) this.grow();
      return true;
    }
    if (this.others.has(id)) return false;
    this.others.set(id, this.size);
    this.othersList.push(id);
    this.remember(-this.othersList.length);
    return true;
  }

  has(id: string): boolean {
    if (parseUuid(id, this.scratch, 0)) return this.table[this.find(this.scratch, 0)] !== 0;
    return this.others.has(id);
  }

  /** The id's place in the order of the set (0 for the first added), or -1. */
  indexOf(id: string): number {
    if (parseUuid(id, this.scratch, 0)) {
      const n = this.table[this.find(this.scratch, 0)] - 1;
      if (n < 0) return -1;
      return this.sequence ? this.positionOf(n) : n;
    }
    return this.others.get(id) ?? -1;
  }

  *[Symbol.iterator](): IterableIterator<string> {
    if (this.sequence) {
      const size = this.size;
      for (let i = 0; i < size; i++) {
        const s = this.sequence[i];
        yield s >= 0 ? this.uuidAt(s) : this.othersList[-1 - s];
      }
      return;
    }
    for (let n = 0; n < this.uuids; n++) yield this.uuidAt(n);
    yield* this.othersList;
  }

  /**
   * The ids in the order of JavaScript's default sort (by UTF-16 code units), made one at a time:
   * the UUIDs by their bytes, which sort as their canonical text does, bucketed by their first two
   * bytes and merged with the other ids. Holds 4 bytes an id, not a sorted copy of the strings.
   */
  *sorted(): IterableIterator<string> {
    // A short list is sorted as strings: the buckets' two passes over 65,536 counts would cost a
    // short run more than the sort.
    if (this.size < SHORT_LIST) {
      yield* [...this].sort();
      return;
    }
    const count = new Uint32Array(65537);
    for (let n = 0; n < this.uuids; n++) {
      const page = this.pages[n >>> 16];
      const at = (n & (PAGE_IDS - 1)) * KEY_BYTES;
      count[((page[at] << 8) | page[at + 1]) + 1]++;
    }
    for (let b = 1; b <= 65536; b++) count[b] += count[b - 1];
    const order = new Uint32Array(this.uuids);
    const next = count.slice(0, 65536);
    for (let n = 0; n < this.uuids; n++) {
      const page = this.pages[n >>> 16];
      const at = (n & (PAGE_IDS - 1)) * KEY_BYTES;
      order[next[(page[at] << 8) | page[at + 1]]++] = n;
    }
    const compare = (a: number, b: number): number => {
      const pa = this.pages[a >>> 16];
      const pb = this.pages[b >>> 16];
      const ia = (a & (PAGE_IDS - 1)) * KEY_BYTES;
      const ib = (b & (PAGE_IDS - 1)) * KEY_BYTES;
      for (let i = 2; i < KEY_BYTES; i++) if (pa[ia + i] !== pb[ib + i]) return pa[ia + i] - pb[ib + i];
      return 0;
    };
    const others = [...this.othersList].sort();
    let o = 0;
    for (let b = 0; b < 65536; b++) {
      const bucket = order.subarray(count[b], count[b + 1]);
      if (bucket.length > 1) bucket.sort(compare);
      for (const n of bucket) {
        const id = this.uuidAt(n);
        while (o < others.length && others[o] < id) yield others[o++];
        yield id;
      }
    }
    while (o < others.length) yield others[o++];
  }

  /**
   * Lets the lookup of the ids that are not UUIDs go (a map entry of about 50 bytes each, a
   * million e-mail addresses' worth of it) once the list is read; `has`, `indexOf` and `add`
   * make it again on their first need.
   */
  letLookupGo(): void {
    if (this.othersList.length) this.othersMap = undefined;
  }

  private get others(): Map<string, number> {
    if (!this.othersMap) {
      const map = new Map<string, number>();
      if (this.sequence) {
        const size = this.size;
        for (let i = 0; i < size; i++) if (this.sequence[i] < 0) map.set(this.othersList[-1 - this.sequence[i]], i);
      } else this.othersList.forEach((id, k) => map.set(id, this.uuids + k));
      this.othersMap = map;
    }
    return this.othersMap;
  }

  private uuidAt(n: number): string {
    return formatUuid(this.pages[n >>> 16], (n & (PAGE_IDS - 1)) * KEY_BYTES);
  }

  /** Where `order` says the UUID number `n` sits; built on first need. */
  private positionOf(n: number): number {
    if (!this.order || this.order.length < this.uuids) {
      this.order = new Int32Array(Math.max(this.uuids * 2, 16));
      const size = this.size;
      for (let i = 0; i < size; i++) if (this.sequence![i] >= 0) this.order[this.sequence![i]] = i;
    }
    return this.order[n];
  }

  /** Notes the order once the set holds both kinds: `entry` is a UUID's number or -1 - an other's position. */
  private remember(entry: number): void {
    const index = this.size - 1;
    if (!this.sequence) {
      if (this.uuids === 0 || this.othersList.length === 0) return;
      // The second kind arrives: everything so far was of the first one.
      this.sequence = new Int32Array(Math.max(16, index * 2));
      if (entry >= 0) for (let i = 0; i < index; i++) this.sequence[i] = -1 - i;
      else for (let i = 0; i < index; i++) this.sequence[i] = i;
    } else if (index >= this.sequence.length) {
      const bigger = new Int32Array(this.sequence.length * 2);
      bigger.set(this.sequence);
      this.sequence = bigger;
    }
    this.sequence[index] = entry;
    if (this.order && entry >= 0) {
      if (entry >= this.order.length) this.order = undefined;
      else this.order[entry] = index;
    }
  }

  /** The slot of the key: where it is, or the empty one where it would go. */
  private find(key: Uint8Array, at: number): number {
    const mask = this.table.length - 1;
    let slot = hashKey(key, at) & mask;
    for (;;) {
      const n = this.table[slot];
      if (n === 0 || this.equals(n - 1, key, at)) return slot;
      slot = (slot + 1) & mask;
    }
  }

  private equals(n: number, key: Uint8Array, at: number): boolean {
    const page = this.pages[n >>> 16];
    const base = (n & (PAGE_IDS - 1)) * KEY_BYTES;
    for (let i = 0; i < KEY_BYTES; i++) if (page[base + i] !== key[at + i]) return false;
    return true;
  }

  private grow(): void {
    this.table = new Int32Array(this.table.length * 2);
    const mask = this.table.length - 1;
    for (let n = 0; n < this.uuids; n++) {
      const page = this.pages[n >>> 16];
      let slot = hashKey(page, (n & (PAGE_IDS - 1)) * KEY_BYTES) & mask;
      while (this.table[slot] !== 0) slot = (slot + 1) & mask;
      this.table[slot] = n + 1;
    }
  }
}
