// Writes one person's parts other than the events (docs/server-contract.md §15): the record with all
// its distinct ids, the properties as of the export's upper bound, the cohorts, the activity log
// the session recordings' list and the feature flags' evaluation reasons. A part the server refuses to give (a scope the key lacks, an
// endpoint refused to keys, one an older server does not have) is recorded with the server's
// reason and the rest go on: the bundle says what is missing instead of failing whole.
import { existsSync, readFileSync } from 'node:fs';
import type { Context } from '../../../context.js';
import { ApiError } from '../../../errors.js';
import type { ApiClient } from '../../../http/client.js';
import { getPerson } from '../../../api/persons.js';
import { personActivity } from '../../../api/person-actions.js';
import { personCohorts } from '../../../api/person-insights.js';
import { flagEvaluationReasons, personRecordings, propertiesAtTime, snapshotBlocks, snapshotSources } from '../../../api/subject-access.js';
import { appendLines, cutTo, makeDir, writeJson } from './bundle.js';
import { fileStem, inBundle } from './safe-name.js';
import type { ExportPerson, PartState } from './state.js';

/** Where recordings are listed from when no --from is given: five years, beyond any retention. */
const RECORDINGS_LOOKBACK = '-1825d';

/** The parts in the order they are written, with their file names. */
export const PARTS = [
  { name: 'person', file: 'person.json' },
  /** What PostHog rebuilds from $set events (docs/server-contract.md §15.2), not the stored properties. */
  { name: 'properties', file: 'properties-from-set-events.json' },
  { name: 'cohorts', file: 'cohorts.json' },
  { name: 'activity', file: 'activity.json' },
  { name: 'recordings', file: 'recordings.ndjson' },
  /** Per distinct id (the first FLAG_DISTINCT_IDS), every flag's value and why. */
  { name: 'feature flags', file: 'feature-flags.json' },
  /** With --recordings: recordings/<session id>.jsonl, the blocks as the server sends them. */
  { name: 'recording content', file: 'recordings' },
] as const;

/** Why the properties PostHog rebuilds from events can be none while person.json holds some. */
export const NO_SET_EVENTS =
  'PostHog rebuilds these from the $set and $set_once events of the two years before the export, and none of this ' +
  "person's events in that time sets a property (they were set otherwise: through the REST API, an import, or earlier); " +
  'the properties as stored are in person.json';

/** Block keys of `blob_v2` a personal key may ask for in one call (docs/server-contract.md §15.4). */
const BLOCKS_PER_CALL = 20;

/** Distinct ids whose flags are evaluated, a request each: a person merged from thousands of
 * anonymous ids would otherwise cost thousands of requests for near-identical answers. */
export const FLAG_DISTINCT_IDS = 20;

/** PostHog's words when an action has no scope a personal key could hold (posthog/permissions.py). */
const KEYS_REFUSED = /does not support personal API key access/i;

export type PartName = (typeof PARTS)[number]['name'];

/** The server would not give this part to this caller: why, in its words. */
export function refusal(err: unknown): string | undefined {
  if (!(err instanceof ApiError)) return undefined;
  if (err.status === 403 || err.status === 401) return `${err.status}: ${err.server.detail ?? err.message}`;
  // An endpoint this server does not have (an older PostHog), or will not take this method.
  if (err.status === 404 || err.status === 405) return `${err.status}: this server does not offer it`;
  return undefined;
}

/**
 * What to do about the parts `unavailable` names ("…: activity: 403: …"): a refusal is fixed by
 * the key's scopes, an endpoint the server does not offer (404/405, an older PostHog) is not.
 */
export function unreadableHint(unavailable: string[]): string {
  const refused = unavailable.some((u) => /: 40[13]: /.test(u));
  const absent = unavailable.some((u) => /: 40[45]: /.test(u));
  return [
    refused ? 'give the key the scopes named (Settings → Personal API keys) and export again into a new directory' : '',
    absent ? 'a part this server does not offer cannot be exported from it; the rest of the bundle stands' : '',
  ]
    .filter(Boolean)
    .join('; ');
}

export interface CollectContext {
  ctx: Context;
  client: ApiClient;
  bundle: string;
  until: string;
  from: string | null;
  /** The project PostHog looks cohorts up in: the user's current one (null when unknown). */
  currentTeam: string | null;
  /** --recordings: the recordings' content too. */
  recordings: boolean;
  /** The signed-in session (`hogctl auth login`), for what PostHog refuses to keys; null if none. */
  sessionClient: ApiClient | null;
}

/** Reads and writes one part; returns what the journal records of it. */
export async function collectPart(c: CollectContext, person: ExportPerson, part: PartName): Promise<PartState> {
  const file = inBundle(c.bundle, person.dir, PARTS.find((p) => p.name === part)!.file);
  try {
    return await PART_WRITERS[part](c, person, file);
  } catch (err) {
    const why = refusal(err);
    if (why === undefined || part === 'person') throw err;
    return { count: null, unavailable: why };
  }
}

/** Reads one part of a person and writes it into `file`. */
type PartWriter = (c: CollectContext, person: ExportPerson, file: string) => Promise<PartState>;

const PART_WRITERS: Record<PartName, PartWriter> = {
  person: writePersonRecord,
  properties: writeProperties,
  cohorts: writeCohorts,
  activity: writeActivity,
  recordings: writeRecordingsList,
  'feature flags': writeFlagReasons,
  'recording content': writeRecordingsContent,
};

async function writePersonRecord(c: CollectContext, person: ExportPerson, file: string): Promise<PartState> {
  const record = await getPerson(c.client, person.project, person.uuid);
  // The retrieve answer lists every distinct id (unbounded, docs/server-contract.md §15.2).
  if (Array.isArray(record.distinct_ids)) person.distinctIds = record.distinct_ids.map(String);
  writeJson(file, record);
  return { count: null };
}

async function writeProperties(c: CollectContext, person: ExportPerson, file: string): Promise<PartState> {
  const at = await propertiesAtTime(c.client, person.project, person.uuid, c.until, { signal: c.ctx.deps.signal });
  writeJson(file, at);
  const count = Object.keys(at.properties).length;
  return count ? { count } : { count, empty: NO_SET_EVENTS };
}

async function writeCohorts(c: CollectContext, person: ExportPerson, file: string): Promise<PartState> {
  // PostHog answers from the user's current project whatever the URL names
  // (docs/server-contract.md §15.3): another project's answer would be about someone else.
  if (c.currentTeam !== null && c.currentTeam !== person.project) {
    return {
      count: null,
      note: `PostHog looks cohorts up in your user's current project (${c.currentTeam}) only; switch to project ${person.project} in PostHog and export again to include them`,
    };
  }
  const cohorts = await personCohorts(c.client, person.project, person.uuid);
  writeJson(file, cohorts);
  return { count: cohorts.length };
}

async function writeActivity(c: CollectContext, person: ExportPerson, file: string): Promise<PartState> {
  const entries: unknown[] = [];
  for await (const page of personActivity(c.client, person.project, person.uuid, { pageSize: 100, signal: c.ctx.deps.signal }))
    entries.push(...page);
  writeJson(file, entries);
  return { count: entries.length };
}

async function writeRecordingsList(c: CollectContext, person: ExportPerson, file: string): Promise<PartState> {
  // One line a recording, written page by page: a person may have thousands. A part begun
  // by a stopped run is written again from its start.
  cutTo(file, 0);
  let count = 0;
  const from = c.from ?? RECORDINGS_LOOKBACK;
  for await (const page of personRecordings(c.client, person.project, person.uuid, from, { signal: c.ctx.deps.signal })) {
    await appendLines(
      file,
      page.map((r) => `${JSON.stringify(r)}\n`),
    );
    count += page.length;
  }
  return { count };
}

async function writeFlagReasons(c: CollectContext, person: ExportPerson, file: string): Promise<PartState> {
  const evaluated = person.distinctIds.slice(0, FLAG_DISTINCT_IDS);
  const byDistinctId: Record<string, unknown> = {};
  try {
    for (const id of evaluated)
      byDistinctId[id] = await flagEvaluationReasons(c.sessionClient ?? c.client, person.project, id, { signal: c.ctx.deps.signal });
  } catch (err) {
    // No key may read them (the action has no scope mapping): only a session can.
    if (c.sessionClient === null && err instanceof ApiError && err.status === 403 && KEYS_REFUSED.test(String(err.server.detail ?? '')))
      return {
        count: null,
        note: 'PostHog gives feature-flag evaluation reasons to a signed-in session only, not to an API key; run `hogctl auth login` and export again to include them',
      };
    throw err;
  }
  writeJson(file, { distinct_ids_not_evaluated: person.distinctIds.length - evaluated.length, by_distinct_id: byDistinctId });
  return { count: evaluated.length };
}

/** With --recordings: each listed recording's content into its own file. */
async function writeRecordingsContent(c: CollectContext, person: ExportPerson, file: string): Promise<PartState> {
  if (!c.recordings) return { count: null, note: 'not asked for (--recordings)' };
  makeDir(file);
  const listed = inBundle(c.bundle, person.dir, 'recordings.ndjson');
  let count = 0;
  const gone: string[] = [];
  for (const line of existsSync(listed) ? readFileSync(listed, 'utf8').split('\n') : []) {
    if (!line.trim()) continue;
    const id = String((JSON.parse(line) as { id: unknown }).id);
    const target = inBundle(c.bundle, person.dir, 'recordings', `${fileStem(id)}.jsonl`);
    cutTo(target, 0);
    try {
      await recordingContent(c, person.project, id, target);
      count++;
    } catch (err) {
      // Deleted since it was listed (410), or gone (404): said, and the others go on.
      if (!(err instanceof ApiError) || (err.status !== 404 && err.status !== 410)) throw err;
      gone.push(id);
    }
  }
  return gone.length
    ? { count, note: `${gone.length} recordings could not be read (deleted or gone): ${gone.slice(0, 5).join(', ')}` }
    : { count };
}

/** One recording's blocks, source by source, appended to `target` as the server sends them. */
async function recordingContent(c: CollectContext, project: string, id: string, target: string): Promise<void> {
  const signal = c.ctx.deps.signal;
  const sources = await snapshotSources(c.client, project, id, { signal });
  const v2 = sources
    .filter((s) => s.source === 'blob_v2' && s.blob_key !== null && s.blob_key !== undefined)
    .map((s) => Number(s.blob_key))
    .filter((k) => Number.isInteger(k))
    .sort((a, b) => a - b);
  for (let i = 0; i < v2.length; i += BLOCKS_PER_CALL) {
    const keys = v2.slice(i, i + BLOCKS_PER_CALL);
    const text = await snapshotBlocks(
      c.client,
      project,
      id,
      { source: 'blob_v2', start_blob_key: String(keys[0]), end_blob_key: String(keys[keys.length - 1]) },
      { signal },
    );
    if (text) await appendLines(target, [text.endsWith('\n') ? text : `${text}\n`]);
  }
  for (const s of sources.filter((x) => x.source === 'blob_v2_lts' && x.blob_key)) {
    const text = await snapshotBlocks(c.client, project, id, { source: 'blob_v2_lts', blob_key: String(s.blob_key) }, { signal });
    if (text) await appendLines(target, [text.endsWith('\n') ? text : `${text}\n`]);
  }
}
