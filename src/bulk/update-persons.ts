// The job of `persons bulk-update`: the same properties set, set once or unset on many persons,
// or each person's own values from a file.
//
// Through capture (the default, docs/server-contract.md §0): one `$set` event a person, addressed
// to a distinct id the person has, 500 persons a gzipped /batch/ request, sent with the project's
// API key to its ingestion host. The key is read with the personal key from GET
// /api/projects/{id}/ when the run starts, kept in memory only, and sent to the ingestion host
// alone. Every person was looked up before (a capture for a distinct id with no person would
// create one), and a batch sent again after a lost answer sets the same values again, which is
// harmless. Ingestion applies the changes asynchronously, so afterwards the persons are read
// back until every change shows (update-verify.ts).
//
// --via api: PATCH /persons/{id}/ with the properties to set and delete_property for each one to
// unset, one person at a time within the REST budget (PostHog allows a personal key 240 of these
// a minute), for servers or policies without capture.
import { createHash } from 'node:crypto';
import type { Context } from '../context.js';
import {
  ApiError,
  AuthError,
  NotFoundError,
  NotPostHogApiError,
  RateLimitedError,
  TlsError,
  UnavailableError,
  UsageError,
  type CliError,
} from '../errors.js';
import { batchBody, ingestionUrl, sendBatch, type CaptureEvent } from '../api/capture.js';
import { deleteProperty, updatePerson } from '../api/person-actions.js';
import { getProject } from '../api/projects.js';
import type { ApiClient } from '../http/client.js';
import { describeHttpError } from '../http/describe-error.js';
import { parseRetryAfter } from '../http/retry.js';
import type { ActionEnv, BulkAction, JobKind } from './action.js';
import { describeChanges, type Changes } from './changes.js';
import type { JournalState } from './journal.js';
import type { Attempt, Chunk } from './runner.js';
import type { IdKind } from './validate.js';
import { verifyUpdate, type ExpectedChanges } from './update-verify.js';

const n = (x: number) => x.toLocaleString('en-US');

/** Persons (events) a capture request carries: 200 requests for 100,000 persons. */
export const CAPTURE_BATCH = 500;
/** PostHog's limit for person requests with a personal key that are not deletes (ClickHouse burst). */
const REST_PER_MINUTE = 240;
/** Capture is not throttled like the REST API; this only keeps a run from flooding a small instance. */
const CAPTURE_PER_MINUTE = 600;

const NO_FLAGS = { delete_events: false, delete_recordings: false, keep_person: false };

export interface UpdateSettings {
  changes: Changes;
  /** Per-person values, by the identifier that names the person (as the input lists it). */
  values?: Map<string, Record<string, unknown>>;
  /** Where capture requests go, when not the host derived from the base URL. */
  captureUrl?: string;
  /** How long to read the persons back for; 0: do not. */
  verifyTimeoutMs: number;
}

const BY: Record<IdKind, string> = {
  person_ids: 'listed by person id',
  distinct_ids: 'listed by distinct id',
  emails: 'named by e-mail address',
  mixed: 'named by e-mail address, distinct id and person id',
  selection: 'chosen by a selection',
};

export function updateKind(u: UpdateSettings): JobKind {
  const { changes } = u;
  const viaApi = changes.via === 'api';
  // One PATCH for the sets (common and per person), one delete_property per key unset.
  const requestsPerPerson = (Object.keys(changes.set).length || u.values ? 1 : 0) + changes.unset.length || 1;
  return {
    command: 'persons bulk-update',
    words: { job: 'update', request: 'change', done: 'changed', unit: 'persons' },
    flags: NO_FLAGS,
    changes,
    hashesIdentifiers: false,
    // Capture needs a distinct id of every person, and no person may be created: all are looked up.
    sendsIdsAsGiven: false,
    chunkSize: viaApi ? 1 : CAPTURE_BATCH,
    windows: viaApi
      ? [{ limit: Math.max(1, Math.floor(REST_PER_MINUTE / requestsPerPerson)), windowMs: 60_000 }]
      : [{ limit: CAPTURE_PER_MINUTE, windowMs: 60_000 }],
    snapshot: () => !viaApi,
    typedConfirmation: () => true,
    makeAction: async (ctx, env) => (viaApi ? apiAction(ctx, env, u) : captureAction(ctx, env, u)),
    verify: (ctx, env) => verifyUpdate(ctx, env, expectations(u, env.targets.projects, env.journal), u.verifyTimeoutMs),
  };
}

/** What every person should look like afterwards. */
function expectations(
  u: UpdateSettings,
  projects: { id: string; matches: Map<string, string[]> }[],
  journal: JournalState,
): ExpectedChanges {
  return {
    set: u.changes.set,
    setOnce: Object.keys(u.changes.set_once),
    unset: u.changes.unset,
    own: ownValues(u, projects, journal),
  };
}

/** Each person's own values (--values-from), by project and UUID, through the identifiers that name them. */
function ownValues(
  u: UpdateSettings,
  projects: { id: string; matches: Map<string, string[]> }[],
  journal?: JournalState,
): Map<string, Map<string, Record<string, unknown>>> {
  const out = new Map<string, Map<string, Record<string, unknown>>>();
  if (!u.values) return out;
  for (const p of projects) {
    const mine = new Map<string, Record<string, unknown>>();
    const matches = p.matches.size ? p.matches : (journal?.matched.get(p.id) ?? new Map<string, string[]>());
    for (const [identifier, values] of u.values) {
      for (const uuid of matches.get(identifier) ?? []) mine.set(uuid, { ...mine.get(uuid), ...values });
    }
    out.set(p.id, mine);
  }
  return out;
}

function common(env: ActionEnv, u: UpdateSettings, request: string): Omit<BulkAction, 'attempt' | 'describeAnswer'> {
  return {
    title: `change the properties of persons ${BY[env.kind]}`,
    request,
    flags: describeChanges(u.changes),
    confirmation: (count) =>
      `This changes the properties of ${n(count)} ${count === 1 ? 'person' : 'persons'} (${describeChanges(u.changes)})`,
    scope: u.changes.via === 'api' ? 'person:write' : 'project:read',
    targetNoun: 'persons',
    checkedLost: () => '',
    account: (receipt) => {
      const v = receipt.update;
      const checked = v
        ? `; read back: ${n(v.persons_applied)} applied${v.persons_pending ? `, ${n(v.persons_pending)} still pending` : ''}${v.persons_failed ? `, ${n(v.persons_failed)} failed` : ''}`
        : '';
      return `${n(receipt.counts.sent)} persons sent their changes in ${n(receipt.chunks.answered)} requests${checked}`;
    },
  };
}

async function captureAction(ctx: Context, env: ActionEnv, u: UpdateSettings): Promise<BulkAction> {
  const settings = await ctx.settings();
  const host = u.captureUrl ?? ingestionUrl(settings.baseUrl);
  let capture: { client: ApiClient; key: string } | undefined;
  let distinctIdOf = new Map<string, string>();
  let own = new Map<string, Map<string, Record<string, unknown>>>();
  const set = (uuid: string, project: string) => ({ ...u.changes.set, ...own.get(project)?.get(uuid) });
  return {
    ...common(env, u, `POST ${host}/batch/ (capture: $set events, ${CAPTURE_BATCH} persons a request, gzip)`),
    // The project key is read when the run starts, after the confirmation, and only kept in memory.
    prepare: async (journal) => {
      for (const [, persons] of journal.recorded)
        for (const [uuid, ids] of persons) if (ids[0] !== undefined) distinctIdOf.set(uuid, ids[0]);
      own = ownValues(u, env.targets.projects, journal);
      if (capture || !env.client) return;
      const project = await getProject(env.client, env.projects[0], { signal: ctx.deps.signal });
      const key = typeof project.api_token === 'string' ? project.api_token : '';
      if (!key)
        throw new AuthError(
          `cannot read the project API key of project ${env.projects[0]} (GET /api/projects/${env.projects[0]}/ has no api_token); nothing was changed`,
          'use a personal key with project:read, or --via api',
        );
      // Its own client: the personal key belongs to the PostHog site, the project key to capture.
      const client = await ctx.client({ ...settings, baseUrl: host }, { headers: () => ({}), secrets: () => [key] });
      capture = { client, key };
    },
    attempt: async (chunk) => {
      if (!capture) throw new Error('a dry run sends nothing');
      const project = chunk.project ?? env.projects[0];
      const at = new Date(ctx.deps.now()).toISOString();
      const events: CaptureEvent[] = [];
      for (const uuid of chunk.ids) {
        const distinctId = distinctIdOf.get(uuid);
        // A person with no distinct id left is gone: the read-back says so; nothing is sent for it.
        if (distinctId === undefined) continue;
        events.push({
          event: '$set',
          distinct_id: distinctId,
          properties: {
            ...(Object.keys(set(uuid, project)).length ? { $set: set(uuid, project) } : {}),
            ...(Object.keys(u.changes.set_once).length ? { $set_once: u.changes.set_once } : {}),
            ...(u.changes.unset.length ? { $unset: u.changes.unset } : {}),
          },
          timestamp: at,
          uuid: eventUuid(`${chunk.index}:${uuid}`),
        });
      }
      if (events.length === 0) return { kind: 'ok', status: 200, summary: null };
      return classify(
        () => sendBatch(capture!.client, batchBody(capture!.key, events), { timeoutMs: env.timeoutMs, signal: ctx.deps.signal }),
        ctx.deps.now,
      );
    },
    describeAnswer: ({ status }) => `accepted (${status})`,
  };
}

async function apiAction(ctx: Context, env: ActionEnv, u: UpdateSettings): Promise<BulkAction> {
  let own = new Map<string, Map<string, Record<string, unknown>>>();
  return {
    ...common(env, u, `PATCH /api/projects/${env.projects[0]}/persons/<uuid>/ and POST …/delete_property/, one person at a time`),
    prepare: async (journal) => {
      own = ownValues(u, env.targets.projects, journal);
    },
    attempt: async (chunk: Chunk): Promise<Attempt> => {
      if (!env.client) throw new Error('a dry run sends nothing');
      const client = env.client;
      const project = chunk.project ?? env.projects[0];
      const [uuid] = chunk.ids;
      const properties = { ...u.changes.set, ...own.get(project)?.get(uuid) };
      try {
        if (Object.keys(properties).length) await updatePerson(client, project, uuid, properties);
        for (const key of u.changes.unset) await deleteProperty(client, project, uuid, key);
        return { kind: 'ok', status: 202, summary: null };
      } catch (err) {
        // A person deleted meanwhile: nothing to change; the read-back reports it failed.
        if (err instanceof NotFoundError) return { kind: 'ok', status: 404, summary: null };
        return attemptOf(err, ctx.deps.now);
      }
    },
    describeAnswer: ({ status }) => (status === 404 ? 'person not found' : `accepted (${status})`),
  };
}

/** A capture answer as the runner reads it. */
async function classify(
  send: () => Promise<{ status: number; url: string; body: unknown; headers: Record<string, string | string[] | undefined> }>,
  now: () => number,
): Promise<Attempt> {
  let res;
  try {
    res = await send();
  } catch (err) {
    return attemptOf(err, now);
  }
  const { status } = res;
  if (status >= 200 && status < 300) return { kind: 'ok', status, summary: null };
  const error = describeHttpError('POST', res.url, status, res.body);
  if (status === 429)
    return { kind: 'throttled', status, retryAfterMs: parseRetryAfter(res.headers['retry-after'], now()), error: error.message };
  if (status === 401 || status === 403) return { kind: 'auth', status, error };
  if (status === 408 || status >= 500) return { kind: 'retry', status, error: error.message };
  // 400 (a malformed event) or 413 (too large): every other batch would fail the same way.
  return { kind: 'rejected', status, error };
}

/** An error thrown by a request, as the runner reads it. */
function attemptOf(err: unknown, now: () => number): Attempt {
  if (err instanceof NotPostHogApiError || err instanceof TlsError || err instanceof UsageError)
    return { kind: 'rejected', status: 0, error: err };
  if (err instanceof RateLimitedError) return { kind: 'throttled', status: 429, retryAfterMs: err.retryAfterMs, error: err.message };
  if (err instanceof UnavailableError) return { kind: 'retry', status: null, error: err.message };
  if (err instanceof ApiError) {
    if (err.status === 401 || err.status === 403) return { kind: 'auth', status: err.status, error: err };
    if (err.status >= 500 || err.status === 408) return { kind: 'retry', status: err.status, error: err.message };
    return { kind: 'rejected', status: err.status, error: err as CliError };
  }
  void now;
  throw err;
}

/** A UUID for an event, the same each time its batch is sent. */
function eventUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
