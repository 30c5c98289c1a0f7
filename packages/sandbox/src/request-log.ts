// The record of every request the sandbox received (but its own /_sandbox/ ones), for tests and
// `GET /_sandbox/requests`: what was sent, and the status of the answer once there is one.

import { gunzipSync } from 'node:zlib';
import { CAPTURE_PATH, MAX_CAPTURE_BYTES } from './capture.js';
import type { Exchange } from './socket.js';

export interface RecordedRequest {
  method: string;
  /** The path as received (an /api/environments/ path stays as it was sent). */
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The status sent; 0 when the connection was dropped (or the answer is still pending). */
  status: number;
  at: number;
}

const REQUEST_LOG_CAP = 200_000;

function readableCapture(body: Buffer): string {
  if (body.length < 2 || body[0] !== 0x1f || body[1] !== 0x8b) return body.toString('utf8');
  try {
    return gunzipSync(body, { maxOutputLength: MAX_CAPTURE_BYTES }).toString('utf8');
  } catch {
    return body.toString('utf8');
  }
}

function queryRecord(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of params) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

/** Records `exchange` in `requests` (oldest first, capped) and returns its entry, status 0. */
export function recordRequest(requests: RecordedRequest[], exchange: Exchange): RecordedRequest {
  const { method, path, rawQuery, headers, body, at } = exchange;
  const entry: RecordedRequest = {
    method,
    path,
    query: queryRecord(new URLSearchParams(rawQuery)),
    headers: { ...headers },
    // A gzipped capture body is kept decoded, so that tests can read the events sent.
    body: body === 'too-large' ? '' : CAPTURE_PATH.test(path) ? readableCapture(body) : body.toString('utf8'),
    status: 0,
    at,
  };
  requests.push(entry);
  // Drop a tenth at once so trimming stays amortised O(1).
  if (requests.length > REQUEST_LOG_CAP) requests.splice(0, requests.length - REQUEST_LOG_CAP + REQUEST_LOG_CAP / 10);
  return entry;
}
