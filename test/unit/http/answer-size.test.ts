// An answer larger than its kind may be: a small local server streams it, the caps are scaled
// down, and the client must stop reading early, not ask again, and say what to do.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, type ClientOptions } from '../../../src/http/client.js';
import { paginate } from '../../../src/http/paginate.js';
import { runHogQL } from '../../../src/api/query.js';
import { AnswerTooLargeError, ExitCode } from '../../../src/errors.js';
import { rejection } from '../helpers.js';

const KiB = 1024;

interface Site {
  url: string;
  host: string;
  requests: number;
  /** Bytes the server managed to write, of every answer. */
  written: number;
  close(): Promise<void>;
}

/**
 * Answers every request with a JSON page of `total` bytes, streamed in 16 KiB chunks as the
 * client takes them (chunked, or with its Content-Length when `declare`).
 */
async function startSite(total: number, declare = false): Promise<Site> {
  const site = { requests: 0, written: 0 } as Site;
  const server = http.createServer((req, res) => {
    site.requests++;
    req.resume();
    const head = '{"results":["';
    const tail = '"],"next":null}';
    res.writeHead(200, { 'content-type': 'application/json', ...(declare ? { 'content-length': String(total) } : {}) });
    let left = total - head.length - tail.length;
    res.write(head);
    const more = () => {
      while (left > 0) {
        const n = Math.min(16 * KiB, left);
        left -= n;
        site.written += n;
        if (!res.write('x'.repeat(n))) return void res.once('drain', more);
      }
      res.end(tail);
    };
    res.on('error', () => {});
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  site.url = `http://${site.host}`;
  site.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return site;
}

let site: Site | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await site?.close();
});

function client(options: Partial<ClientOptions> = {}): ApiClient {
  agent = new Agent();
  return new ApiClient({
    baseUrl: site!.url,
    userAgent: 'hogctl/test',
    timeoutMs: 5_000,
    dispatcher: agent,
    sleep: async () => {},
    answerCaps: { page: 64 * KiB, query: 64 * KiB, other: 64 * KiB },
    ...options,
  });
}

describe('an answer over its cap', () => {
  it('a page: reading stops soon after the cap, nothing is asked again, and the error says what to do (exit 7)', async () => {
    site = await startSite(32 * 1024 * KiB);
    const error = await rejection(async () => {
      for await (const page of paginate(client(), '/api/projects/1/persons/', {})) void page;
    });
    expect(error).toBeInstanceOf(AnswerTooLargeError);
    expect(error.exitCode).toBe(ExitCode.unavailable);
    expect(error.message).toBe(
      `${site.host} answered GET /api/projects/1/persons/ with more than 64 KiB, over the 64 KiB hogctl reads for a page of a listing: it stopped reading, and did not ask again`,
    );
    expect(error.hint).toMatch(/--page-size or --limit/);
    expect(site.requests).toBe(1);
    // The rest of the 32 MiB was never sent: at most what the sockets' buffers held.
    expect(site.written).toBeLessThan(12 * 1024 * KiB);
  });

  it('a HogQL result (a POST that may be retried): refused once, naming how to narrow the query', async () => {
    site = await startSite(1024 * KiB);
    const error = await rejection(() => runHogQL(client(), '1', { query: 'select 1', name: 'test' }));
    expect(error).toBeInstanceOf(AnswerTooLargeError);
    expect(error.message).toMatch(
      /answered POST \/api\/projects\/1\/query\/ with more than 64 KiB, over the 64 KiB hogctl reads for a query result/,
    );
    expect(error.hint).toMatch(/narrow the query/);
    expect(site.requests).toBe(1);
  });

  it('a Content-Length over the cap is refused before the body is read', async () => {
    site = await startSite(1024 * KiB, true);
    const error = await rejection(() => client().get('/api/projects/'));
    expect(error).toBeInstanceOf(AnswerTooLargeError);
    expect(error.message).toContain(
      'answered GET /api/projects/ with 1 MiB (its Content-Length), over the 64 KiB hogctl reads for one answer',
    );
    expect(site.requests).toBe(1);
  });

  it('an answer within its cap is read whole', async () => {
    site = await startSite(48 * KiB);
    const res = await client().get<{ results: string[] }>('/api/projects/1/persons/');
    expect(res.body.results[0]).toHaveLength(48 * KiB - '{"results":[""],"next":null}'.length);
  });
});
