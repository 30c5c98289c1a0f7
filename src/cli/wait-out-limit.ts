// The commands' policy for a server's rate and query limits: send, and on a 429 with a
// Retry-After wait as long as the server asks (drawn by src/io/countdown.ts) and send again,
// unless one wait is longer than the command's cap (--max-wait). The HTTP client's own retries
// give up on a 429 at once here, so the wait is seen and capped in one place.
import type { Context } from '../context.js';
import type { ApiClient } from '../http/client.js';
import { runHogQL, type HogQLRequest, type HogQLResponse, type RunOptions } from '../api/query.js';
import { RateLimitedError } from '../errors.js';
import { waitWithCountdown } from '../io/countdown.js';
import { formatDuration } from '../io/progress.js';

/** What a rate limit is called: on the countdown line, and in the message when a wait is too long. */
export interface RateLimitName {
  /** The countdown's reason, e.g. "rate-limited by the server (HogQL queries per hour)". */
  waiting: string;
  /** The start of the message, e.g. "the server limits queries". */
  limits: string;
}

export const QUERY_LIMIT: RateLimitName = {
  waiting: 'rate-limited by the server (HogQL queries per hour)',
  limits: 'the server limits queries',
};

/** The longest single wait a command sits out, and the flag that sets it. */
export interface WaitCap {
  maxWaitMs: number;
  flag: string;
}

/**
 * Sends a request, waiting out the server's rate limit as long as it asks: the legacy HogQL
 * limit (120 queries an hour) answers with a Retry-After of up to an hour
 * (docs/server-contract.md §7.2). `send` gets the retry policy that makes the client give up on a
 * 429 at once, so that the wait happens here, with a countdown. The cap is on each wait, not on
 * their sum: a long export meets the limit every hour and must not be stopped for having waited
 * before. A single wait longer than `cap.maxWaitMs` stops with a RateLimitedError (exit 6).
 */
export async function underRateLimit<T>(
  ctx: Context,
  cap: WaitCap,
  send: (retry: { maxRetryAfterMs: number }) => Promise<T>,
  name: RateLimitName,
): Promise<T> {
  for (;;) {
    try {
      return await send({ maxRetryAfterMs: 0 });
    } catch (error) {
      const wait = error instanceof RateLimitedError ? error.retryAfterMs : undefined;
      if (wait === undefined) throw error;
      if (wait > cap.maxWaitMs) {
        throw new RateLimitedError(
          `${name.limits} and asks to wait ${formatDuration(wait)}, longer than ${cap.flag} ${formatDuration(cap.maxWaitMs)}`,
          `continue later, or pass a longer ${cap.flag}`,
        );
      }
      await waitWithCountdown(ctx, wait, name.waiting, ctx.deps.signal);
    }
  }
}

/** underRateLimit for the query endpoint. */
export function underQueryLimit<T>(ctx: Context, cap: WaitCap, send: (retry: { maxRetryAfterMs: number }) => Promise<T>): Promise<T> {
  return underRateLimit(ctx, cap, send, QUERY_LIMIT);
}

/** One HogQL query within the query limit, on the command's clock and signal (so that a virtual
 * clock runs its polls); `run`: an async query and what to narrow (api/query.ts). */
export function queryUnderLimit(
  ctx: Context,
  client: ApiClient,
  projectId: string,
  request: HogQLRequest,
  cap: WaitCap,
  run: Pick<RunOptions, 'async' | 'narrow'> = {},
): Promise<HogQLResponse> {
  return underQueryLimit(ctx, cap, (retry) =>
    runHogQL(client, projectId, request, { signal: ctx.deps.signal, retry, sleep: ctx.clock.sleep, now: ctx.clock.now, ...run }),
  );
}
