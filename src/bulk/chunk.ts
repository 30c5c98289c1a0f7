// Cuts the ids to send into requests of at most 1000 (bulk_delete's cap, docs/server-contract.md §6.6),
// numbered on from the journal's last chunk so that numbers stay unique across resumed runs.
import type { Chunk } from './runner.js';

export const CHUNK_SIZE = 1000;

export function chunkIds(ids: readonly string[], firstIndex = 1, size = CHUNK_SIZE, project?: string): Chunk[] {
  if (!Number.isInteger(size) || size < 1 || size > CHUNK_SIZE) throw new RangeError(`chunk size must be 1..${CHUNK_SIZE}, not ${size}`);
  const chunks: Chunk[] = [];
  for (let i = 0; i < ids.length; i += size)
    chunks.push({ index: firstIndex + chunks.length, ids: ids.slice(i, i + size), ...(project === undefined ? {} : { project }) });
  return chunks;
}
