// What a bulk run shows while it runs: the answer to Ctrl-C, waits for a rate window, failed
// chunks and retries, the --debug line per attempt; a bar on a terminal, plain lines off one.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Context, type Deps } from '../../../../src/context.js';
import type { BulkAction } from '../../../../src/bulk/engine/action.js';
import { ProgressView } from '../../../../src/bulk/engine/progress-view.js';
import { RateBudget } from '../../../../src/bulk/engine/rate.js';
import { DELETE_WINDOWS } from '../../../../src/bulk/kinds/delete/limits.js';
import { Collector } from '../../helpers.js';

const NOW = Date.UTC(2026, 10, 22, 10, 0, 0);

function view(options: { tty?: boolean; quiet?: boolean; debug?: boolean } = {}) {
  const stderr = new Collector({ isTTY: options.tty, columns: 100 });
  const deps: Deps = { io: { stdout: new PassThrough(), stderr, stdin: new PassThrough() }, env: { TZ: 'UTC' }, now: () => NOW };
  const ctx = new Context(deps, { quiet: options.quiet, debug: options.debug });
  const budget = new RateBudget(DELETE_WINDOWS, { now: () => NOW, sleep: async () => {} });
  const action = { describeAnswer: () => 'found 1000, deleted 1000' } as unknown as BulkAction;
  const progress = new ProgressView(ctx, {
    action,
    ids: 4000,
    requests: 4,
    budget,
    concurrency: 2,
    requestTimeoutMs: 120_000,
    inFlight: () => ({ count: 0 }),
  });
  return { progress, stderr, ctx };
}

const chunk = { index: 3, ids: Array.from({ length: 1000 }, (_, i) => `id-${i}`) };

describe('the progress of a bulk run', () => {
  it('answers Ctrl-C with what it waits for and for how long at most', () => {
    const { progress, stderr } = view();
    progress.interrupted(2);
    progress.interrupted(1);
    progress.interrupted(0);
    expect(stderr.text).toContain('stopping: waiting for 2 requests in flight, at most 120s; Ctrl-C again to quit now\n');
    expect(stderr.text).toContain('stopping: waiting for 1 request in flight, at most 120s; Ctrl-C again to quit now\n');
    expect(stderr.text).toContain('stopping: no request in flight\n');
  });

  it('says which window it waits for and until when, but not for waits under 10 s', () => {
    const { progress, stderr } = view();
    progress.windowWait({ window: DELETE_WINDOWS[1], until: NOW + 5_000 });
    expect(stderr.text).not.toContain('waiting');
    progress.windowWait({ window: DELETE_WINDOWS[1], until: NOW + 50 * 60_000 });
    expect(stderr.text).toMatch(
      /4,800 requests sent within the hourly window \(4,800\/h\): waiting 50m00s, until \d\d:\d\d:\d\d \(Ctrl-C stops; --resume continues later\)/,
    );
  });

  it('on a terminal, a warning or a note of the command goes above the bar, and the bar leaves room for "^C"', () => {
    const { progress, stderr, ctx } = view({ tty: true });
    progress.chunkDone(chunk, 400);
    ctx.warn('person 1: feature flags not exported');
    ctx.info('a note');
    const bar = (text: string) => text.split('\r\u001b[2K').filter((part) => part.includes('░'));
    // Cleared first (carriage return, erase line), then the line, then the bar again below it.
    expect(stderr.text).toMatch(/\r\u001b\[2K(\u001b\[33m)?warning:(\u001b\[39m)? person 1: feature flags not exported\n[^\n]*░/);
    expect(stderr.text).toMatch(/\r\u001b\[2Ka note\n[^\n]*░/);
    for (const drawn of bar(stderr.text)) expect(drawn.length).toBeLessThanOrEqual(100 - 3);
    progress.finish();
    const before = stderr.text.length;
    ctx.info('after');
    expect(stderr.text.slice(before)).toBe('after\n');
  });

  it('off a terminal: plain lines without carriage returns, a failed chunk as a warning', () => {
    const { progress, stderr } = view({ tty: false });
    progress.chunkFailed(chunk, 9, 'server error 500');
    expect(stderr.text).toContain('warning: chunk 3 (1,000 ids) failed after 9 attempts: server error 500');
    progress.chunkDone(chunk, 400);
    progress.finish();
    expect(stderr.text).toBe('warning: chunk 3 (1,000 ids) failed after 9 attempts: server error 500\n');
  });

  it('on a terminal: a bar redrawn in place, with the retry and its reason', () => {
    const { progress, stderr } = view({ tty: true });
    progress.retrying(chunk, 'server error 502', 4_000);
    progress.chunkDone(chunk, 400);
    expect(stderr.text).toContain('\r');
    expect(stderr.text).toContain('chunk 3: server error 502, retrying in 4 s');
  });

  it('with --quiet, no bar; with --debug, a line for every attempt in the action’s words', () => {
    const quiet = view({ quiet: true });
    quiet.progress.chunkDone(chunk, 400);
    expect(quiet.stderr.text).toBe('');
    const debug = view({ debug: true });
    debug.progress.attempted(chunk, { kind: 'ok', status: 202, summary: null }, 1, 321);
    debug.progress.attempted(chunk, { kind: 'throttled', status: 429, retryAfterMs: 3000, error: 'throttled' }, 2, 12);
    expect(debug.stderr.text).toContain('chunk 3 (1,000 ids) attempt 1: 202 in 321ms: found 1000, deleted 1000');
    expect(debug.stderr.text).toContain('chunk 3 (1,000 ids) attempt 2: 429 in 12ms: throttled, Retry-After 3s');
  });
});
