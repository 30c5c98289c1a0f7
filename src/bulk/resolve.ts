// Integer person ids become UUIDs before anything is deleted, because bulk_delete matches UUIDs
// only (docs/server-contract.md §6.6). One GET per id, a few at a time; an id no person has is reported,
// not sent.
import { CancelledError } from '../errors.js';

export interface ResolveOptions {
  concurrency: number;
  /** Waits for the next request slot (the read rate budget). */
  pace?: (signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/** Maps each integer id to its person's UUID, or null when there is no such person. */
export async function resolveIntegerIds(
  ids: string[],
  lookup: (id: string) => Promise<string | null>,
  o: ResolveOptions,
): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < ids.length) {
      if (o.signal?.aborted) throw new CancelledError('cancelled while resolving integer ids; nothing was deleted');
      const id = ids[next++];
      try {
        await o.pace?.(o.signal);
      } catch {
        throw new CancelledError('cancelled while resolving integer ids; nothing was deleted');
      }
      out.set(id, await lookup(id));
      o.onProgress?.(++done, ids.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, ids.length)) }, worker));
  return out;
}
