// Waiting out a server's Retry-After that may last most of an hour (HogQL's legacy limit is 120
// queries an hour): on a terminal a line that counts down, off one a single line saying until
// when, so a log shows why nothing happened. Ctrl-C (the signal) ends the wait at once.
import type { Context } from '../context.js';
import { formatClock, formatDuration } from './progress.js';
import { displayWidth, truncate } from './columns.js';
import { RateLimitedError } from '../errors.js';
import { sleep as realSleep } from '../sleep.js';

export async function waitWithCountdown(ctx: Context, ms: number, why: string, signal?: AbortSignal): Promise<void> {
  const until = ctx.deps.now() + ms;
  const sleep = ctx.deps.sleep ?? realSleep;
  const left = () => `waiting ${formatDuration(until - ctx.deps.now())}, until ${formatClock(until)}`;
  const line = () => `${why}: ${left()} (Ctrl-C stops)`;
  const tty = Boolean(ctx.io.stderr.isTTY) && !ctx.globals.quiet;
  if (!tty) {
    ctx.info(line());
    await sleep(ms, signal);
    return;
  }
  try {
    while (ctx.deps.now() < until) {
      ctx.io.stderr.write(`\r\u001b[2K${fitted(why, left(), ctx.io.stderr.columns || 100)}`);
      await sleep(Math.min(1000, until - ctx.deps.now()), signal);
    }
  } finally {
    ctx.io.stderr.write('\r\u001b[2K');
  }
}

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

/** The countdown line within the terminal: a wrapped line is not cleared by the next second's
 * redraw, so it would stay behind, a line a second. The time left stays; the rest gives way, the
 * reason's parenthesis first ("rate-limited by the server (HogQL queries per hour)"). */
function fitted(why: string, left: string, columns: number): string {
  const room = columns - 1;
  const short = why.replace(/\s*\([^)]*\)$/, '');
  const candidates = [`${why}: ${left} (Ctrl-C stops)`, `${short}: ${left} (Ctrl-C stops)`, `${short}: ${left}`, left];
  return candidates.find((c) => displayWidth(c) <= room) ?? truncate(left, room);
}
