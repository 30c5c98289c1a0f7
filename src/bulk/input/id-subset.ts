// Some of the ids of a list, each once: a bit per id of the list, and a set (id-set.ts) of those
// that are not in it. The receipt's tally of a run of ten million ids from a file counts the ids
// it sent this way, in a megabyte or two, where a set of its own would be as large as the list.
// Iterated, the list's ids come first, in its order, then the others in the order they came.
import { IdSet } from './id-set.js';
import type { PackedIds } from './packed-ids.js';

export class IdSubset implements Iterable<string> {
  private readonly bits: Uint8Array;
  private inList = 0;
  private readonly others = new IdSet();

  constructor(private readonly list: IdSet = new IdSet()) {
    this.bits = new Uint8Array((list.size + 7) >>> 3);
  }

  get size(): number {
    return this.inList + this.others.size;
  }

  get length(): number {
    return this.size;
  }

  /** Adds the id; true when it was not there yet. */
  add(id: string): boolean {
    return this.addAt(this.list.indexOf(id), id);
  }

  /** Adds every id of a request, by its place in the list where the request keeps it so. */
  addAll(ids: PackedIds): void {
    for (let i = 0; i < ids.length; i++) {
      const at = ids.placeIn(this.list, i);
      if (at >= 0) this.addAt(at, undefined);
      else this.add(ids.at(i));
    }
  }

  has(id: string): boolean {
    const at = this.list.indexOf(id);
    return at >= 0 ? (this.bits[at >>> 3] & (1 << (at & 7))) !== 0 : this.others.has(id);
  }

  *[Symbol.iterator](): IterableIterator<string> {
    if (this.inList) for (let at = 0; at < this.list.size; at++) if (this.bits[at >>> 3] & (1 << (at & 7))) yield this.list.at(at)!;
    yield* this.others;
  }

  /** The id at this place of the subset's order: counts through the list, so a place at a time. */
  at(index: number): string | undefined {
    let i = 0;
    for (const id of this) if (i++ === index) return id;
    return undefined;
  }

  slice(start = 0, end = this.size): string[] {
    const out: string[] = [];
    let i = 0;
    for (const id of this) {
      if (i >= end) break;
      if (i++ >= start) out.push(id);
    }
    return out;
  }

  /** As JSON, the list of ids. */
  toJSON(): string[] {
    return [...this];
  }

  private addAt(at: number, id: string | undefined): boolean {
    if (at < 0) return this.others.add(id!);
    const mask = 1 << (at & 7);
    if (this.bits[at >>> 3] & mask) return false;
    this.bits[at >>> 3] |= mask;
    this.inList++;
    return true;
  }
}
