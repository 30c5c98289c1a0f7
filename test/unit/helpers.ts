// Shared fakes for the unit tests: an undici MockAgent that records every request it answers,
// a sleep that records the delays asked for and never waits, and a stream that collects text.
import { Writable } from 'node:stream';
import { MockAgent } from 'undici';
import { ApiClient, type ClientOptions, type Credentials } from '../../src/http/client.js';

export const KEY = 'phx_testkey0123456789abcd';
export const ORIGIN = 'https://app.posthog.test';

export interface Seen {
  origin: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

export interface Reply {
  status: number;
  /** Objects are sent as JSON; strings as they are. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** Lower-cased header names, whatever shape undici hands the mock. */
export function normHeaders(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!raw) return out;
  if (Array.isArray(raw)) {
    for (let i = 0; i < raw.length; i += 2) out[String(raw[i]).toLowerCase()] = String(raw[i + 1]);
  } else if (raw instanceof Headers) {
    raw.forEach((v, k) => (out[k.toLowerCase()] = v));
  } else {
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) out[k.toLowerCase()] = String(v);
  }
  return out;
}

export class FakeApi {
  readonly agent = new MockAgent();
  readonly requests: Seen[] = [];

  constructor() {
    this.agent.disableNetConnect();
  }

  /** Answers the next requests to `method path` on `origin` with `replies`, one each, in order. */
  on(method: string, path: string, replies: Reply[], origin = ORIGIN): this {
    for (const r of replies) {
      this.agent
        .get(origin)
        .intercept({ path, method })
        .reply((opts) => {
          this.requests.push({
            origin,
            method: opts.method,
            path: opts.path,
            headers: normHeaders(opts.headers),
            body: typeof opts.body === 'string' ? JSON.parse(opts.body) : (opts.body ?? undefined),
          });
          const isText = typeof r.body === 'string';
          return {
            statusCode: r.status,
            data: r.body === undefined ? '' : isText ? (r.body as string) : JSON.stringify(r.body),
            responseOptions: {
              headers: { 'content-type': isText ? 'text/html; charset=utf-8' : 'application/json', ...r.headers },
            },
          };
        });
    }
    return this;
  }

  private closed = false;

  /** Closes the mock agent; closing twice is fine. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.agent.close();
  }

  pending(): number {
    return this.agent.pendingInterceptors().length;
  }
}

export function bearer(key = KEY): Credentials {
  return { headers: () => ({ authorization: `Bearer ${key}` }), secrets: () => [key] };
}

export interface Harness {
  client: ApiClient;
  sleeps: number[];
  logs: string[];
}

/** A client on the fake network that records its sleeps and debug lines. */
export function makeClient(api: FakeApi, options: Partial<ClientOptions> = {}): Harness {
  const sleeps: number[] = [];
  const logs: string[] = [];
  let clock = 1_000_000;
  const client = new ApiClient({
    baseUrl: ORIGIN,
    credentials: bearer(),
    userAgent: 'hogctl/9.8.7 node/20',
    timeoutMs: 5_000,
    dispatcher: api.agent,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    // Every reading of the clock advances it 25 ms, so logged timings are predictable.
    now: () => (clock += 25),
    debug: (line) => logs.push(line),
    ...options,
  });
  return { client, sleeps, logs };
}

/** Runs `fn`, expecting it to reject, and returns what it rejected with. */
export async function rejection(fn: () => Promise<unknown>): Promise<any> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

/** Runs `fn`, expecting it to throw synchronously, and returns what it threw. */
export function thrown(fn: () => unknown): any {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an exception, but none was thrown');
}

export class Collector extends Writable {
  text = '';
  isTTY?: boolean;
  columns?: number;

  constructor(options: { isTTY?: boolean; columns?: number } = {}) {
    super({ decodeStrings: false });
    if (options.isTTY !== undefined) this.isTTY = options.isTTY;
    if (options.columns !== undefined) this.columns = options.columns;
  }

  override _write(chunk: unknown, _enc: BufferEncoding, cb: (error?: Error | null) => void): void {
    this.text += String(chunk);
    cb();
  }
}

// eslint-disable-next-line no-control-regex
export const ANSI = /\u001b\[[0-9;]*m/;
