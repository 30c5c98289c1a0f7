// The capture API (docs/server-contract.md §14.1): how persons are best changed. A `$set` event for one
// of a person's distinct ids carries `$set`, `$set_once` and `$unset` in its properties; ingestion
// applies them to the person behind that distinct id, asynchronously (usually within seconds).
// Capture authenticates with the project API key in the body (`api_key`), never with a personal
// key, and lives on its own host on PostHog Cloud. It answers a batch it accepted with `200
// {"status": "Ok"}` (older servers `{"status": 1}`), or 204 with no body, and says nothing per
// event. Events of a project over its billing limit get the same `{"status": "Ok"}` and are
// dropped (rust/capture/src/v0_endpoint.rs `event()`), so acceptance never means applied; older
// servers answered them `"quota_limited": ["events"]` beside the status, still read here as a
// refusal. Errors are plain text (PostHog/posthog rust/capture/src/api.rs, CaptureResponse,
// CaptureResponseCode). Only these shapes are taken as acceptance: any other 2xx
// (a proxy's, or another service's `{"status": 0, "error": …}`) says nothing was ingested.
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

/** Where capture requests go when neither --capture-url nor a journal says: HOGCTL_CAPTURE_URL or
 * the profile's capture URL (`settings.captureUrl`), else the site's ingestion host
 * (commands/persons/shared/capture-url.ts runCaptureHost puts the three in order). */
export function captureHost(settings: { baseUrl: string; captureUrl?: string }): string {
  return settings.captureUrl ?? ingestionUrl(settings.baseUrl);
}

export interface CaptureEvent {
  event: string;
  distinct_id: string;
  properties: {
    $set?: Record<string, unknown>;
    $set_once?: Record<string, unknown>;
    $unset?: string[];
    /** `$merge_dangerously`: the distinct id whose person is merged into this event's (docs/server-contract.md §14.3). */
    alias?: string;
    $lib?: string;
  };
  timestamp: string;
  /** With the same timestamp and distinct id, lets the events table keep one row of an event sent
   * twice (its ReplacingMergeTree collapses such rows when it merges; until then both show). */
  uuid: string;
}

/** What a 2xx answer of capture says: accepted, refused for a quota, or not capture's answer. */
export type CaptureAnswer = { accepted: true } | { accepted: false; quotaLimited: string[] } | { accepted: false; unknown: string };

export function readCaptureAnswer(status: number, body: unknown): CaptureAnswer {
  if (status === 204 && body === null) return { accepted: true };
  if (status === 200 && body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const { status: code, quota_limited: limited, error } = body as Record<string, unknown>;
    // A field added later is no reason to doubt an acceptance; an error beside it is.
    const known = (code === 'Ok' || code === 1) && error === undefined;
    if (known && Array.isArray(limited) && limited.length > 0 && limited.every((x) => typeof x === 'string'))
      return { accepted: false, quotaLimited: limited as string[] };
    if (known && (limited === undefined || limited === null || (Array.isArray(limited) && limited.length === 0))) return { accepted: true };
  }
  const text = body === null ? 'no body' : typeof body === 'string' ? body : JSON.stringify(body);
  return { accepted: false, unknown: `${status} ${text.length > 300 ? `${text.slice(0, 300)}…` : text}` };
}

/**
 * The body of POST /batch/, gzipped (capture reads `Content-Encoding: gzip`). Every event carries
 * `$geoip_disable: true`, as posthog-node's do by default: otherwise the GeoIP transformation, on
 * for every new project, `$set`s the location of the address the request came from (the
 * operator's) on each person the event names, and `$set_once`s it as their `$initial_geoip_*`
 * (docs/server-contract.md §14.1). Added here, so that no event hogctl sends can forget it.
 */
export function batchBody(projectKey: string, events: CaptureEvent[]): Buffer {
  const batch = events.map((e) => ({ ...e, properties: { ...e.properties, $geoip_disable: true } }));
  return gzipSync(JSON.stringify({ api_key: projectKey, historical_migration: false, batch }));
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
    answer: 'capture',
  });
}

/** When a journaled event time is this close to the limit, a fresh one is sent instead. */
const DROP_MARGIN_MS = 10 * 60_000;
/**
 * The shortest drop_events_older_than a project may have (`MinValueValidator(timedelta(hours=1))`,
 * posthog/models/team/team.py). The REST API does not show a project's setting (posthog/api/team.py
 * TEAM_CONFIG_FIELDS and TeamSerializer leave it out), so any project may drop what is older.
 */
const SHORTEST_DROP_SECONDS = 3_600;

/**
 * The timestamp (and the nonce its UUIDs come from) of a job's events. A job keeps the first
 * run's, so that a request sent again carries the same events; but ingestion drops an event
 * older than the project's `drop_events_older_than` after capture answered 200
 * (nodejs/src/ingestion/common/steps/event-processing/drop-old-events-step.ts), so a run resumed
 * near the shortest such age sends the events afresh, now: they are idempotent in effect (a merge applied twice is applied once, a $set of the same values changes
 * nothing).
 */
export function stampToSend(recorded: { nonce: string; timestamp: string }, nowMs: number): { nonce: string; timestamp: string } {
  const age = nowMs - Date.parse(recorded.timestamp);
  if (age < SHORTEST_DROP_SECONDS * 1000 - DROP_MARGIN_MS) return recorded;
  const timestamp = new Date(nowMs).toISOString();
  return { nonce: `${recorded.nonce}:${timestamp}`, timestamp };
}
