// Cuts the ids to send into requests of at most the kind's chunk size (KindRequests.chunkSize),
// numbered on from the journal's last chunk so that numbers stay unique across resumed runs.
import type { Ids } from '../input/id-set.js';
import type { Chunk } from './runner.js';

/** Requests to send, in order, made as they are taken: `length` requests carrying `ids` ids. */
export interface ChunkList extends Iterable<Chunk> {
  readonly length: number;
  readonly ids: number;
}

/** The ids of one project, and which of them to leave out (answered by an earlier run), by their
 * place in `ids` and their value. */
export interface ChunkSource {
  ids: Ids;
  project?: string;
  skip?: (index: number, id: string) => boolean;
}

function checkSize(size: number): void {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunk size must be a whole number from 1, not ${size}`);
}

export function chunkIds(ids: readonly string[], size: number, firstIndex = 1, project?: string): Chunk[] {
  checkSize(size);
  const chunks: Chunk[] = [];
  for (let i = 0; i < ids.length; i += size)
    chunks.push({ index: firstIndex + chunks.length, ids: ids.slice(i, i + size), ...(project === undefined ? {} : { project }) });
  return chunks;
}

/**
 * The chunks of these sources, project after project, made one at a time as they are taken: the
 * chunks of ten million ids made up front would hold every id as a string (640 MB) while the
 * sources hold them in 16 bytes each (id-set.ts). Counted once, with what is skipped, up front.
 */
export function lazyChunks(sources: ChunkSource[], size: number, firstIndex = 1): ChunkList {
  checkSize(size);
  let length = 0;
  let ids = 0;
  for (const s of sources) {
    let kept = s.ids.length;
    if (s.skip) {
      let i = 0;
      for (const id of s.ids) if (s.skip(i++, id)) kept--;
    }
    ids += kept;
    length += Math.ceil(kept / size);
  }
  return {
    length,
    ids,
    *[Symbol.iterator]() {
      let index = firstIndex;
      for (const s of sources) {
        const project = s.project === undefined ? {} : { project: s.project };
        let part: string[] = [];
        let i = 0;
        for (const id of s.ids) {
          if (s.skip?.(i++, id)) continue;
          part.push(id);
          if (part.length === size) {
            yield { index: index++, ids: part, ...project };
            part = [];
          }
        }
        if (part.length) yield { index: index++, ids: part, ...project };
      }
    },
  };
}

/** Requests carrying the ids answers asked to be sent again (journal-state.ts toSendAgain: id →
 * project), project by project, each marked as a resend. */
export function resendChunks(sendAgain: Map<string, string>, size: number, firstIndex: number): Chunk[] {
  const byProject = new Map<string, string[]>();
  for (const [id, project] of sendAgain) byProject.set(project, [...(byProject.get(project) ?? []), id]);
  let next = firstIndex;
  return [...byProject].flatMap(([project, ids]) => {
    const mine = chunkIds(ids, size, next, project).map((c) => ({ ...c, resend: true }));
    next += mine.length;
    return mine;
  });
}

/** These chunks, then those of `rest`. */
export function chunksThen(first: Chunk[], rest: ChunkList): ChunkList {
  return {
    length: first.length + rest.length,
    ids: first.reduce((k, c) => k + c.ids.length, rest.ids),
    *[Symbol.iterator]() {
      yield* first;
      yield* rest;
    },
  };
}
