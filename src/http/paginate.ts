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
  const trail = new PageTrail(url);
  while (url && remaining > 0) {
    const res: { body: Page<T> } = await client.get<Page<T>>(url, undefined, { signal: options.signal, answer: 'page' });
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
    url = res.body.next ? trail.follow(client.link(res.body.next)) : null;
  }
}

/**
 * The pages one listing has asked for. A server whose `next` links lead back to a page already
 * read (to itself, or A → B → A) would be paged forever, printing the same rows again each round:
 * every link is remembered, and one seen before stops the listing with an error naming it.
 */
export class PageTrail {
  private readonly seen = new Set<string>();

  constructor(first?: string) {
    if (first !== undefined) this.seen.add(pageKey(first));
  }

  /** The link, to be requested; throws if this listing has requested it before. */
  follow(href: string): string {
    const key = pageKey(href);
    if (this.seen.has(key)) {
      const url = new URL(href);
      throw new NotPostHogApiError(
        `${url.host} handed out a next link back to a page already read (${url.pathname}${url.search}): its pages go round in a circle, so paging stops here`,
        "PostHog's next links always move forward: check --base-url and any proxy or cache in front of PostHog, then run the command again",
      );
    }
    this.seen.add(key);
    return href;
  }

  /** Forgets the links followed: the caller starts again from further back on purpose. */
  clear(): void {
    this.seen.clear();
  }
}

/** A page's address with its query in one order, and no offset meaning offset 0: the first page
 * asked for as `?limit=100` is the page a link `?limit=100&offset=0` leads back to. */
function pageKey(href: string): string {
  const url = new URL(href);
  if (url.searchParams.get('offset') === '0') url.searchParams.delete('offset');
  url.searchParams.sort();
  return url.href;
}
