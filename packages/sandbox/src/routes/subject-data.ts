// What PostHog holds about one person beyond the record and its events, as a subject-access
// export reads it (docs/server-contract.md §6.7 and §15):
//
// - GET /persons/properties_at_time/ (posthog/api/person.py, `PersonViewSet.properties_at_time`):
//   the person with its properties rebuilt from the `$set` / `$set_once` of its events up to a
//   time, and `point_in_time_metadata`. Scope person:read.
// - GET /session_recordings/ (posthog/session_recordings/session_recording_api.py,
//   `SessionRecordingViewSet.list`, `SessionRecordingSerializer.Meta.fields`), GET
//   /session_recordings/{id}/ (`retrieve`) and GET /session_recordings/{id}/snapshots/
//   (`snapshots`: the sources first, then a source's blocks). Scope session_recording:read.
//
// The sandbox records no replays, so a recording is made of the events that carry a
// `$session_id`: one per session, its times and counts from those events. `person_uuid` selects
// the sessions whose events resolve to that person (person_id read through merge overrides, as
// in the persons-on-events mode PostHog uses for it, docs/server-contract.md §15.4). The snapshot
// content is one rrweb meta event per page the session saw, as JSON lines.
//
// - GET /feature_flags/evaluation_reasons/?distinct_id= (posthog/api/feature_flag.py,
//   `FeatureFlagViewSet.evaluation_reasons`): every flag of the project as evaluated for that
//   distinct id (feature-flags.ts), disabled flags as `value: false`, reason "disabled". The
//   action names no `required_scopes` and is neither `list` nor `retrieve`, and the view set sets
//   no `scope_object_read_actions`, so it has no scope mapping (posthog/permissions.py,
//   `ScopeBasePermission._get_required_scopes`): a personal API key is refused with 403 "This
//   action does not support personal API key access"; a signed-in session is answered.

import { json, lastParam, type Handler, type RequestContext, type Services, type SandboxResponse } from '../context.js';
import type { EventStore } from '../events.js';
import { notFound, rawError, validationError } from '../errors.js';
import { evaluationReasons } from '../feature-flags.js';
import { serializeRecord } from '../person-format.js';
import type { ThrottleClass } from '../rate-limit.js';
import type { Router } from '../router.js';
import { canonicalUuid, formatTimestampUs, type Person } from '../store.js';
import { personsRouteDefaults, storeFor } from '../person-viewset.js';

const DAY_US = 86_400e6;
/** RecordingsQuery's default page (the comment in `bulk_delete`: "defaults to 50 rows"). */
const DEFAULT_RECORDINGS_LIMIT = 50;
/** RecordingsQuery.date_from's default in posthog/schema.py. */
const DEFAULT_DATE_FROM = '-3d';
/** How far apart the first and last block keys of one call may be with a personal API key
 * (`SessionRecordingSnapshotsRequestSerializer.validate`). */
const MAX_BLOCKS_PER_KEY_CALL = 20;

function eventsFor(ctx: RequestContext, app: Services): EventStore {
  const events = app.events.get(ctx.project!.id);
  if (!events) throw notFound('Project not found.');
  return events;
}

function parseTime(raw: string, nowMs: number): number | null {
  const relative = /^-(\d+)([hdwmy])$/.exec(raw.trim());
  if (relative) {
    const unit = { h: 3600e3, d: 86_400e3, w: 7 * 86_400e3, m: 30 * 86_400e3, y: 365 * 86_400e3 }[relative[2] as 'h'];
    return (nowMs - Number(relative[1]) * unit) * 1000;
  }
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? null : ms * 1000;
}

// ---- properties at a time -------------------------------------------------------------------

function pythonIsoFormat(ms: number): string {
  const iso = new Date(ms).toISOString();
  const millis = iso.slice(20, 23);
  return `${iso.slice(0, 19)}${millis === '000' ? '' : `.${millis}000`}+00:00`;
}

function asObject(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** GET /persons/properties_at_time/?distinct_id=…|person_id=…&timestamp=…&include_set_once= */
const propertiesAtTime: Handler = (ctx, app) => {
  const store = storeFor(ctx, app);
  const distinctId = lastParam(ctx.query, 'distinct_id');
  const personId = lastParam(ctx.query, 'person_id');
  const timestamp = lastParam(ctx.query, 'timestamp');
  const includeSetOnce = (lastParam(ctx.query, 'include_set_once') ?? 'false').toLowerCase() === 'true';
  // The checks and their words are the view's own (posthog/api/person.py, properties_at_time).
  if (distinctId && personId) throw rawError(400, { error: 'Cannot provide both distinct_id and person_id - choose one' });
  if (!distinctId && !personId) throw rawError(400, { error: 'Must provide either distinct_id or person_id parameter' });
  if (!timestamp) throw rawError(400, { error: 'timestamp parameter is required (ISO format: 2023-06-15T14:30:00Z)' });
  const atMs = Date.parse(timestamp);
  if (Number.isNaN(atMs)) throw rawError(400, { error: 'Invalid timestamp format. Use ISO format like 2023-06-15T14:30:00Z' });
  let person: Person | undefined;
  if (personId) person = store.getByIdOrUuid(canonicalUuid(personId) ?? personId);
  else person = store.getByDistinctId(distinctId!);
  if (!person) {
    const [type, identifier] = distinctId ? ['distinct_id', distinctId] : ['person_id', personId];
    throw rawError(404, { error: `Person with ${type} '${identifier}' not found` });
  }

  // Every distinct id of the person, as the point-in-time builder queries them all.
  const ids = new Set(person.distinctIds);
  const events = eventsFor(ctx, app);
  const rows: number[] = [];
  events.forEachRow((row) => {
    if (ids.has(events.distinctId(row)) && events.timestamp(row) <= atMs * 1000) rows.push(row);
  });
  rows.sort((a, b) => events.timestamp(a) - events.timestamp(b));
  const properties: Record<string, unknown> = {};
  for (const row of rows) {
    const text = events.propertiesText(row);
    if (!text.includes('$set')) continue;
    let parsed: Record<string, unknown> | null;
    try {
      parsed = asObject(JSON.parse(text));
    } catch {
      continue;
    }
    const setOnce = includeSetOnce ? asObject(parsed?.$set_once) : null;
    for (const [k, v] of Object.entries(setOnce ?? {})) if (!(k in properties)) properties[k] = v;
    for (const [k, v] of Object.entries(asObject(parsed?.$set) ?? {})) properties[k] = v;
  }
  return json(200, {
    ...serializeRecord(person),
    properties,
    point_in_time_metadata: {
      // Python's datetime.isoformat() of an aware UTC time.
      queried_timestamp: pythonIsoFormat(atMs),
      include_set_once: includeSetOnce,
      distinct_id_used: distinctId,
      person_id_used: personId,
      query_mode: distinctId ? 'distinct_id' : 'person_id',
      distinct_ids_queried: [...ids],
      distinct_ids_count: ids.size,
    },
  });
};

// ---- session recordings ---------------------------------------------------------------------

interface Session {
  id: string;
  distinctId: string;
  personUuid: string;
  startUs: number;
  endUs: number;
  clicks: number;
  events: number;
  startUrl: string | null;
  urls: string[];
}

function urlOf(text: string): string | null {
  const m = /"\$current_url":"([^"]*)"/.exec(text);
  return m ? m[1] : null;
}

const sessionCache = new WeakMap<EventStore, { version: number; sessions: Map<string, Session> }>();

/** One recording per `$session_id`, from the events that carry it (made again when they change). */
function sessions(events: EventStore): Map<string, Session> {
  void events.size; // lays down the seeded history first, which changes the version
  const cached = sessionCache.get(events);
  if (cached && cached.version === events.version) return cached.sessions;
  const out = buildSessions(events);
  sessionCache.set(events, { version: events.version, sessions: out });
  return out;
}

function buildSessions(events: EventStore): Map<string, Session> {
  const out = new Map<string, Session>();
  events.forEachRow((row) => {
    const id = events.sessionId(row);
    if (!id) return;
    const at = events.timestamp(row);
    let s = out.get(id);
    if (!s) {
      s = {
        id,
        distinctId: events.distinctId(row),
        personUuid: events.personId(row),
        startUs: at,
        endUs: at,
        clicks: 0,
        events: 0,
        startUrl: null,
        urls: [],
      };
      out.set(id, s);
    }
    const url = urlOf(events.propertiesText(row));
    if (at <= s.startUs) {
      s.startUs = at;
      s.distinctId = events.distinctId(row);
      s.personUuid = events.personId(row);
      if (url) s.startUrl = url;
    }
    if (!s.startUrl && url) s.startUrl = url;
    if (url && !s.urls.includes(url) && s.urls.length < 20) s.urls.push(url);
    s.endUs = Math.max(s.endUs, at);
    s.events++;
    if (events.event(row) === '$autocapture') s.clicks++;
  });
  return out;
}

function serializeRecording(s: Session, person: Person | undefined, nowMs: number) {
  const duration = Math.round((s.endUs - s.startUs) / 1e6);
  return {
    id: s.id,
    distinct_id: s.distinctId,
    viewed: false,
    viewers: [],
    recording_duration: duration,
    active_seconds: duration,
    inactive_seconds: 0,
    start_time: formatTimestampUs(s.startUs),
    end_time: formatTimestampUs(s.endUs),
    click_count: s.clicks,
    keypress_count: 0,
    mouse_activity_count: s.clicks,
    console_log_count: 0,
    console_warn_count: 0,
    console_error_count: 0,
    start_url: s.startUrl,
    person: person
      ? {
          id: person.id,
          name: serializeRecord(person).name,
          distinct_ids: serializeRecord(person).distinct_ids.slice(0, 10),
          properties: person.properties,
          created_at: person.createdAt,
          uuid: person.uuid,
        }
      : null,
    retention_period_days: 90,
    expiry_time: formatTimestampUs(s.startUs + 90 * DAY_US),
    recording_ttl: Math.max(0, Math.ceil((s.startUs + 90 * DAY_US - nowMs * 1000) / DAY_US)),
    snapshot_source: 'web',
    snapshot_library: 'web',
    ongoing: false,
    activity_score: null,
    has_summary: false,
    summary_outcome: null,
    external_references: [],
    matches_filters: true,
  };
}

/** Query parameters are JSON-decoded where they parse (query_as_params_to_dict). */
function param(ctx: RequestContext, name: string): string | null {
  const raw = lastParam(ctx.query, name);
  if (raw === null) return null;
  try {
    const parsed = JSON.parse(raw);
    return typeof parsed === 'string' || typeof parsed === 'number' ? String(parsed) : raw;
  } catch {
    return raw;
  }
}

function intOr(ctx: RequestContext, name: string, fallback: number): number {
  const raw = param(ctx, name);
  if (raw === null || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) {
    // RecordingsQuery's pydantic errors, as JSON text (filter_from_params_to_query).
    throw validationError(JSON.stringify([{ type: 'int_parsing', loc: [name], msg: 'Input should be a valid integer' }]));
  }
  return n;
}

const listRecordings: Handler = (ctx, app) => {
  const events = eventsFor(ctx, app);
  const store = storeFor(ctx, app);
  const nowMs = app.now();
  const personUuid = param(ctx, 'person_uuid');
  const from = parseTime(param(ctx, 'date_from') ?? DEFAULT_DATE_FROM, nowMs);
  const toRaw = param(ctx, 'date_to');
  const to = toRaw ? parseTime(toRaw, nowMs) : null;
  if (from === null || (toRaw && to === null)) {
    throw validationError(JSON.stringify([{ type: 'value_error', loc: ['date_from'], msg: 'Invalid date' }]));
  }
  const limit = intOr(ctx, 'limit', DEFAULT_RECORDINGS_LIMIT);
  const offset = intOr(ctx, 'offset', 0);
  const wanted = personUuid ? canonicalUuid(personUuid) : null;
  if (personUuid && !wanted)
    throw validationError(JSON.stringify([{ type: 'uuid_parsing', loc: ['person_uuid'], msg: 'Input should be a valid UUID' }]));
  const all = [...sessions(events).values()]
    .filter((s) => (!wanted || s.personUuid === wanted) && s.startUs >= from && (to === null || s.startUs <= to))
    .sort((a, b) => b.startUs - a.startUs);
  const page = all.slice(offset, offset + limit);
  return json(200, {
    results: page.map((s) => serializeRecording(s, store.getByUuid(s.personUuid), nowMs)),
    has_next: offset + limit < all.length,
    version: 4,
  });
};

function recordingOr404(ctx: RequestContext, app: Services): Session {
  const s = sessions(eventsFor(ctx, app)).get(ctx.params.id);
  if (!s) throw notFound('Recording not found');
  return s;
}

const retrieveRecording: Handler = (ctx, app) => {
  const s = recordingOr404(ctx, app);
  return json(200, serializeRecording(s, storeFor(ctx, app).getByUuid(s.personUuid), app.now()));
};

/** The sources first; then, for `source=blob_v2`, the blocks asked for as JSON lines. */
const snapshots: Handler = (ctx, app): SandboxResponse => {
  const s = recordingOr404(ctx, app);
  const source = lastParam(ctx.query, 'source');
  const blocks = Math.max(1, s.urls.length);
  if (source === null) {
    return json(200, {
      sources: Array.from({ length: blocks }, (_, i) => ({
        source: 'blob_v2',
        start_timestamp: formatTimestampUs(s.startUs),
        end_timestamp: formatTimestampUs(s.endUs),
        blob_key: String(i),
      })),
    });
  }
  if (source !== 'blob_v2') throw validationError(`Invalid source: ${source}`);
  // SessionRecordingSnapshotsRequestSerializer.validate: integer keys, and at most 20 apart with
  // a personal key (100 otherwise).
  const start = Number(lastParam(ctx.query, 'start_blob_key'));
  const end = Number(lastParam(ctx.query, 'end_blob_key') ?? start);
  if (!Number.isInteger(start) || !Number.isInteger(end)) throw validationError('Blob key must be an integer');
  const allowed = ctx.principal?.kind === 'personal_api_key' ? MAX_BLOCKS_PER_KEY_CALL : 100;
  if (end - start > allowed) throw validationError(`Cannot request more than ${allowed} blob keys at once`);
  const lines: string[] = [];
  for (let key = start; key <= Math.min(end, blocks - 1); key++) {
    const href = s.urls[key] ?? s.startUrl ?? '';
    lines.push(JSON.stringify({ window_id: `${s.id}-w`, data: [{ type: 4, timestamp: Math.floor(s.startUs / 1000), data: { href } }] }));
  }
  return { status: 200, headers: { 'Content-Type': 'application/jsonl' }, body: lines.join('\n') + (lines.length ? '\n' : '') };
};

// ---- feature flags --------------------------------------------------------------------------

const flagEvaluationReasons: Handler = (ctx, app) => {
  const distinctId = lastParam(ctx.query, 'distinct_id');
  // `if not distinct_id: raise ValidationError(detail="distinct_id is required")`.
  if (!distinctId) throw validationError('distinct_id is required');
  const person = storeFor(ctx, app).getByDistinctId(distinctId);
  return json(200, evaluationReasons(ctx.project!.id, distinctId, person));
};

export function registerSubjectDataRoutes(router: Router): void {
  router.add({
    ...personsRouteDefaults,
    pattern: '/api/projects/:projectId/persons/properties_at_time',
    detail: false,
    methods: { GET: { action: 'properties_at_time', handler: propertiesAtTime, requiredScopes: ['person:read'] } },
  });
  const recordings = {
    scopeObject: 'session_recording',
    projectParam: 'projectId',
    throttle: (): ThrottleClass => 'read',
    environmentsAlias: true,
  } as const;
  router.add({
    ...recordings,
    pattern: '/api/projects/:projectId/session_recordings',
    detail: false,
    methods: { GET: { action: 'list', handler: listRecordings } },
  });
  router.add({
    ...recordings,
    pattern: '/api/projects/:projectId/session_recordings/:id',
    detail: true,
    methods: { GET: { action: 'retrieve', handler: retrieveRecording } },
  });
  router.add({
    ...recordings,
    pattern: '/api/projects/:projectId/session_recordings/:id/snapshots',
    detail: true,
    methods: { GET: { action: 'snapshots', handler: snapshots, requiredScopes: ['session_recording:read'] } },
  });
  router.add({
    scopeObject: 'feature_flag',
    projectParam: 'projectId',
    throttle: (): ThrottleClass => 'default',
    environmentsAlias: true,
    pattern: '/api/projects/:projectId/feature_flags/evaluation_reasons',
    detail: false,
    methods: { GET: { action: 'evaluation_reasons', handler: flagEvaluationReasons, requiredScopes: null } },
  });
}
