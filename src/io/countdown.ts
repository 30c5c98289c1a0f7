// Waiting out a server's Retry-After that may last most of an hour (HogQL's legacy limit is 120
// queries an hour): on a terminal a line that counts down, off one a single line saying until
// when, so a log shows why nothing happened. Ctrl-C (the signal) ends the wait at once.
import type { Context } from '../context.js';
import { formatClock, formatDuration } from './progress.js';

export async function waitWithCountdown(ctx: Context, ms: number, why: string, signal?: AbortSignal): Promise<void> {
  const until = ctx.deps.now() + ms;
  const sleep = ctx.deps.sleep ?? ((t: number, s?: AbortSignal) => new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, t);
    s?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(s.reason);
    }, { once: true });
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
