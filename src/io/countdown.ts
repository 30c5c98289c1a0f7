// Drawing a wait for a server's Retry-After that may last most of an hour (HogQL's legacy limit is
// 120 queries an hour): on a terminal a line that counts down, off one a single line saying until
// when, so a log shows why nothing happened. Ctrl-C (the signal) ends the wait at once. Whether to
// wait, and for how long, is the command's policy (src/cli/wait-out-limit.ts).
import type { Context } from '../context.js';
import { formatClock, formatDuration } from './progress.js';
import { displayWidth, truncate } from './columns.js';

export async function waitWithCountdown(ctx: Context, ms: number, why: string, signal?: AbortSignal): Promise<void> {
  const until = ctx.clock.now() + ms;
  const { sleep } = ctx.clock;
  const left = () => `waiting ${formatDuration(until - ctx.clock.now())}, until ${formatClock(until)}`;
  const line = () => `${why}: ${left()} (Ctrl-C stops)`;
  const tty = Boolean(ctx.io.stderr.isTTY) && !ctx.globals.quiet;
  if (!tty) {
    ctx.info(line());
    await sleep(ms, signal);
    return;
  }
  try {
    while (ctx.clock.now() < until) {
      ctx.io.stderr.write(`\r\u001b[2K${fitted(why, left(), ctx.io.stderr.columns || 100)}`);
      await sleep(Math.min(1000, until - ctx.clock.now()), signal);
    }
  } finally {
    ctx.io.stderr.write('\r\u001b[2K');
  }
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
