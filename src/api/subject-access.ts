// The reads a subject-access export makes beyond the person, its activity, cohorts and events
// (docs/server-contract.md §15): the properties at a time, and the session recordings' list.
//
// - GET persons/properties_at_time/?person_id=<uuid>&timestamp=<ISO>&include_set_once=true
//   (posthog/api/person.py, `PersonViewSet.properties_at_time`, scope person:read).
// - GET session_recordings/?person_uuid=<uuid>&date_from=…&limit=…&offset=…
//   (posthog/session_recordings/session_recording_api.py, `SessionRecordingViewSet.list`, scope
//   session_recording:read): `{"results", "has_next", "version"}`; date_from is always given,
//   since the server's default looks back three days only.
// - GET feature_flags/evaluation_reasons/?distinct_id=<id> (posthog/api/feature_flag.py,
//   `FeatureFlagViewSet.evaluation_reasons`): `{"<flag key>": {"value", "evaluation": {"reason",
//   "condition_index"}}}` for every flag, disabled ones as `value: false`. The action has no scope
//   mapping, so PostHog refuses a personal API key (403) and answers a signed-in session.
import type { ApiClient } from '../http/client.js';
import { expectShape } from '../http/foreign-answer.js';
import { personsPath } from './persons.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export interface PropertiesAtTime {
  properties: Record<string, unknown>;
  point_in_time_metadata?: Record<string, unknown>;
}

export async function propertiesAtTime(
  client: ApiClient,
  projectId: string,
  personUuid: string,
  timestamp: string,
  options: { signal?: AbortSignal } = {},
): Promise<PropertiesAtTime> {
  const res = await client.get<PropertiesAtTime>(
    personsPath(projectId, 'properties_at_time/'),
    { person_id: personUuid, timestamp, include_set_once: 'true' },
    { signal: options.signal },
  );
  expectShape(res, 'GET', "a person's properties at a time", (b) => isObject(b) && isObject(b.properties));
  return res.body;
}

export interface SessionRecording {
  id: string;
  distinct_id?: string;
  start_time?: string;
  end_time?: string;
  recording_duration?: number;
  start_url?: string | null;
  [field: string]: unknown;
}

/** A page of the recordings list: 100 at a time, `offset` onwards, until has_next is false. */
export async function* personRecordings(
  client: ApiClient,
  projectId: string,
  personUuid: string,
  dateFrom: string,
  options: { signal?: AbortSignal; pageSize?: number } = {},
): AsyncGenerator<SessionRecording[]> {
  const limit = options.pageSize ?? 100;
  for (let offset = 0; ; offset += limit) {
    const res = await client.get<{ results: SessionRecording[]; has_next?: boolean }>(
      `/api/projects/${encodeURIComponent(projectId)}/session_recordings/`,
      { person_uuid: personUuid, date_from: dateFrom, limit, offset },
      { signal: options.signal },
    );
    expectShape(res, 'GET', 'a list of session recordings', (b) => isObject(b) && Array.isArray(b.results));
    yield res.body.results;
    if (!res.body.has_next || res.body.results.length === 0) return;
  }
}

export interface SnapshotSource {
  source: string;
  blob_key?: string | null;
  start_timestamp?: string | null;
  end_timestamp?: string | null;
}

function snapshotsPath(projectId: string, sessionId: string): string {
  return `/api/projects/${encodeURIComponent(projectId)}/session_recordings/${encodeURIComponent(sessionId)}/snapshots/`;
}

/** GET session_recordings/{id}/snapshots/ without a source: where the recording's blocks are. */
export async function snapshotSources(
  client: ApiClient,
  projectId: string,
  sessionId: string,
  options: { signal?: AbortSignal } = {},
): Promise<SnapshotSource[]> {
  const res = await client.get<{ sources: SnapshotSource[] }>(snapshotsPath(projectId, sessionId), undefined, { signal: options.signal });
  expectShape(res, 'GET', 'the sources of a recording', (b) => isObject(b) && Array.isArray(b.sources));
  return res.body.sources;
}

/** The blocks of one source as the server sends them (JSON lines): `blob_v2` by a range of keys
 * (at most 20 with a personal key), `blob_v2_lts` by its one key. */
export async function snapshotBlocks(
  client: ApiClient,
  projectId: string,
  sessionId: string,
  query: Record<string, string>,
  options: { signal?: AbortSignal } = {},
): Promise<string> {
  const res = await client.get<string>(snapshotsPath(projectId, sessionId), query, { signal: options.signal, text: true });
  return typeof res.body === 'string' ? res.body : `${JSON.stringify(res.body)}\n`;
}

export interface FlagEvaluation {
  value: unknown;
  evaluation: { reason?: string; condition_index?: number | null; [field: string]: unknown };
}

/** Every feature flag of the project as PostHog evaluates it for one distinct id. */
export async function flagEvaluationReasons(
  client: ApiClient,
  projectId: string,
  distinctId: string,
  options: { signal?: AbortSignal } = {},
): Promise<Record<string, FlagEvaluation>> {
  const res = await client.get<Record<string, FlagEvaluation>>(
    `/api/projects/${encodeURIComponent(projectId)}/feature_flags/evaluation_reasons/`,
    { distinct_id: distinctId },
    { signal: options.signal },
  );
  expectShape(res, 'GET', "a distinct id's feature-flag evaluation reasons", (b) => isObject(b) && Object.values(b).every(isObject));
  return res.body;
}
