// The ids of one request as the journal keeps them in memory. Most requests carry ids of the
// input's own list (a file of person ids), cut from it in order: such a request is kept as its
// place in that list (a start, or a place per id), which costs nothing per id. Others keep 16
// bytes a UUID in its canonical form (lower case, hyphenated, as validate.ts keeps person ids and
// lookups return them) instead of a string of about 64 bytes; a request with any other id (a
// distinct id, an integer id) keeps its strings as they are. So a run of ten million ids, and its
// --resume, which reads every request back from the journal, hold no second copy of them.
import { formatUuid, parseUuid, type IdSet } from './id-set.js';

const KEY_BYTES = 16;

export class PackedIds implements Iterable<string> {
  /** The ids are `within`'s from `start` on, or at `places`. */
  private readonly start?: number;
  private readonly places?: Int32Array;
  private readonly bytes?: Uint8Array;
  private readonly strings?: readonly string[];
  readonly length: number;

  /** `within`: the list the ids are most likely cut from (the input's). */
  constructor(
    ids: readonly string[],
    private readonly within?: IdSet,
  ) {
    this.length = ids.length;
    if (within && ids.length) {
      const places = new Int32Array(ids.length);
      let found = true;
      let consecutive = true;
      for (let i = 0; i < ids.length && found; i++) {
        places[i] = within.indexOf(ids[i]);
        found = places[i] >= 0;
        consecutive &&= places[i] === places[0] + i;
      }
      if (found) {
        if (consecutive) this.start = places[0];
        else this.places = places;
        return;
      }
    }
    const bytes = new Uint8Array(ids.length * KEY_BYTES);
    for (let i = 0; i < ids.length; i++)
      if (!parseUuid(ids[i], bytes, i * KEY_BYTES)) {
        this.strings = ids.slice();
        return;
      }
    this.bytes = bytes;
  }

  at(index: number): string {
    if (this.start !== undefined) return this.within!.at(this.start + index)!;
    if (this.places) return this.within!.at(this.places[index])!;
    return this.bytes ? formatUuid(this.bytes, index * KEY_BYTES) : this.strings![index];
  }

  /** The place in `list` of the id at `index`, when the request is kept as places in it; else -1. */
  placeIn(list: IdSet, index: number): number {
    if (list !== this.within) return -1;
    if (this.start !== undefined) return this.start + index;
    return this.places ? this.places[index] : -1;
  }

  *[Symbol.iterator](): IterableIterator<string> {
    for (let i = 0; i < this.length; i++) yield this.at(i);
  }

  filter(keep: (id: string) => boolean): string[] {
    const out: string[] = [];
    for (const id of this) if (keep(id)) out.push(id);
    return out;
  }

  some(test: (id: string) => boolean): boolean {
    for (const id of this) if (test(id)) return true;
    return false;
  }

  /** As JSON, the list of ids. */
  toJSON(): string[] {
    return [...this];
  }
}
