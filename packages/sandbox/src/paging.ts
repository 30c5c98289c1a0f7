// The two paging styles the server uses, each with its quirks kept.

import type { RequestContext } from './context.js';
import { absoluteUrl, lastParam } from './context.js';

/**
 * `posthog.utils.format_query_params_absolute_url`: the request's absolute URL with the first
 * `offset=<digits>` (and `limit=`) rewritten, or appended when absent (activity pages pass
 * `page` as the offset alias). A falsy offset leaves the URL untouched, which is why `previous`
 * equals the current URL when offset == limit.
 */
export function formatQueryParamsAbsoluteUrl(
  url: string,
  offset?: number,
  limit?: number,
  offsetAlias = 'offset',
  limitAlias = 'limit',
): string {
  let out = url;
  const apply = (name: string, value: number) => {
    const re = new RegExp(`([&?]${name}=)(\\d+)`, 'g');
    if (re.test(out)) out = out.replace(re, `$1${value}`);
    else out += (out.includes('?') ? '&' : '?') + `${name}=${value}`;
  };
  if (offset) apply(offsetAlias, offset);
  if (limit) apply(limitAlias, limit);
  return out;
}

/** Python's urllib quote_plus (what Django/DRF use to rebuild query strings). */
export function quotePlus(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%20/g, '+');
}

/** DRF's replace_query_param / remove_query_param: the query is re-encoded, keys sorted. */
function rewriteQuery(url: string, key: string, value: string | null): string {
  const q = url.indexOf('?');
  const base = q === -1 ? url : url.slice(0, q);
  const params = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
  const entries = new Map<string, string[]>();
  for (const [k, v] of params) entries.set(k, [...(entries.get(k) ?? []), v]);
  if (value === null) entries.delete(key);
  else entries.set(key, [value]);
  const query = [...entries.keys()]
    .sort()
    .flatMap((k) => entries.get(k)!.map((v) => `${quotePlus(k)}=${quotePlus(v)}`))
    .join('&');
  return query ? `${base}?${query}` : base;
}

function positiveInt(raw: string | null, fallback: number, cutoff?: number): number {
  if (raw === null || !/^\s*\d+\s*$/.test(raw)) return fallback;
  const n = Number(raw);
  if (n <= 0) return fallback;
  return cutoff ? Math.min(n, cutoff) : n;
}

export interface DrfPage<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** DRF LimitOffsetPagination: `{count, next, previous, results}`, links only when they lead
 * somewhere, `limit` always written into them. */
export function drfLimitOffsetPage<T>(ctx: RequestContext, items: T[], defaultLimit = 100, maxLimit?: number): DrfPage<T> {
  const limit = positiveInt(lastParam(ctx.query, 'limit'), defaultLimit, maxLimit);
  const offsetRaw = lastParam(ctx.query, 'offset');
  const offset = offsetRaw !== null && /^\s*\d+\s*$/.test(offsetRaw) ? Number(offsetRaw) : 0;
  const count = items.length;
  const url = absoluteUrl(ctx);
  let next: string | null = null;
  if (offset + limit < count) next = rewriteQuery(rewriteQuery(url, 'limit', String(limit)), 'offset', String(offset + limit));
  let previous: string | null = null;
  if (offset > 0) {
    const withLimit = rewriteQuery(url, 'limit', String(limit));
    previous = offset - limit <= 0 ? rewriteQuery(withLimit, 'offset', null) : rewriteQuery(withLimit, 'offset', String(offset - limit));
  }
  return { count, next, previous, results: items.slice(offset, offset + limit) };
}
