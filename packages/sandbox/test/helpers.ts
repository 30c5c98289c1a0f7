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
