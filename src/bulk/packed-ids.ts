// The ids of one request as the journal keeps them in memory: 16 bytes a UUID in its canonical
// form (lower case, hyphenated, as validate.ts keeps person ids and lookups return them) instead
// of a string of about 64 bytes, so that a run of ten million ids (and its --resume, which reads
// every request back from the journal) holds them in 160 MB, not 640. A request with any other id
// (a distinct id, an integer id) keeps its strings as they are.
import { formatUuid, parseUuid } from './id-set.js';

const KEY_BYTES = 16;

export class PackedIds implements Iterable<string> {
  private readonly bytes?: Uint8Array;
  private readonly strings?: readonly string[];
  readonly length: number;

  constructor(ids: readonly string[]) {
    this.length = ids.length;
    const bytes = new Uint8Array(ids.length * KEY_BYTES);
    for (let i = 0; i < ids.length; i++)
      if (!parseUuid(ids[i], bytes, i * KEY_BYTES)) {
        this.strings = ids.slice();
        return;
      }
    this.bytes = bytes;
  }

  at(index: number): string {
    return this.bytes ? formatUuid(this.bytes, index * KEY_BYTES) : this.strings![index];
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

  /** The ids as strings, for a request or a line of JSON. */
  toArray(): string[] {
    return [...this];
  }

  toJSON(): string[] {
    return this.toArray();
  }
}
