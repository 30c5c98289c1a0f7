// Walks a keyset-paged HogQL query page by page (keyset.ts writes the pages): `persons query
// --all` prints the rows, a bulk job's `--query` selection collects the person ids. The walk
// keeps where it is (`after`, the last row's created_at and id), so whoever stops it can say
// where to continue.
import { CliError } from '../errors.js';
import type { HogQLResponse } from '../api/query.js';
import { HIDDEN_COLUMNS, type Cursor, type KeysetPlan } from './keyset.js';

/** The most rows a HogQL query returns (MAX_SELECT_RETURNED_ROWS). */
export const MAX_QUERY_ROWS = 50_000;
/** Older servers return at most 10,000 rows whatever the LIMIT. */
const OLDER_SERVER_MAX_ROWS = 10_000;

export interface KeysetWalk {
  /** The last row read: the next page starts after it. */
  after?: Cursor;
  /** Queries answered so far. */
  pages: number;
}

export interface KeysetPage {
  /** The columns the query asked for (the cursor's own are dropped). */
  columns: string[];
  types: unknown;
  rows: unknown[][];
}

export async function* walkKeyset(
  plan: KeysetPlan,
  pageSize: number,
  walk: KeysetWalk,
  run: (query: string, values: Record<string, unknown>) => Promise<HogQLResponse>,
): AsyncGenerator<KeysetPage> {
  for (;;) {
    const page = plan.page(pageSize, walk.after);
    const res = await run(page.query, page.values);
    walk.pages++;
    yield {
      columns: res.columns.slice(0, -HIDDEN_COLUMNS),
      types: Array.isArray(res.types) ? res.types.slice(0, -HIDDEN_COLUMNS) : res.types,
      rows: res.results.map((row) => (Array.isArray(row) ? row.slice(0, -HIDDEN_COLUMNS) : row)) as unknown[][],
    };
    // A short page proves the end only below the older servers' cap; above it, an empty page does.
    if (res.results.length === 0 || res.results.length < Math.min(pageSize, OLDER_SERVER_MAX_ROWS)) return;
    const last = res.results[res.results.length - 1] as unknown[];
    const next = { createdAt: last[last.length - 2], id: last[last.length - 1] };
    if (walk.after && next.createdAt === walk.after.createdAt && next.id === walk.after.id) {
      throw new CliError(
        'paging stopped: the server returned the same last row twice, so the keyset cursor does not advance',
        'report this with the query you ran; meanwhile use LIMIT without --all',
      );
    }
    walk.after = next;
  }
}
