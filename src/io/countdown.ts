// Waiting out a server's Retry-After that may last most of an hour (HogQL's legacy limit is 120
// queries an hour): on a terminal a line that counts down, off one a single line saying until
// when, so a log shows why nothing happened. Ctrl-C (the signal) ends the wait at once.
import type { Context } from '../context.js';
import { formatClock, formatDuration } from './progress.js';
import { RateLimitedError } from '../errors.js';

export async function waitWithCountdown(ctx: Context, ms: number, why: string, signal?: AbortSignal): Promise<void> {
  const until = ctx.deps.now() + ms;
  const sleep =
    ctx.deps.sleep ??
    ((t: number, s?: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, t);
        s?.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            reject(s.reason);
          },
          { once: true },
        );
      }));
  const line = () => `${why}: waiting ${formatDuration(until - ctx.deps.now())}, until ${formatClock(until)} (Ctrl-C stops)`;
  const tty = Boolean(ctx.io.stderr.isTTY) && !ctx.globals.quiet;
  if (!tty) {
    ctx.info(line());
    await sleep(ms, signal);
    return;
  }
  try {
    while (ctx.deps.now() < until) {
      ctx.io.stderr.write(`\r\u001b[2K${line()}`);
      await sleep(Math.min(1000, until - ctx.deps.now()), signal);
    }
  } finally {
    ctx.io.stderr.write('\r\u001b[2K');
  }
}

/**
 * Sends a request to the query endpoint, waiting out its rate limit: teams on the legacy limit
 * get 120 queries an hour, with a Retry-After of up to an hour (docs/server-contract.md §0). `send` gets
 * the retry policy that makes the client give up on a 429 at once, so that the wait happens
 * here, with a countdown. Past `maxWaitMs` in all, a RateLimitedError (exit 6) says so.
 */
export async function underQueryLimit<T>(
  ctx: Context,
  budget: { waitedMs: number; maxWaitMs: number; flag?: string },
  send: (retry: { maxRetryAfterMs: number }) => Promise<T>,
): Promise<T> {
  for (;;) {
    try {
      return await send({ maxRetryAfterMs: 0 });
    } catch (error) {
      const wait = error instanceof RateLimitedError ? error.retryAfterMs : undefined;
      if (wait === undefined) throw error;
      if (budget.waitedMs + wait > budget.maxWaitMs) {
        const past = budget.flag
          ? `past ${budget.flag} ${formatDuration(budget.maxWaitMs)}`
          : `longer than hogctl waits (${formatDuration(budget.maxWaitMs)} in all)`;
        throw new RateLimitedError(
          `the server limits queries and asks to wait ${formatDuration(wait)}, ${past}`,
          budget.flag ? `continue later, or pass a longer ${budget.flag}` : 'run it again later',
        );
      }
      budget.waitedMs += wait;
      await waitWithCountdown(ctx, wait, 'rate-limited by the server (HogQL queries per hour)', ctx.deps.signal);
    }
  }
}
