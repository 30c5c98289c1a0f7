// The capture service: `/batch/`, `/e/`, `/i/v0/e/`, `/capture/`, `/track/` and `/engage/`
// (docs/server-contract.md §14.1). It decodes what SDKs send, checks the token's shape, answers,
// and hands the events to ingestion (ingestion.ts) after the apply delay, as PostHog's capture
// answers once the events are on Kafka and the ingestion consumer changes persons later.
//
// What this copies from PostHog's capture service (PostHog/posthog rust/capture/src/):
// - Paths (router.rs `router()`): the six above, with or without a trailing slash, for POST, GET
//   and OPTIONS; OPTIONS answers the success body (v0_endpoint.rs `options()`).
// - The payload (payload/common.rs `extract_payload_bytes()`): the `data` query parameter when
//   present and not empty, else the body; a payload that is not a form and looks like strict
//   base64 is base64-decoded first; an `application/x-www-form-urlencoded` body must carry
//   `data=`, `_=`, `ip=` or `compression=`, and its `data` field is the payload (spaces back to
//   `+` when it looks base64).
// - Compression (utils.rs `extract_compression()`, payload/decompression.rs
//   `decompress_payload()`): the hint comes from `?compression=`, then the form's `compression`,
//   then `Content-Encoding`; gzip on the hint or the magic bytes `1f 8b 08`, LZ-string on the hint
//   only, else UTF-8; on the legacy paths (`/e`, `/capture`, `/engage`, `/track`) a result that is
//   still base64 is decoded once more.
// - The shapes (v0_request.rs `RawRequest`): an array of events, a batch object (`api_key` or
//   `token`, `batch`, `historical_migration`, `sent_at`), one event, and on `/engage` an event
//   without a name, which becomes `$identify`.
// - The token (utils.rs `extract_and_verify_token()`, token.rs `validate_token()`): the batch's
//   `api_key`/`token` wins, else each event's `token`/`$token`/`api_key`, then
//   `properties.token`; every event's must agree. Only the shape is checked (empty, longer than 64
//   bytes, not ASCII, a personal `phx_` key, a NUL byte: 401); a well-formed key of no project is
//   answered 200 and its events are dropped by ingestion.
// - Errors are the error's text as a plain-text body (api.rs `impl IntoResponse for
//   CaptureError`); one bad event fails the whole request (events/analytics.rs
//   `process_events()`).
// - Limits (router.rs): 2 MiB as received on the single-event paths, 20 MiB on `/batch`; the
//   decompressed payload is capped at 20 MiB here (the deployment's `event_payload_size_limit`).
// - The event (common_types `RawEvent`, events/analytics.rs `process_single_event()`): the
//   distinct id is stringified, NUL becomes U+FFFD and it is cut to 200 characters; a sent uuid is
//   kept (a non-UUID string is refused), else a UUIDv7 is made; the timestamp is corrected by the
//   request's `sent_at` (`now + (timestamp - sent_at)`) unless `$ignore_sent_at`; `$performance_event`
//   events are dropped.
// - Success is `200 {"status":"Ok"}` (api.rs `CaptureResponse { status: CaptureResponseCode::Ok,
//   quota_limited: None }`: the enum has no serde_repr, so it is written as its variant's name, and
//   `quota_limited` is left out when None). A batch of events of a project over its billing limit
//   gets the same `{"status": "Ok"}`, its events dropped (v0_endpoint.rs `event()`:
//   `Err(CaptureError::BillingLimit) => Ok(CaptureResponse { status: Ok, quota_limited: None })`;
//   only recordings are answered `quota_limited: ["recordings"]`): the sandbox gives that answer
//   through the `quota-limited` fault (faults.ts).

import { randomFillSync } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { SandboxResponse } from './context.js';
import { json } from './context.js';
import { decompressFromBase64, LzStringError } from './lz-string.js';
import type { IngestEvent } from './ingestion.js';

export const CAPTURE_PATH = /^\/(?:batch|i\/v0\/e|e|capture|track|engage)\/?$/;
/** The decompressed payload cap (`event_payload_size_limit`; the deployment's value is not in the source). */
export const MAX_CAPTURE_BYTES = 20 * 1024 * 1024;
/** router.rs EVENT_BODY_SIZE and BATCH_BODY_SIZE: the body as received. */
const EVENT_BODY_BYTES = 2 * 1024 * 1024;
const BATCH_BODY_BYTES = 20 * 1024 * 1024;
const LEGACY_PATH = /^\/(?:e|capture|engage|track)\/?$/;
const FORM_MIME_TYPE = 'application/x-www-form-urlencoded';
/** The success body (api.rs `CaptureResponse { status: Ok }`, serde's variant name). */
const CAPTURE_OK = { status: 'Ok' };

export interface CaptureStats {
  /** Requests answered 200. */
  requests: number;
  /** Events accepted for a known project key (and later ingested). */
  events: number;
  /** Events accepted for a key of no project, dropped by ingestion. */
  droppedUnknownKey: number;
  /** Persons ingestion created from the accepted events, in every project. */
  personsCreated: number;
  /** Events of a project that does not process persons (person_processing_opt_out): nothing changed. */
  personless: number;
}

/** What capture hands to ingestion: one request's events of one project key. */
export interface CapturedBatch {
  token: string;
  events: IngestEvent[];
}

type Json = Record<string, unknown>;
type Headers = Record<string, string | string[] | undefined>;

export class CaptureError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const decoding = (what: string) => new CaptureError(400, `failed to decode request: ${what}`);
const tooBig = (what: string) => new CaptureError(413, `maximum event size exceeded: ${what}`);

function text(status: number, message: string): SandboxResponse {
  return { status, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: message };
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function header(headers: Headers, name: string): string {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

// ---- payload ------------------------------------------------------------------------------------

const BASE64_BYTE = /^[A-Za-z0-9+/=]*$/;

/** utils.rs is_likely_base64: the first 128 bytes in the alphabet; Strict also wants a length
 * that is a multiple of 4. */
function isLikelyBase64(payload: string, strict: boolean): boolean {
  if (payload.length === 0 || !BASE64_BYTE.test(payload.slice(0, 128))) return false;
  return !strict || payload.length % 4 === 0;
}

/** utils.rs is_likely_urlencoded_form */
function isLikelyForm(payload: string): boolean {
  return ['data=', '_=', 'ip=', 'compression='].some((field) => payload.startsWith(field) || payload.includes(`&${field}`));
}

type Compression = 'gzip' | 'lz' | 'base64' | 'none';

/** utils.rs extract_compression: the query's or form's value, else the header's. */
function compressionOf(value: string | null | undefined, fromHeader: boolean): Compression | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const accepted: Record<string, Compression> = fromHeader
    ? { gzip: 'gzip', 'gzip-js': 'gzip', lz64: 'lz', 'lz-string': 'lz', base64: 'base64', b64: 'base64' }
    : {
        gzip: 'gzip',
        'gzip-js': 'gzip',
        GZIP: 'gzip',
        lz64: 'lz',
        'lz-string': 'lz',
        LZ64: 'lz',
        base64: 'base64',
        b64: 'base64',
        BASE64: 'base64',
      };
  return accepted[value] ?? 'none';
}

/** The base64 of a string of ASCII, or undefined when it does not decode cleanly. */
function decodeBase64(payload: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload) || payload.length % 4 !== 0) return undefined;
  return Buffer.from(payload, 'base64');
}

/** payload/common.rs extract_payload_bytes + payload/decompression.rs decompress_payload. */
export function decodePayload(path: string, body: Buffer, headers: Headers, query: URLSearchParams): string {
  const queryData = query.get('data');
  let raw: Buffer;
  if (queryData !== null && queryData !== '') raw = Buffer.from(queryData, 'utf8');
  else if (body.length > 0) raw = body;
  else throw new CaptureError(400, 'request missing data payload');

  const rawText = raw.toString('latin1');
  let payload = raw;
  if (!isLikelyForm(rawText) && isLikelyBase64(rawText, true)) payload = decodeBase64(rawText) ?? raw;

  let formCompression: string | null = null;
  if (header(headers, 'content-type') === FORM_MIME_TYPE) {
    const formText = payload.toString('utf8');
    if (!isLikelyForm(formText)) throw decoding('expected form data in POST request payload');
    const form = new URLSearchParams(formText);
    formCompression = form.get('compression');
    let data = form.get('data');
    if (data !== null) {
      if (isLikelyBase64(data.replace(/ /g, '+'), false)) data = data.replace(/ /g, '+');
      payload = Buffer.from(data, 'utf8');
    }
  }
  const compression =
    compressionOf(query.get('compression'), false) ??
    compressionOf(formCompression, false) ??
    compressionOf(header(headers, 'content-encoding'), true) ??
    'none';

  let decoded: string;
  if (compression === 'gzip' || (payload.length >= 3 && payload[0] === 0x1f && payload[1] === 0x8b && payload[2] === 0x08)) {
    let out: Buffer;
    try {
      out = gunzipSync(payload, { maxOutputLength: MAX_CAPTURE_BYTES + 1 });
    } catch (error) {
      if (error instanceof RangeError || (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw tooBig(`Decompressed payload would exceed ${MAX_CAPTURE_BYTES} bytes`);
      }
      throw decoding('invalid GZIP data');
    }
    if (out.length > MAX_CAPTURE_BYTES) throw tooBig(`Decompressed payload would exceed ${MAX_CAPTURE_BYTES} bytes`);
    if (!isUtf8(out)) throw decoding('invalid gzip data');
    decoded = out.toString('utf8');
  } else if (compression === 'lz') {
    let out: string | null;
    try {
      out = decompressFromBase64(payload.toString('utf8'));
    } catch (error) {
      if (error instanceof LzStringError) throw decoding('decompress_lz64: failed decompress to UTF16');
      throw error;
    }
    decoded = out ?? '';
    if (Buffer.byteLength(decoded) > MAX_CAPTURE_BYTES) throw tooBig('lz64 request payload size limit exceeded');
  } else {
    if (!isUtf8(payload)) throw decoding('invalid UTF8 in request payload');
    if (payload.length > MAX_CAPTURE_BYTES)
      throw tooBig(`Uncompressed payload size limit ${MAX_CAPTURE_BYTES} exceeded: ${payload.length}`);
    decoded = payload.toString('utf8');
  }
  if (LEGACY_PATH.test(path) && isLikelyBase64(decoded, true)) {
    const again = decodeBase64(decoded);
    if (again && isUtf8(again)) decoded = again.toString('utf8');
  }
  return decoded;
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

// ---- events -------------------------------------------------------------------------------------

/** token.rs validate_token: shape only, never a lookup. */
function checkToken(raw: string): string {
  const token = raw.trim();
  const invalid = (reason: string) => new CaptureError(401, `API key is not valid: ${reason}`);
  if (token === '') throw invalid('empty');
  if (Buffer.byteLength(token) > 64) throw invalid('too_long');
  if (!/^[\x00-\x7f]*$/.test(token)) throw invalid('not_ascii');
  if (token.startsWith('phx_')) throw invalid('personal_api_key');
  if (token.includes('\0')) throw invalid('null_byte');
  return token;
}

/** RawEvent::extract_token: the event's own fields, then `properties.token` (a string only). */
function eventToken(event: Json): string | undefined {
  for (const key of ['token', '$token', 'api_key']) if (typeof event[key] === 'string') return event[key] as string;
  const properties = event.properties;
  if (isObject(properties) && typeof properties.token === 'string') return properties.token;
  return undefined;
}

/** RawEvent::extract_distinct_id */
function distinctIdOf(event: Json): string {
  const properties = isObject(event.properties) ? event.properties : {};
  let raw = event.distinct_id ?? event.$distinct_id;
  if (raw === undefined || raw === null) raw = properties.distinct_id;
  if (raw === undefined || raw === null || raw === '') throw new CaptureError(400, 'event submitted without a distinct_id');
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  return [...text.replace(/\0/g, '\uFFFD')].slice(0, 200).join('');
}

const UUID_ANY = /^(?:urn:uuid:)?\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i;

/** Random bytes drawn 4 KiB at a time: one draw from the system an event was a sixth of the CPU
 * of capturing a batch of 20,000. */
const randomPool = { bytes: Buffer.alloc(4096), used: 4096 };

function random16(): Buffer {
  if (randomPool.used + 16 > randomPool.bytes.length) {
    randomFillSync(randomPool.bytes);
    randomPool.used = 0;
  }
  const bytes = Buffer.from(randomPool.bytes.subarray(randomPool.used, randomPool.used + 16));
  randomPool.used += 16;
  return bytes;
}

/** A UUIDv7 of now (utils.rs uuid_v7). */
function uuidV7(nowMs: number): string {
  const bytes = random16();
  // The 48-bit millisecond time, big-endian: the high 16 bits and the low 32.
  const ms = Math.floor(nowMs);
  bytes.writeUInt16BE(Math.floor(ms / 2 ** 32) & 0xffff, 0);
  bytes.writeUInt32BE((ms % 2 ** 32) >>> 0, 2);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function uuidOf(event: Json, nowMs: number): string {
  const raw = event.uuid;
  if (raw === undefined || raw === null || raw === '') return uuidV7(nowMs);
  const m = typeof raw === 'string' ? UUID_ANY.exec(raw) : null;
  if (!m) throw new CaptureError(400, 'failed to hydrate events from request: invalid uuid');
  return `${m[1]}-${m[2]}-${m[3]}-${m[4]}-${m[5]}`.toLowerCase();
}

/** common_types::timestamp::parse_event_timestamp, as the capture tests show it. */
function timestampOf(event: Json, sentAtMs: number | undefined, nowMs: number): number {
  const properties = isObject(event.properties) ? event.properties : {};
  const offset = typeof event.offset === 'number' ? event.offset : undefined;
  let at: number | undefined;
  if (event.timestamp !== undefined && event.timestamp !== null) {
    at = Date.parse(String(event.timestamp));
    if (Number.isNaN(at)) throw new CaptureError(400, 'event submitted with invalid timestamp');
  }
  if (at === undefined) return offset !== undefined ? nowMs - offset : nowMs;
  if (properties.$ignore_sent_at === true || sentAtMs === undefined) return at;
  return nowMs + (at - sentAtMs);
}

/** v0_request.rs RawRequest + events/analytics.rs process_single_event, for the whole request. */
export function readRequest(path: string, payload: string, query: URLSearchParams, nowMs: number, ip = ''): CapturedBatch {
  let data: unknown;
  try {
    data = JSON.parse(payload);
  } catch (error) {
    throw new CaptureError(400, `failed to parse request: ${error instanceof Error ? error.message : String(error)}`);
  }
  let raw: unknown[];
  let batchToken: string | undefined;
  let sentAt: string | undefined;
  if (Array.isArray(data)) raw = data;
  else if (isObject(data) && Array.isArray(data.batch)) {
    raw = data.batch;
    for (const key of ['api_key', 'token']) if (typeof data[key] === 'string') batchToken ??= data[key] as string;
    if (typeof data.sent_at === 'string') sentAt = data.sent_at;
  } else if (isObject(data)) raw = [data];
  else throw new CaptureError(400, 'failed to parse request: expected an event, an array of events or a batch');
  if (raw.length === 0) throw new CaptureError(400, 'request holds no event');

  // The batch's sent_at, else the `_` query parameter in milliseconds (EventQuery::sent_at).
  let sentAtMs = sentAt !== undefined ? Date.parse(sentAt) : undefined;
  if ((sentAtMs === undefined || Number.isNaN(sentAtMs)) && /^\d+$/.test(query.get('_') ?? '')) sentAtMs = Number(query.get('_'));
  if (sentAtMs !== undefined && Number.isNaN(sentAtMs)) sentAtMs = undefined;

  let token = batchToken;
  if (token === undefined) {
    for (const event of raw) {
      const own = isObject(event) ? eventToken(event) : undefined;
      if (own === undefined) continue;
      if (token !== undefined && own !== token) throw new CaptureError(401, 'batch submitted with inconsistent api_key values');
      token = own;
    }
  }
  if (token === undefined) throw new CaptureError(401, 'event submitted without an api_key');
  token = checkToken(token);

  const engage = /^\/engage\/?$/.test(path);
  const events: IngestEvent[] = [];
  for (const event of raw) {
    if (!isObject(event)) throw new CaptureError(400, 'failed to parse request: an event is not an object');
    let name = event.event;
    if (name === undefined || name === null) {
      if (!engage) throw new CaptureError(400, 'failed to hydrate events from request: non-engage request missing event name attribute');
      name = '$identify';
    }
    if (typeof name !== 'string' || name === '') throw new CaptureError(400, 'event submitted with an empty event name');
    const distinctId = distinctIdOf(event);
    const uuid = uuidOf(event, nowMs);
    const timestampMs = timestampOf(event, sentAtMs, nowMs);
    const properties = isObject(event.properties) ? { ...event.properties } : {};
    if (properties.$cookieless_mode !== undefined && typeof properties.$cookieless_mode !== 'boolean') {
      throw new CaptureError(400, 'invalid cookieless mode');
    }
    if (name === '$performance_event') continue;
    events.push({
      uuid,
      event: name,
      distinctId,
      properties,
      set: isObject(event.$set) ? event.$set : undefined,
      setOnce: isObject(event.$set_once) ? event.$set_once : undefined,
      timestampUs: Math.round(timestampMs * 1000),
      createdAtUs: Math.round(nowMs * 1000),
      sentAt: sentAt,
      ip,
    });
  }
  if (events.length === 0) throw new CaptureError(400, 'request holds no event after filtering');
  return { token, events };
}

export interface CaptureDeps {
  now: () => number;
  later: (ms: number, fn: () => void) => void;
  applyDelayMs: number;
  /** Ingests one request's events; says how many persons that created and how many events of an
   * opted-out project it ingested personless. */
  ingest: (batch: CapturedBatch) => { personsCreated: number; optedOut: number };
  /** Whether the key names a project (counted, never answered differently). */
  knows: (token: string) => boolean;
}

export class Capture {
  readonly stats: CaptureStats = { requests: 0, events: 0, droppedUnknownKey: 0, personsCreated: 0, personless: 0 };

  constructor(private readonly deps: CaptureDeps) {}

  /** `ip`: the client's address (v0_endpoint.rs takes it as `InsecureClientIp` and hands it to
   * ingestion with each event). */
  handle(method: string, path: string, body: Buffer, headers: Headers, query: URLSearchParams, ip = ''): SandboxResponse {
    const cors = corsHeaders(headers);
    if (method === 'OPTIONS') return json(200, CAPTURE_OK, cors);
    if (method !== 'POST' && method !== 'GET') return text(405, 'Method Not Allowed');
    const limit = /^\/batch\/?$/.test(path) ? BATCH_BODY_BYTES : EVENT_BODY_BYTES;
    if (body.length > limit) return text(413, 'Failed to buffer the request body: length limit exceeded');
    let batch: CapturedBatch;
    try {
      batch = readRequest(path, decodePayload(path, body, headers, query), query, this.deps.now(), ip);
    } catch (error) {
      if (error instanceof CaptureError) return text(error.status, error.message);
      throw error;
    }
    this.stats.requests++;
    if (this.deps.knows(batch.token)) this.stats.events += batch.events.length;
    else this.stats.droppedUnknownKey += batch.events.length;
    this.deps.later(this.deps.applyDelayMs, () => {
      const done = this.deps.ingest(batch);
      this.stats.personsCreated += done.personsCreated;
      this.stats.personless += done.optedOut;
    });
    return json(200, CAPTURE_OK, cors);
  }
}

/** router.rs CorsLayer: the request's origin mirrored, credentials allowed. */
function corsHeaders(headers: Headers): Record<string, string> {
  const origin = header(headers, 'origin');
  if (!origin) return {};
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Credentials': 'true',
    'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
    'Access-Control-Allow-Headers': header(headers, 'access-control-request-headers') || '*',
    Vary: 'origin, access-control-request-method, access-control-request-headers',
  };
}
