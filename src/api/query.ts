// POST /api/projects/{id}/query/ with a HogQLQuery (docs/server-contract.md §7), and the polling of
// GET /query/{query_id}/ when the server answers 202 with a query that is still running.
// Blocking by default: the lookups of persons and distinct ids by a list are small and fast. The
// scans of `events` that may run long ask for `async` (RunOptions.async), which PostHog's time
// limit for API queries leaves out; a blocking query that reaches that limit is not sent again
// (it would only fail again) but named, with what to narrow.
import type { ApiClient } from '../http/client.js';
import { FIRST_POLL_MS, nextPollDelay, sleep as realSleep } from '../sleep.js';
import type { RetryPolicy } from '../http/retry.js';
import { ApiError, CliError, ExitCode, NotPostHogApiError, UnavailableError } from '../errors.js';
import { describeHttpError } from '../http/describe-error.js';

export interface QueryStatus {
  id: string;
  complete?: boolean | null;
  error?: boolean | null;
  error_message?: string | null;
  results?: unknown;
}

export interface HogQLResponse {
  results: unknown[][];
  columns: string[];
  /** `[column, ClickHouse type]` pairs. */
  types?: unknown;
  /** Set by the LIMIT 101 paginator when the query has no LIMIT; null otherwise (and on older servers). */
  hasMore?: boolean | null;
  limit?: number | null;
  offset?: number | null;
  query_status?: QueryStatus | null;
}

export interface HogQLRequest {
  query: string;
  values?: Record<string, unknown>;
  /** Shown in the server's query_log. */
  name: string;
}

export interface RunOptions {
  signal?: AbortSignal;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
  /** How long to wait for an async query before giving up; default 10 minutes. */
  maxWaitMs?: number;
  /** Overrides the client's retry policy for the POST (e.g. no wait on a long Retry-After). */
  retry?: Partial<RetryPolicy>;
  /** Run it as an asynchronous query (`refresh: "async"`): PostHog's time limit for API queries
   * does not apply, and the answer is polled. For the scans of `events` that may run long. */
  async?: boolean;
  /** What to narrow when the query hits PostHog's time limit, e.g. "give a later --events-since". */
  narrow?: string;
}

/** PostHog's own answer to a blocking query past its time limit (ClickHouseQueryTimeOut, 504 with
 * api_timeout_detail or the default detail, posthog/exceptions.py), not a gateway's 504 page. */
function isTimeLimit(status: number, body: unknown): boolean {
  const detail = (body as { detail?: unknown } | null)?.detail;
  return status === 504 && typeof detail === 'string' && /time limit|max execution time/i.test(detail);
}

export function queryPath(projectId: string, suffix = ''): string {
  return `/api/projects/${encodeURIComponent(projectId)}/query/${suffix}`;
}

/** An answer to a query without its columns and results is not PostHog's (exit 7). */
function unexpected(what: string): CliError {
  return new NotPostHogApiError(
    `the answer to the query is ${what}: this does not look like a PostHog API`,
    'check --base-url; run with --debug to see the answer (the server may be too old or too new for this hogctl)',
  );
}

function checkResponse(body: unknown): HogQLResponse {
  if (body === null || typeof body !== 'object') throw unexpected('not a JSON object');
  const res = body as HogQLResponse;
  if (!Array.isArray(res.columns)) throw unexpected('without a "columns" list');
  if (!Array.isArray(res.results)) throw unexpected('without a "results" list');
  return res;
}

/** Runs one HogQL query, waiting for it when the server runs it asynchronously. */
export async function runHogQL(
  client: ApiClient,
  projectId: string,
  request: HogQLRequest,
  options: RunOptions = {},
): Promise<HogQLResponse> {
  const query: Record<string, unknown> = { kind: 'HogQLQuery', query: request.query };
  if (request.values && Object.keys(request.values).length > 0) query.values = request.values;
  // A query only reads, so it is safe to send again after a 502, a gateway's 504 or a dropped
  // connection; PostHog's own 504 for its time limit would only come back, and is said at once.
  const res = await client.post<HogQLResponse>(
    queryPath(projectId),
    { query, name: request.name, refresh: options.async ? 'async' : 'blocking' },
    { idempotent: true, signal: options.signal, retry: options.retry, answer: 'query', acceptStatus: isTimeLimit },
  );
  if (res.status === 504) throw timeLimitError(request.name, res.body, options.narrow);
  const status = res.body?.query_status;
  if (res.status === 202 || (status && status.complete === false)) {
    if (!status?.id) throw unexpected('a query still running, without a query id to follow');
    return waitCancelling(client, projectId, status.id, options);
  }
  return checkResponse(res.body);
}

/** Exit 7, naming the query and what to narrow; PostHog's detail follows on a line of its own. */
function timeLimitError(name: string, body: unknown, narrow?: string): CliError {
  const detail = String((body as { detail?: unknown }).detail);
  const seconds = /(\d+)-second/.exec(detail)?.[1];
  return new UnavailableError(
    `the query "${name}" hit PostHog's ${seconds ? `${seconds}-second ` : ''}time limit for queries sent with an API key\n  ${detail}`,
    narrow ?? 'narrow the query (a shorter time range, fewer values) and run the command again',
  );
}

/** Waits for an async query; stopped (Ctrl-C), it cancels the query on the server first, so that
 * PostHog does not go on with work nobody will read (QueryViewSet.destroy, posthog/api/query.py). */
async function waitCancelling(client: ApiClient, projectId: string, id: string, options: RunOptions): Promise<HogQLResponse> {
  try {
    return await waitForQuery(client, projectId, id, options);
  } catch (error) {
    if (options.signal?.aborted) {
      await client
        .request({
          method: 'DELETE',
          path: queryPath(projectId, `${encodeURIComponent(id)}/`),
          acceptStatus: () => true,
          retry: { maxRetries: 0 },
        })
        .catch(() => undefined);
    }
    throw error;
  }
}

async function waitForQuery(client: ApiClient, projectId: string, id: string, options: RunOptions): Promise<HogQLResponse> {
  const sleep = options.sleep ?? realSleep;
  const now = options.now ?? Date.now;
  const maxWaitMs = options.maxWaitMs ?? 600_000;
  const started = now();
  for (let delay = FIRST_POLL_MS; ; delay = nextPollDelay(delay, 2_000)) {
    // A query that failed answers the poll with 400 (or 500) and its error in query_status, not
    // with a 202 (docs/server-contract.md §7.2): that message is the one to show.
    const res = await client.get<{ query_status?: QueryStatus }>(queryPath(projectId, `${encodeURIComponent(id)}/`), undefined, {
      acceptStatus: (s) => s === 202 || s === 400 || s === 500,
      signal: options.signal,
      answer: 'query',
    });
    const status = res.body?.query_status;
    if (!status && (res.status === 400 || res.status === 500)) {
      throw describeHttpError('GET', res.url, res.status, res.body);
    }
    if (!status) throw unexpected('a query status without "query_status"');
    if (status.error || res.status === 400 || res.status === 500) {
      const detail =
        status.error_message ||
        (res.status === 500 ? 'the query failed on the server, which gave no reason' : 'the query failed on the server');
      if (res.status === 500 && !status.error_message) {
        throw new UnavailableError(`the query failed: ${detail}`, `try again; if it keeps failing, look for query ${id} in PostHog`);
      }
      throw new ApiError(
        `the query failed: ${detail}`,
        400,
        { detail },
        "check the HogQL; run it in PostHog's SQL editor to see where it fails",
        ExitCode.rejected,
      );
    }
    if (status.complete) return checkResponse(status.results);
    if (now() - started + delay > maxWaitMs) {
      throw new UnavailableError(
        `the query was still running on the server after ${Math.round((now() - started) / 1000)}s`,
        `narrow it with WHERE or LIMIT, or look for query ${id} in PostHog`,
      );
    }
    await sleep(delay, options.signal);
  }
}
