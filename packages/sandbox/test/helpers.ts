// Shared by the sandbox tests: start a sandbox on 127.0.0.1:0 and call it with undici.
import { request } from 'undici';
import { startSandbox, type Sandbox, type SandboxOptions } from '../src/server.js';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => any;
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  /** undefined: the sandbox's default key; null: no Authorization header; a string: that key. */
  key?: string | null;
  headers?: Record<string, string>;
  body?: string;
}

export async function call(sandbox: Sandbox, path: string, opts: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const key = opts.key === undefined ? sandbox.defaultKey : opts.key;
  if (key !== null && headers.authorization === undefined) headers.authorization = `Bearer ${key}`;
  const res = await request(sandbox.url + path, { method: opts.method ?? 'GET', headers, body: opts.body });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: () => JSON.parse(text) };
}

export async function withSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  return startSandbox({ quiet: true, ...opts });
}

export function errorBody(type: string, code: string, detail: string, attr: string | null = null) {
  return { type, code, detail, attr };
}

/** Polls every 5 ms until `check` gives a value other than false/undefined (the writes under test
 * apply after the sandbox's apply delay), and returns it; fails naming `what` after 2 s. */
export async function until<T>(check: () => T | false | undefined, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = check();
    if (value !== false && value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}
