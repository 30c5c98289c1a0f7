// The socket: an HTTP server on loopback (by default) that reads each request's body whole and
// hands the request to the pipeline, and writes a SandboxResponse back. Nothing here knows
// PostHog; what a request means is pipeline.ts's.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { empty, type SandboxResponse } from './context.js';

/** DATA_UPLOAD_MAX_MEMORY_SIZE */
const MAX_BODY_BYTES = 20 * 1024 * 1024;

/** One request as received, its body read. */
export interface Exchange {
  /** When the request arrived, by the sandbox's clock, and by performance.now() (for durations). */
  at: number;
  started: number;
  method: string;
  /** The URL as sent, an absolute-form URL reduced to its path and query. */
  rawUrl: string;
  path: string;
  /** The query string without the leading `?`, exactly as received. */
  rawQuery: string;
  headers: http.IncomingHttpHeaders;
  /** The client's address as the connection shows it ('' when unknown). An IPv4 client of a
   * dual-stack listener shows as `::ffff:a.b.c.d`; it is given as `a.b.c.d`, the address the
   * client has. */
  remoteAddress: string;
  /** 'too-large' past 20 MiB (the body is read to its end, and not kept). */
  body: Buffer | 'too-large';
  /** Writes the answer (nothing once the client has gone). */
  send(response: SandboxResponse, extraHeaders?: Record<string, string>): void;
  /** Closes the connection without an answer. */
  drop(): void;
}

export interface Listening {
  url: string;
  port: number;
  close(): Promise<void>;
}

function readBody(req: http.IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, response: SandboxResponse, extraHeaders: Record<string, string>): void {
  if (res.destroyed) return;
  const body = response.body ?? '';
  const buffer = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.statusCode = response.status;
  for (const [name, value] of Object.entries({ ...response.headers, ...extraHeaders })) res.setHeader(name, value);
  res.setHeader('Content-Length', buffer.length);
  res.end(buffer);
}

async function exchangeOf(req: http.IncomingMessage, res: http.ServerResponse, now: () => number): Promise<Exchange | undefined> {
  const at = now();
  const started = performance.now();
  const method = (req.method ?? 'GET').toUpperCase();
  let rawUrl = req.url ?? '/';
  if (/^https?:\/\//i.test(rawUrl)) {
    const parsed = new URL(rawUrl);
    rawUrl = parsed.pathname + parsed.search;
  }
  const q = rawUrl.indexOf('?');
  let body: Buffer | 'too-large';
  try {
    body = await readBody(req);
  } catch {
    return undefined; // the client went away mid-body
  }
  return {
    at,
    started,
    method,
    rawUrl,
    path: q === -1 ? rawUrl : rawUrl.slice(0, q),
    rawQuery: q === -1 ? '' : rawUrl.slice(q + 1),
    headers: req.headers,
    remoteAddress: (req.socket.remoteAddress ?? '').replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1'),
    body,
    send: (response, extraHeaders = {}) => send(res, response, extraHeaders),
    drop: () => req.socket.destroy(),
  };
}

/** Listens on `host:port` (0: an ephemeral port); a handler that throws gets a bare 500. */
export async function listen(
  { host, port, now, log }: { host: string; port: number; now: () => number; log: (line: string) => void },
  handle: (exchange: Exchange) => Promise<void>,
): Promise<Listening> {
  const server = http.createServer((req, res) => {
    exchangeOf(req, res, now)
      .then((exchange) => exchange && handle(exchange))
      .catch((error) => {
        log(`sandbox: ${error instanceof Error ? error.stack : String(error)}`);
        if (!res.headersSent) send(res, empty(500), {});
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
