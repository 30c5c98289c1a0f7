// Follows PostHog's `next` links page by page. A full last page still carries a `next` that
// leads to an empty page (docs/server-contract.md §6.1), so both a null `next` and an empty page end it.
import type { ApiClient, Query } from './client.js';
import { NotPostHogApiError } from '../errors.js';

export interface Page<T> {
  results: T[];
  next?: string | null;
  count?: number;
}

export interface PaginateOptions {
  /** Stop after this many items in total; undefined means every page. */
  limit?: number;
  signal?: AbortSignal;
}

export async function* paginate<T>(client: ApiClient, path: string, query: Query, options: PaginateOptions = {}): AsyncGenerator<T[]> {
  let remaining = options.limit ?? Infinity;
  let url: string | null | undefined = client.url(path, query).href;
  let previous: string | undefined;
  // A server whose page links to itself would loop forever; stop instead.
  while (url && url !== previous && remaining > 0) {
    previous = url;
    const res: { body: Page<T> } = await client.get<Page<T>>(url, undefined, { signal: options.signal });
    // A JSON answer without a `results` list is not a page: reading it as an empty one would
    // report "no persons" from whatever answered.
    if (!Array.isArray(res.body?.results)) {
      throw new NotPostHogApiError(
        `${new URL(url).host} answered GET ${new URL(url).pathname} with JSON that is not a page of results: this does not look like a PostHog API`,
        `check --base-url (now ${client.origin})`,
      );
    }
    const results = res.body.results;
    if (results.length === 0) break;
    const take = results.length > remaining ? results.slice(0, remaining) : results;
    remaining -= take.length;
    yield take;
    url = res.body.next ? client.link(res.body.next) : null;
  }
}
