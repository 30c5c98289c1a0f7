// `persons list --all`, complete even while persons are deleted or created. The list pages by
// offset, newest first (created_at descending), so a person deleted above the current page moves
// every later person one place up, and the next page starts one person too late: that person is
// never seen. (Tried against a listing with deletions going on, a third of the survivors were
// missed.) So each next page starts a few rows early (`OVERLAP`), and its first row must come
// before the last row printed, in created_at order; if it does not, rows were deleted above and the
// page is asked for again from further back (four times as far each time, down to the top). Rows
// at or above the last one printed are skipped: persons created meanwhile (new ones are at the top)
// and rows printed already (the same created_at: told apart by the ids printed with that time).
// Every person that existed throughout the listing is printed exactly once, in constant memory.
//
// The same two facts let a stopped listing continue (`ListPosition`): where the next page starts
// (the server's `next` offset) and the last row printed (its created_at and the ids printed with
// that time). A continuation starts a little before that offset and checks its place the same way,
// so it skips what was printed, finds its place again if rows were deleted meanwhile, and leaves
// out persons created since, which sort above.
import type { ApiClient } from '../http/client.js';
import type { RetryPolicy } from '../http/retry.js';
import { NotPostHogApiError } from '../errors.js';
import { PageTrail } from '../http/paginate.js';
import { listQuery, MAX_PERSONS_PAGE, personsPath, type ListedPerson, type PersonFilters } from './persons.js';

/** Rows each next page starts early: cheap (1 in 40 for 1000-row pages), and usually enough. */
export const OVERLAP = 25;

interface Boundary {
  /** created_at of the last row printed, in ms (the sort key as far as hogctl can compare it). */
  at: number;
  /** That created_at as the server wrote it. */
  createdAt: string;
  /** The ids printed with that created_at: rows of the same time are told apart by id. */
  ids: Set<string>;
}

/** Where a listing is: what a stopped one needs to continue. */
export interface ListPosition {
  /** Where the next page starts in the server's order (its `next` offset). */
  offset: number;
  /** The last row printed: its created_at as the server wrote it, and every id printed with it. */
  after?: { createdAt: string; ids: string[] };
}

const timeOf = (p: ListedPerson) => Date.parse(p.created_at);

export interface ListAllOptions {
  pageSize: number;
  signal?: AbortSignal;
  /** Told each time a page had to be asked for again from further back. */
  onShift?(rowsBack: number): void;
  /** Where to start, as a stopped listing left it; kept up to date as pages are yielded. */
  position?: ListPosition;
  /** Sends each page request (a caller that waits out rate limits itself passes a retry policy). */
  send?<T>(request: (retry?: Partial<RetryPolicy>) => Promise<T>): Promise<T>;
}

export async function* listAllPersons(
  client: ApiClient,
  projectId: string,
  filters: PersonFilters,
  o: ListAllOptions,
): AsyncGenerator<ListedPerson[]> {
  const position = o.position ?? { offset: 0 };
  const send = o.send ?? ((request) => request());
  const first = client.url(personsPath(projectId), listQuery(filters, o.pageSize));
  let boundary: Boundary | undefined = position.after && {
    at: Date.parse(position.after.createdAt),
    createdAt: position.after.createdAt,
    ids: new Set(position.after.ids),
  };
  // Where the next page would start without overlap (the server's `next` offset).
  let nextOffset = position.offset;
  let back = OVERLAP;
  let url = startUrl(first, nextOffset, boundary !== undefined, o.pageSize);
  // Rows without a created_at to compare (not a server hogctl knows): plain paging.
  let plain = false;
  // The server's links followed since the listing last stepped back on purpose.
  const trail = new PageTrail(nextOffset === 0 ? first.href : undefined);
  for (;;) {
    const { rows, link, nextAt } = await readPage(client, url, send, o.signal);
    if (rows.some((r) => Number.isNaN(timeOf(r)))) plain = true;
    if (plain) {
      position.after = undefined;
      if (nextAt !== undefined) position.offset = nextAt;
      if (rows.length > 0) yield rows;
      if (!link || rows.length === 0) return;
      url = new URL(trail.follow(client.link(link)));
      continue;
    }
    const offset = Number(url.searchParams.get('offset') ?? 0);
    // The page must reach back above the last row printed; else rows were deleted above it.
    if (boundary && offset > 0 && !(rows.length > 0 && timeOf(rows[0]) > boundary.at)) {
      const from = Math.max(0, nextOffset - back * 4);
      o.onShift?.(nextOffset - from);
      // Rows were deleted above: the pages ahead are read again from further back, legitimately.
      trail.clear();
      back = nextOffset - from;
      url = withWindow(url, from, Math.min(MAX_PERSONS_PAGE, o.pageSize + back));
      continue;
    }
    const fresh: ListedPerson[] = [];
    boundary = keepFresh(rows, boundary, fresh);
    if (nextAt !== undefined) nextOffset = nextAt;
    if (boundary) position.after = { createdAt: boundary.createdAt, ids: [...boundary.ids] };
    position.offset = nextOffset;
    if (fresh.length > 0) yield fresh;
    if (!link || rows.length === 0) return;
    const next = new URL(trail.follow(client.link(link)));
    if (nextAt === undefined) {
      // Not an offset link: follow it as it is.
      url = next;
      continue;
    }
    back = OVERLAP;
    url = withWindow(next, Math.max(0, nextOffset - back), Math.min(MAX_PERSONS_PAGE, o.pageSize + back));
  }
}

/** A continuation starts a little early and checks its place, as every next page does; without
 * a last row to check against, exactly at the offset. */
function startUrl(first: URL, offset: number, checksPlace: boolean, pageSize: number): URL {
  if (offset === 0) return first;
  if (!checksPlace) return withWindow(first, offset, pageSize);
  return withWindow(first, Math.max(0, offset - OVERLAP), Math.min(MAX_PERSONS_PAGE, pageSize + OVERLAP));
}

/** One page: its rows, the server's link to the next (followed, through client.link which may
 * refuse it, only once this page is printed) and the offset that link names. */
async function readPage(
  client: ApiClient,
  url: URL,
  send: NonNullable<ListAllOptions['send']>,
  signal: AbortSignal | undefined,
): Promise<{ rows: ListedPerson[]; link?: string; nextAt?: number }> {
  const res = await send((retry) =>
    client.get<{ results?: ListedPerson[]; next?: string | null }>(url.href, undefined, { signal, retry, answer: 'page' }),
  );
  const rows = res.body?.results;
  if (!Array.isArray(rows)) {
    throw new NotPostHogApiError(
      `${url.host} answered GET ${url.pathname} with JSON that is not a page of results: this does not look like a PostHog API`,
      `check --base-url (now ${client.origin})`,
    );
  }
  const link = res.body?.next || undefined;
  const serverOffset = link === undefined ? undefined : new URL(link, url).searchParams.get('offset');
  const nextAt = serverOffset !== undefined && serverOffset !== null && /^\d+$/.test(serverOffset) ? Number(serverOffset) : undefined;
  return { rows, link, nextAt };
}

/** Puts into `fresh` the rows below the last one printed (pages overlap), and returns the new
 * last row's place: its created_at and the ids printed at that instant. */
function keepFresh(rows: ListedPerson[], boundary: Boundary | undefined, fresh: ListedPerson[]): Boundary | undefined {
  for (const row of rows) {
    const at = timeOf(row);
    if (boundary && (at > boundary.at || (at === boundary.at && boundary.ids.has(row.id)))) continue;
    if (boundary && at === boundary.at) boundary.ids.add(row.id);
    else boundary = { at, createdAt: row.created_at, ids: new Set([row.id]) };
    fresh.push(row);
  }
  return boundary;
}

function withWindow(url: URL, offset: number, limit: number): URL {
  const out = new URL(url.href);
  out.searchParams.set('offset', String(offset));
  out.searchParams.set('limit', String(limit));
  return out;
}
