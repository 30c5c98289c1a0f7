// A plain file of ids for one project (targets.ts): integer person ids become UUIDs before
// anything is deleted, because bulk_delete matches UUIDs only (docs/server-contract.md §6.6). One
// GET per id, a few at a time within the read rate; an id no person has is reported, not sent.
// Then every target once.
import { IdSet, type Ids } from './id-set.js';
import type { Context } from '../../context.js';
import { CancelledError, CliError, NotFoundError } from '../../errors.js';
import { getPerson } from '../../api/persons.js';
import type { ApiClient } from '../../http/client.js';
import type { RateBudget } from '../engine/rate.js';
import { isIntegerId, type IdList } from './validate.js';
import { formatNumber } from '../../io/counts.js';

/** PostHog's limit for reading persons with a personal key (ClickHouse burst, docs/server-contract.md §5). */
export const READ_PER_MINUTE = 240;

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

/** Looks a person up by integer id: its UUID, or null when there is none. */
export function uuidLookup(client: ApiClient, projectId: string): (id: string) => Promise<string | null> {
  return async (id) => {
    try {
      return (await getPerson(client, projectId, id)).uuid;
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  };
}

export interface Targets {
  ids: Ids;
  /** Integer ids, or e-mail addresses, that name no person. */
  unresolved: string[];
  resolvedDuplicates: number;
  newlyResolved: Map<string, string | null>;
}

/** The values to send: UUIDs as they are, integer ids through their UUID, each once. */
export async function resolveTargets(
  ctx: Context,
  list: IdList,
  known: Map<string, string | null>,
  lookup: ((id: string) => Promise<string | null>) | undefined,
  s: { reads: RateBudget; concurrency: number },
): Promise<Targets> {
  const newlyResolved = new Map<string, string | null>();
  if (list.kind === 'person_ids' && list.integerCount > 0) {
    const todo: string[] = [];
    for (const id of list.ids) if (isIntegerId(id) && !known.has(id)) todo.push(id);
    if (todo.length > 0 && lookup) {
      const tty = Boolean(ctx.io.stderr.isTTY) && !ctx.globals.quiet;
      // Reads have their own, lower limit; staying under it spares a storm of 429s.
      const budget = s.reads;
      ctx.info(
        `resolving ${formatNumber(todo.length)} integer person ids to UUIDs (bulk_delete matches UUIDs only), up to ${formatNumber(60_000 / budget.intervalMs)} requests/min…`,
      );
      let last = 0;
      const resolved = await resolveIntegerIds(todo, lookup, {
        concurrency: s.concurrency,
        // Reads are only spaced (after the budget's burst); each slot is released as soon as it is taken.
        pace: async (signal) => (await budget.take(signal))(),
        signal: ctx.deps.signal,
        onProgress: (done, total) => {
          const now = ctx.clock.now();
          if (tty && (now - last > 100 || done === total)) {
            last = now;
            ctx.io.stderr.write(`\r\u001b[2K  resolved ${formatNumber(done)}/${formatNumber(total)}`);
          }
        },
      }).catch((err: unknown) => {
        // A lookup that failed after its retries stops the run before any deletion: say so.
        if (err instanceof CliError && !(err instanceof CancelledError))
          err.message = `could not resolve the integer ids to UUIDs, so nothing was deleted in this run: ${err.message}`;
        throw err;
      });
      if (tty) ctx.io.stderr.write('\r\u001b[2K');
      for (const [k, v] of resolved) newlyResolved.set(k, v);
      const missing = [...resolved.values()].filter((v) => v === null).length;
      ctx.info(
        `resolved ${formatNumber(todo.length - missing)} of ${formatNumber(todo.length)} integer ids${missing ? `; ${formatNumber(missing)} match no person and will not be sent` : ''}`,
      );
    }
  }
  // Without integer ids every value goes out as it is, and each is already there once: the list
  // itself, rather than a copy of ten million ids.
  if (list.kind !== 'person_ids' || list.integerCount === 0) return { ids: list.ids, unresolved: [], resolvedDuplicates: 0, newlyResolved };
  // Compact too (id-set.ts): the set is the list of targets, in order.
  const seen = new IdSet();
  const unresolved: string[] = [];
  let resolvedDuplicates = 0;
  for (const id of list.ids) {
    let target = id;
    if (list.kind === 'person_ids' && isIntegerId(id)) {
      const uuid = newlyResolved.has(id) ? newlyResolved.get(id) : known.get(id);
      if (uuid === undefined) {
        // Dry run: not resolved, shown as it is.
        target = id;
      } else if (uuid === null) {
        unresolved.push(id);
        continue;
      } else target = uuid.toLowerCase();
    }
    if (!seen.add(target)) resolvedDuplicates++;
  }
  return { ids: seen, unresolved, resolvedDuplicates, newlyResolved };
}
