// A server that lies, for the tests of what hogctl does with a hostile or broken answer: a small
// HTTP proxy in this process, in front of the sandbox, that can rewrite the path of a request
// before it is passed on and the JSON of an answer before it is sent back. Everything else
// (status, the sandbox's own errors, non-JSON answers) passes through as the sandbox gave it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AnswerRewrite {
  /** The path (and query) the sandbox is asked for, from the one hogctl sent. */
  path?: (path: string) => string;
  /** The JSON answer hogctl gets, from the sandbox's (its request's JSON body beside it). */
  answer?: (path: string, body: unknown, request: unknown) => unknown;
}

export interface AnswerProxy {
  url: string;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

export async function startAnswerProxy(target: string, rewrite: AnswerRewrite): Promise<AnswerProxy> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void relay(target, rewrite, req, Buffer.concat(chunks)).then(
        (answer) => {
          res.writeHead(answer.status, answer.headers);
          res.end(answer.body);
        },
        (err: unknown) => {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(String(err));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function relay(
  target: string,
  rewrite: AnswerRewrite,
  req: http.IncomingMessage,
  body: Buffer,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer | string }> {
  const path = rewrite.path ? rewrite.path(req.url ?? '/') : (req.url ?? '/');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && typeof value === 'string') headers[name] = value;
  const res = await fetch(`${target}${path}`, {
    method: req.method,
    headers,
    body: body.length && req.method !== 'GET' && req.method !== 'HEAD' ? new Uint8Array(body) : undefined,
  });
  const type = res.headers.get('content-type') ?? '';
  const out: Record<string, string> = { 'content-type': type };
  const retryAfter = res.headers.get('retry-after');
  if (retryAfter) out['retry-after'] = retryAfter;
  const text = await res.text();
  if (!rewrite.answer || !type.includes('json') || !res.ok) return { status: res.status, headers: out, body: text };
  const request = headers['content-type']?.includes('json') && body.length ? JSON.parse(body.toString('utf8')) : undefined;
  return { status: res.status, headers: out, body: JSON.stringify(rewrite.answer(req.url ?? '/', JSON.parse(text), request)) };
}
