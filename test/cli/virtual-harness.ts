// hogctl in this process, `main(argv, deps)`, against an in-process sandbox, both on one virtual
// clock: the waits that make a test of rate windows, backoff, Retry-After and countdowns slow on a
// real clock (minutes of a window, an hour of a query limit) pass at once, and their times are
// exact. The network, files and streams stay real: only the time is virtual.
//
// The time moves only when nothing but a wait is left to happen: no request on its way (the
// dispatcher counts them), no file operation pending. Then the earliest sleeper wakes, and the
// clock shows its wake-up time. The black-box suites (test/e2e/, test/reliability/) keep one
// test of each of these behaviours against the built binary on the real clock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { startSandbox, type Sandbox, type SandboxOptions } from '@hogctl/sandbox';
import { main } from '../../src/main.js';

/** 2026-11-22 10:00:00 UTC: a fixed start, so "until HH:MM:SS" lines are the same on every run. */
const T0 = Date.UTC(2026, 10, 22, 10, 0, 0);

interface Sleeper {
  at: number;
  seq: number;
  wake: () => void;
}

/** Virtual time for hogctl and the sandbox: `now` and `sleep` as src/sleep.ts's Clock. */
export class VirtualClock {
  private t: number;
  private sleepers: Sleeper[] = [];
  private seq = 0;

  constructor(start = T0) {
    this.t = start;
  }

  now = (): number => this.t;

  sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      // As src/sleep.ts: the abort listener goes when the sleep ends, so none is left behind.
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        reject(signal!.reason);
      };
      const sleeper: Sleeper = {
        at: this.t + Math.max(0, ms),
        seq: this.seq++,
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.sleepers.push(sleeper);
      signal?.addEventListener('abort', onAbort, { once: true });
    });

  /** Time passes between two runs (a resume hours later); no sleeper wakes early for it. */
  advance(ms: number): void {
    this.t += ms;
  }

  /** The earliest sleeper wakes, and the time moves to its wake-up; false when nobody sleeps. */
  wakeNext(): boolean {
    if (this.sleepers.length === 0) return false;
    this.sleepers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const next = this.sleepers.shift()!;
    this.t = Math.max(this.t, next.at);
    next.wake();
    return true;
  }
}

/** An undici Agent that knows how many requests are on their way. */
class CountingAgent extends Agent {
  inFlight = 0;

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    this.inFlight++;
    let open = true;
    const done = () => {
      if (open) {
        open = false;
        this.inFlight--;
      }
    };
    const ends = new Set<PropertyKey>(['onComplete', 'onError', 'onResponseEnd', 'onResponseError']);
    const counted = new Proxy(handler, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (typeof value !== 'function') return value;
        return ends.has(prop)
          ? (...args: unknown[]) => {
              done();
              return value.apply(target, args);
            }
          : value.bind(target);
      },
    });
    return super.dispatch(options, counted);
  }
}

/** A request of `agent` is on its way, or a file operation, a write to a socket or a lookup is
 * pending (a real wait, not a timer). */
function ioPending(agent: CountingAgent): boolean {
  if (agent.inFlight > 0) return true;
  return process.getActiveResourcesInfo().some((r) => /Req|WriteWrap|ShutdownWrap|GetAddrInfo|ConnectWrap/.test(r));
}

/** Lets everything that can run without the clock run: promise chains, I/O callbacks. */
async function quiet(agent: CountingAgent): Promise<void> {
  for (let calm = 0; calm < 3;) {
    await new Promise((r) => setImmediate(r));
    if (ioPending(agent)) {
      calm = 0;
      await new Promise((r) => setTimeout(r, 1));
    } else calm++;
  }
}

/** Runs `work` to its end, moving the virtual time whenever only waits are left. */
async function drive<T>(clock: VirtualClock, work: Promise<T>, agent: CountingAgent): Promise<T> {
  let settled = false;
  const done = work.finally(() => (settled = true));
  done.catch(() => {});
  while (!settled) {
    await quiet(agent);
    if (settled) break;
    // Nothing sleeps, and the work still waits: on a stream, or on something outside the clock.
    if (!clock.wakeNext()) await new Promise((r) => setTimeout(r, 5));
  }
  return work;
}

/** A stream that keeps what is written, and says it is a terminal of some width when asked to. */
export class Screen extends Writable {
  text = '';
  isTTY?: boolean;
  columns?: number;

  constructor(options: { isTTY?: boolean; columns?: number } = {}) {
    super({ decodeStrings: false });
    if (options.isTTY) this.isTTY = true;
    if (options.columns !== undefined) this.columns = options.columns;
  }

  /** Called after each write, with all the text so far. */
  watch?: (text: string) => void;

  override _write(chunk: unknown, _enc: BufferEncoding, cb: (error?: Error | null) => void): void {
    this.text += String(chunk);
    this.watch?.(this.text);
    cb();
  }
}

export interface VirtualRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface VirtualRunOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  /** stderr (and stdout) are a terminal of this many columns. */
  terminal?: { columns: number };
  /** A Ctrl-C, once stderr shows this. */
  interruptWhen?: RegExp;
}

export interface VirtualWorld {
  sandbox: Sandbox;
  clock: VirtualClock;
  configDir: string;
  env: Record<string, string>;
  /** `hogctl <args>` in this process, on the virtual clock, against the sandbox. */
  run(args: string[], options?: VirtualRunOptions): Promise<VirtualRun>;
  close(): Promise<void>;
}

/** A sandbox and hogctl in this process, sharing one virtual clock. */
export async function startVirtualWorld(options: SandboxOptions = {}): Promise<VirtualWorld> {
  const clock = new VirtualClock();
  // The sandbox's apply delay (capture, accepted writes) passes on the same clock, while a run
  // moves it; a delay of 0 is a real timer's, so that an apply left after a run still happens.
  const later = (ms: number, fn: () => void) => void (ms > 0 ? clock.sleep(ms).then(fn) : setTimeout(fn, 0));
  const sandbox = await startSandbox({ quiet: true, ...options, now: clock.now, later });
  const configDir = mkdtempSync(join(tmpdir(), 'hogctl-virtual-'));
  const agent = new CountingAgent({ keepAliveTimeout: 10_000, connections: 16 });
  const env = {
    HOGCTL_CONFIG_DIR: configDir,
    HOGCTL_BASE_URL: sandbox.url,
    HOGCTL_PROJECT_ID: String(sandbox.projectId),
    HOGCTL_API_KEY: sandbox.defaultKey,
    TZ: 'UTC',
  };
  return {
    sandbox,
    clock,
    configDir,
    env,
    async run(args, runOptions = {}) {
      const tty = runOptions.terminal !== undefined;
      const stdout = new Screen({ isTTY: tty, columns: runOptions.terminal?.columns });
      const stderr = new Screen({ isTTY: tty, columns: runOptions.terminal?.columns });
      const stdin = Readable.from([runOptions.stdin ?? '']) as unknown as NodeJS.ReadStream;
      const ctrlC = new AbortController();
      const pattern = runOptions.interruptWhen;
      // Once: a second Ctrl-C would stop at once, without the journal's last words.
      if (pattern) stderr.watch = (text) => pattern.test(text) && !ctrlC.signal.aborted && ctrlC.abort(new Error('interrupted'));
      const running = main(args, {
        io: { stdout, stderr, stdin },
        env: { ...env, ...runOptions.env },
        now: clock.now,
        sleep: clock.sleep,
        // The backoff's jitter in the middle, so that a run takes the same time on every run.
        random: () => 0.5,
        dispatcher: agent,
        signal: ctrlC.signal,
      });
      const code = await drive(clock, running, agent);
      return { code, stdout: stdout.text, stderr: stderr.text };
    },
    async close() {
      await agent.close();
      await sandbox.close();
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}
