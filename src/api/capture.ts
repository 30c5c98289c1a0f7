// The capture API (docs/server-contract.md §0): how persons are best changed. A `$set` event for one
// of a person's distinct ids carries `$set`, `$set_once` and `$unset` in its properties; ingestion
// applies them to the person behind that distinct id, asynchronously (usually within seconds).
// Capture authenticates with the project API key in the body (`api_key`), never with a personal
// key, and lives on its own host on PostHog Cloud. It answers `200 {"status": 1}` for a batch it
// accepted and says nothing per event; errors are plain text (PostHog/posthog rust/capture/src/api.rs).
import { gzipSync } from 'node:zlib';
import type { ApiClient, ApiResponse } from '../http/client.js';

/**
 * Where a site's events go: PostHog Cloud ingests on `us.i.posthog.com` and `eu.i.posthog.com`
 * (the legacy `app.posthog.com` is the US site); a self-hosted PostHog ingests on its own URL.
 */
export function ingestionUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (url.hostname === 'us.posthog.com' || url.hostname === 'app.posthog.com') return 'https://us.i.posthog.com';
  if (url.hostname === 'eu.posthog.com') return 'https://eu.i.posthog.com';
  return baseUrl.replace(/\/+$/, '');
}

export interface CaptureEvent {
  event: string;
  distinct_id: string;
  properties: { $set?: Record<string, unknown>; $set_once?: Record<string, unknown>; $unset?: string[] };
  timestamp: string;
  /** Lets ingestion drop a copy of an event sent twice after a lost answer. */
  uuid: string;
}

/** The body of POST /batch/, gzipped (capture reads `Content-Encoding: gzip`). */
export function batchBody(projectKey: string, events: CaptureEvent[]): Buffer {
  return gzipSync(JSON.stringify({ api_key: projectKey, historical_migration: false, batch: events }));
}

/** Sends one batch; every answer comes back (the caller decides what a status means). */
export function sendBatch(
  client: ApiClient,
  body: Buffer,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<ApiResponse<unknown>> {
  return client.request({
    method: 'POST',
    path: '/batch/',
    rawBody: body,
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    // The runner retries (a batch sent twice sets the same values twice), so the client does not.
    retry: { maxRetries: 0 },
    acceptStatus: () => true,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  });
}
