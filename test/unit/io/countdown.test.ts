// The countdown of a wait: one line that counts down on a terminal, within its width, and no
// listener left behind on the Ctrl-C signal.
import { getEventListeners } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { Context, type Deps } from '../../../src/context.js';
import * as countdown from '../../../src/io/countdown.js';
import { waitWithCountdown } from '../../../src/io/countdown.js';
import { Collector } from '../helpers.js';

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

describe('waitWithCountdown', () => {
  it("only draws: whether to wait and for how long is the command's policy (src/cli/wait-out-limit.ts)", () => {
    expect(Object.keys(countdown)).toEqual(['waitWithCountdown']);
  });

  it('on a terminal, counts down on one line and clears it', async () => {
    const { ctx, stderr, slept } = world({ tty: true });
    await waitWithCountdown(ctx, 3_000, 'waiting for the limit');
    expect(slept).toEqual([1000, 1000, 1000]);
    expect(stderr.text).toContain('\r\u001b[2Kwaiting for the limit: waiting 3s, until');
    expect(stderr.text.endsWith('\r\u001b[2K')).toBe(true);
  });

  it('keeps its line within the terminal, or each second would leave a wrapped line behind', async () => {
    for (const columns of [120, 80, 60, 40]) {
      const { ctx, stderr } = world({ tty: true, columns });
      await waitWithCountdown(ctx, 3_000, 'rate-limited by the server (HogQL queries per hour)');
      const lines = stderr.text.split('\r\u001b[2K').filter(Boolean);
      expect(lines).toHaveLength(3);
      for (const line of lines) expect(line.length, line).toBeLessThan(columns);
      // The time left is what the line is for: it stays while anything else may go.
      expect(lines[0]).toMatch(/waiting 3s/);
    }
  });

  it('a wait of an hour on a terminal leaves no listener behind on the Ctrl-C signal per second', async () => {
    // Node warns on stderr, over the countdown, past ten listeners on one signal.
    vi.useFakeTimers();
    try {
      const stop = new AbortController();
      const stderr = new Collector({ isTTY: true });
      const ctx = new Context({ io: { stdout: new PassThrough(), stderr, stdin: new PassThrough() }, env: {}, now: () => Date.now() }, {});
      const waiting = waitWithCountdown(ctx, 60 * MINUTE, 'waiting for the limit', stop.signal);
      await vi.advanceTimersByTimeAsync(30_000);
      expect(getEventListeners(stop.signal, 'abort').length).toBeLessThanOrEqual(1);
      stop.abort(new Error('stopped'));
      await expect(waiting).rejects.toThrow('stopped');
      expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
