// The capture endpoints (`POST /batch/`, `/i/v0/e/`, `/e/`) and the part of ingestion that
// changes persons: `$set`, `$set_once` and `$unset` of any event, applied to the person behind
// the event's distinct id after the apply delay, and a new person for a distinct id that has none.
//
// What this copies from PostHog's capture service (PostHog/posthog rust/capture/src/api.rs,
// token.rs, payload/decompression.rs):
// - Authentication is the project API key in the body (`api_key`, `token` or `$token`, on the
//   batch or on each event). Capture only checks the key's shape (empty, longer than 64
//   characters, not ASCII, a personal `phx_` key, a NUL byte: 401); it does NOT look the key up.
//   A well-formed key of no project is answered 200 like any other, and ingestion drops the
//   events later. A client cannot learn from capture that its key was wrong: only reading the
//   persons back tells.
// - Errors are plain text (axum's `(StatusCode, String)`), not the REST API's JSON bodies:
//   400 for an undecodable or unparsable body, an empty batch, an event without a name or a
//   distinct id, or a timestamp that does not parse; 413 for a payload over the size limit.
// - Success is `200 {"status": "Ok"}` (api.rs: `CaptureResponse { status: CaptureResponseCode::Ok,
//   quota_limited: None }`; the enum has no serde_repr, so it is written as its variant's name, and
//   `quota_limited` is left out when None); nothing is returned per event. A project over its
//   billing quota is answered `{"status": "Ok", "quota_limited": ["events"]}` with its events
//   dropped: the sandbox gives that answer through the `quota-limited` fault (faults.ts).
// - A gzip body is recognised by `Content-Encoding: gzip`, `?compression=gzip(-js)` or its magic
//   bytes.
// The size limit of the real service is configured per deployment; 20 MB (decompressed) is what
// the sandbox enforces [I: the exact Cloud value].
//
// Ingestion: a person created for a distinct id that has none gets the UUIDv5 of team and distinct
// id (uuidFromDistinctId, as split does); a distinct id of a deleted person stays blocked until reset_person_distinct_id, so its events
// change and create nobody. A project that opted out of person processing
// (`person_processing_opt_out`) gets personless events: nobody is changed or created
// (nodejs/src/worker/ingestion/event-pipeline/processPersonlessStep.ts). Values are stored as
// jsonb keeps them (jsonb.ts): the keys of an object value come back reordered.

import { gunzipSync } from 'node:zlib';
import type { SandboxResponse } from './context.js';
import { json } from './context.js';
import { valuesAsJsonb } from './jsonb.js';
import { uuidFromDistinctId } from './routes/person-actions.js';
import type { SandboxStore } from './store.js';
import type { Project, World } from './world.js';

export const CAPTURE_PATH = /^\/(?:batch|i\/v0\/e|e|capture|track)\/?$/;
export const MAX_CAPTURE_BYTES = 20 * 1024 * 1024;

export interface CaptureStats {
  /** Requests answered 200. */
  requests: number;
  /** Events accepted for a known project key (and later applied). */
  events: number;
  /** Events accepted for a key of no project, dropped by ingestion. */
  droppedUnknownKey: number;
  /** Events for a deleted person's (blocked) distinct id: nothing changed. */
  droppedBlocked: number;
  /** Events of a project that does not process persons (person_processing_opt_out): nothing changed. */
  personless: number;
  /** Persons created because an event's distinct id had none. */
  personsCreated: number;
  /** Events applied to an existing person. */
  personsChanged: number;
}

interface CaptureDeps {
  world: World;
  stores: Map<number, SandboxStore>;
  now: () => number;
  later: (ms: number, fn: () => void) => void;
  applyDelayMs: number;
}

type Json = Record<string, unknown>;

class CaptureError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function text(status: number, message: string): SandboxResponse {
  return { status, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: message };
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** token.rs validate_token: shape only, never a lookup. */
function checkToken(raw: string): string {
  const token = raw.trim();
  const invalid = (reason: string) => new CaptureError(401, `API key is not valid: ${reason}`);
  if (token === '') throw new CaptureError(401, 'event submitted without an api_key');
  if (token.length > 64) throw invalid('too_long');
  if (!/^[\x00-\x7f]*$/.test(token)) throw invalid('not_ascii');
  if (token.startsWith('phx_')) throw invalid('personal_api_key');
  if (token.includes('\0')) throw invalid('null_byte');
  return token;
}

function tokenOf(value: Json): string | undefined {
  for (const key of ['api_key', 'token', '$token']) if (typeof value[key] === 'string') return value[key] as string;
  const properties = value.properties;
  if (isObject(properties) && typeof properties.token === 'string') return properties.token;
  return undefined;
}

function decode(body: Buffer, headers: Record<string, string | string[] | undefined>, query: URLSearchParams): string {
  const encoding = String(headers['content-encoding'] ?? '').toLowerCase();
  const hint = (query.get('compression') ?? '').toLowerCase();
  const gzip = encoding.includes('gzip') || hint.startsWith('gzip') || (body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b);
  if (gzip) {
    let out: Buffer;
    try {
      out = gunzipSync(body, { maxOutputLength: MAX_CAPTURE_BYTES + 1 });
    } catch (error) {
      if (error instanceof RangeError || (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new CaptureError(413, `maximum event size exceeded: Decompressed payload would exceed ${MAX_CAPTURE_BYTES} bytes`);
      }
      throw new CaptureError(400, 'failed to decode request: invalid GZIP data');
    }
    if (out.length > MAX_CAPTURE_BYTES)
      throw new CaptureError(413, `maximum event size exceeded: Decompressed payload would exceed ${MAX_CAPTURE_BYTES} bytes`);
    return out.toString('utf8');
  }
  if (body.length > MAX_CAPTURE_BYTES) {
    throw new CaptureError(
      413,
      `maximum event size exceeded: Uncompressed payload size limit ${MAX_CAPTURE_BYTES} exceeded: ${body.length}`,
    );
  }
  return body.toString('utf8');
}

interface Parsed {
  token: string;
  events: Json[];
}

function parse(textBody: string): Parsed {
  let data: unknown;
  try {
    data = JSON.parse(textBody);
  } catch (error) {
    throw new CaptureError(400, `failed to parse request: ${error instanceof Error ? error.message : String(error)}`);
  }
  let events: unknown[];
  let batchToken: string | undefined;
  if (Array.isArray(data)) events = data;
  else if (isObject(data) && Array.isArray(data.batch)) {
    events = data.batch;
    batchToken = tokenOf(data);
  } else if (isObject(data)) events = [data];
  else throw new CaptureError(400, 'failed to parse request: expected an event, an array of events or a batch');
  if (events.length === 0) throw new CaptureError(400, 'request holds no event');

  let token: string | undefined;
  for (const event of events) {
    if (!isObject(event)) throw new CaptureError(400, 'failed to parse request: an event is not an object');
    const own = tokenOf(event) ?? batchToken;
    if (own === undefined) throw new CaptureError(401, 'event submitted without an api_key');
    if (token !== undefined && own.trim() !== token) throw new CaptureError(401, 'batch submitted with inconsistent api_key values');
    token = checkToken(own);
    if (typeof event.event !== 'string' || event.event === '') throw new CaptureError(400, 'event submitted with an empty event name');
    if (distinctIdOf(event) === undefined) throw new CaptureError(400, 'event submitted without a distinct_id');
    if (event.timestamp !== undefined && event.timestamp !== null && Number.isNaN(Date.parse(String(event.timestamp)))) {
      throw new CaptureError(400, 'event submitted with invalid timestamp');
    }
  }
  return { token: token!, events: events as Json[] };
}

function distinctIdOf(event: Json): string | undefined {
  const properties = isObject(event.properties) ? event.properties : {};
  const raw = event.distinct_id ?? event.$distinct_id ?? properties.distinct_id;
  if (typeof raw === 'number' || (typeof raw === 'string' && raw.trim() !== '')) return String(raw);
  return undefined;
}

/** `$set` and friends may sit in `properties` (posthog-js) or at the top of the event (older libraries). */
function personChanges(event: Json): { set: Json; setOnce: Json; unset: string[] } {
  const properties = isObject(event.properties) ? event.properties : {};
  const objectOf = (key: string): Json => ({
    ...(isObject(event[key]) ? event[key] : {}),
    ...(isObject(properties[key]) ? properties[key] : {}),
  });
  const rawUnset = properties.$unset ?? event.$unset;
  const unset = Array.isArray(rawUnset) ? rawUnset.map(String) : isObject(rawUnset) ? Object.keys(rawUnset) : [];
  return { set: objectOf('$set'), setOnce: objectOf('$set_once'), unset };
}

export class Capture {
  readonly stats: CaptureStats = {
    requests: 0,
    events: 0,
    droppedUnknownKey: 0,
    droppedBlocked: 0,
    personless: 0,
    personsCreated: 0,
    personsChanged: 0,
  };

  constructor(private readonly deps: CaptureDeps) {}

  handle(method: string, body: Buffer, headers: Record<string, string | string[] | undefined>, query: URLSearchParams): SandboxResponse {
    if (method !== 'POST') return text(405, 'Method Not Allowed');
    let parsed: Parsed;
    try {
      parsed = parse(decode(body, headers, query));
    } catch (error) {
      if (error instanceof CaptureError) return text(error.status, error.message);
      throw error;
    }
    this.stats.requests++;
    const project = this.deps.world.projects.find((p) => p.apiToken === parsed.token);
    const store = project && this.deps.stores.get(project.id);
    if (!project || !store) {
      this.stats.droppedUnknownKey += parsed.events.length;
    } else {
      this.stats.events += parsed.events.length;
      this.deps.later(this.deps.applyDelayMs, () => {
        for (const event of parsed.events) this.apply(project, store, event);
      });
    }
    return json(200, { status: 'Ok' });
  }

  private apply(project: Project, store: SandboxStore, event: Json): void {
    if (project.personProcessingOptOut) {
      this.stats.personless++;
      return;
    }
    const distinctId = distinctIdOf(event)!;
    const changes = personChanges(event);
    const set = valuesAsJsonb(changes.set);
    const setOnce = valuesAsJsonb(changes.setOnce);
    const { unset } = changes;
    const person = store.getByDistinctId(distinctId);
    if (person) {
      store.mutate(person.id, (p) => {
        for (const [key, value] of Object.entries(setOnce)) if (!(key in p.properties)) p.properties[key] = value;
        Object.assign(p.properties, set);
        for (const key of unset) delete p.properties[key];
      });
      this.stats.personsChanged++;
      return;
    }
    if (store.isDistinctIdBlocked(distinctId)) {
      this.stats.droppedBlocked++;
      return;
    }
    const properties: Json = { ...setOnce, ...set };
    for (const key of unset) delete properties[key];
    const at = event.timestamp ? Date.parse(String(event.timestamp)) : this.deps.now();
    store.addPerson({
      uuid: uuidFromDistinctId(project.id, distinctId),
      createdAtUs: Math.round(at * 1000),
      distinctIds: [distinctId],
      properties,
    });
    this.stats.personsCreated++;
  }
}
