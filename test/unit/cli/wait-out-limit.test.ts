// Waiting out a rate limit: each wait the server asks for is capped by --max-wait, not their sum,
// so an export that meets the hourly query limit several times is not stopped for having waited.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Context, type Deps } from '../../../src/context.js';
import { RateLimitedError } from '../../../src/errors.js';
import { underQueryLimit, underRateLimit } from '../../../src/cli/wait-out-limit.js';
import { Collector, rejection } from '../helpers.js';

const MINUTE = 60_000;

function world(options: { tty?: boolean; columns?: number } = {}) {
  let clock = Date.UTC(2026, 10, 22, 10, 0, 0);
  const slept: number[] = [];
  const stderr = new Collector({ isTTY: options.tty, columns: options.columns });
  const deps: Deps = {
    io: { stdout: new PassThrough(), stderr, stdin: new PassThrough() },
    env: { TZ: 'UTC' },
    now: () => clock,
    sleep: async (ms) => {
      slept.push(ms);
      clock += ms;
    },
  };
  return { ctx: new Context(deps, {}), stderr, slept, elapsed: () => slept.reduce((a, b) => a + b, 0) };
}

/** A request refused with these Retry-Afters in turn, then answered. */
function refusedWith(...waits: number[]) {
  const asked: { maxRetryAfterMs: number }[] = [];
  const send = async (retry: { maxRetryAfterMs: number }) => {
    asked.push(retry);
    const wait = waits[asked.length - 1];
    if (wait === undefined) return 'answer';
    const error = new RateLimitedError('throttled');
    error.retryAfterMs = wait;
    throw error;
  };
  return { send, asked };
}

describe('underQueryLimit', () => {
  it('waits out several waits each within --max-wait, however much they add up to', async () => {
    const { ctx, stderr, elapsed } = world();
    const { send, asked } = refusedWith(55 * MINUTE, 58 * MINUTE, 59 * MINUTE);
    await expect(underQueryLimit(ctx, { maxWaitMs: 60 * MINUTE, flag: '--max-wait' }, send)).resolves.toBe('answer');
    expect(elapsed()).toBe((55 + 58 + 59) * MINUTE);
    // The client is told not to wait itself, so the wait happens here, with a line saying so.
    expect(asked.every((r) => r.maxRetryAfterMs === 0)).toBe(true);
    expect(stderr.text.match(/^rate-limited by the server \(HogQL queries per hour\): waiting \S+, until \d\d:\d\d/gm)).toHaveLength(3);
  });

  it('a single wait longer than --max-wait stops at once (exit 6), saying how long the server asked', async () => {
    const { ctx, slept } = world();
    const { send } = refusedWith(10 * MINUTE, 45 * MINUTE);
    const error = await rejection(() => underQueryLimit(ctx, { maxWaitMs: 40 * MINUTE, flag: '--max-wait' }, send));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.exitCode).toBe(6);
    expect(error.message).toBe('the server limits queries and asks to wait 45m00s, longer than --max-wait 40m00s');
    expect(error.hint).toBe('continue later, or pass a longer --max-wait');
    expect(slept).toEqual([10 * MINUTE]);
  });

  it('passes on any other error, and a 429 without Retry-After, without waiting', async () => {
    const { ctx, slept } = world();
    const bare = new RateLimitedError('throttled, no Retry-After');
    await expect(underQueryLimit(ctx, { maxWaitMs: MINUTE, flag: '--max-wait' }, () => Promise.reject(bare))).rejects.toBe(bare);
    expect(slept).toEqual([]);
  });
});

describe('underRateLimit', () => {
  it('names the limit it waits for in the countdown and in the message', async () => {
    const { ctx, stderr } = world();
    const name = { waiting: 'rate-limited by the server (persons reads)', limits: 'the server limits reads' };
    const { send } = refusedWith(30_000, 2 * MINUTE);
    const error = await rejection(() => underRateLimit(ctx, { maxWaitMs: MINUTE, flag: '--max-wait' }, send, name));
    expect(stderr.text).toMatch(/^rate-limited by the server \(persons reads\): waiting 30s, until/m);
    expect(error.message).toBe('the server limits reads and asks to wait 2m00s, longer than --max-wait 1m00s');
  });
});
