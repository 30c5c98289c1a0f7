// The job of `persons bulk-update`: the same properties set, set once or unset on many persons,
// or each person's own values from a file.
//
// Through capture (the default, docs/server-contract.md §14.1): one `$set` event a person, addressed
// to a distinct id the person has, 500 persons a gzipped /batch/ request, sent with the project's
// API key to its ingestion host. The key is read with the personal key from GET
// /api/projects/{id}/ when the run starts, kept in memory only, and sent to the ingestion host
// alone. Every person was looked up before (a capture for a distinct id with no person would
// create one), and a batch sent again after a lost answer sets the same values again, which is
// harmless. Only capture's own acceptance counts (api/capture.ts): a quota answer or a 200 that is
// not capture's stops the run, and the persons of that request are sent again by --resume.
// Ingestion applies the changes asynchronously, so afterwards the persons are read back until
// every change shows (update-verify.ts).
//
// Each event's uuid is derived from a nonce kept in the journal's header and the person, and its
// timestamp is the one the header keeps: a request sent again (a retry, or a resumed run) carries
// the very same events, which the events table can collapse into one row (ClickHouse merges rows
// with the same day, event, distinct id and uuid), while another run (another journal) gets other
// uuids and never collapses with this one.
//
// A project that does not process person profiles (`person_processing_opt_out`) makes every event
// personless: ingestion drops `$set`, `$set_once` and `$unset`, also of the events the REST
// endpoints capture. Such a project is refused before anything is sent.
//
// --via api: PATCH /persons/{id}/ with the properties to set and delete_property for each one to
// unset, one person at a time within the REST budget (PostHog allows a personal key 240 of these
// a minute), for servers or policies without capture.
import { createHash, randomBytes } from 'node:crypto';
import type { Context } from '../../../context.js';
import { ApiError, AuthError, NotFoundError, PartialFailureError, UsageError } from '../../../errors.js';
import { batchBody, sendBatch, stampToSend, type CaptureEvent } from '../../../api/capture.js';
import { deleteProperty, updatePerson } from '../../../api/person-actions.js';
import { getProject, type Project } from '../../../api/projects.js';
import type { ApiClient } from '../../../http/client.js';
import type { ActionEnv, BulkAction, JobKind, KindFields, KindRequests, Verdict } from '../../engine/action.js';
import { describeChanges, type Changes } from './changes.js';
import type { JournalHeader } from '../../engine/journal-format.js';
import type { JournalState } from '../../engine/journal-state.js';
import type { Receipt, ReceiptPart } from '../../engine/receipt.js';
import type { Attempt, Chunk } from '../../engine/runner.js';
import { attemptOf, captureAttempt } from '../../engine/capture-attempt.js';
import { currentDistinctIds } from './current-ids.js';
import type { IdKind } from '../../input/validate.js';
import { verifyUpdate, type ExpectedChanges, type UpdateVerification } from './update-verify.js';
import { describeAsked } from '../../engine/plan.js';
import { counted, formatNumber } from '../../../io/counts.js';

/** Persons (events) a capture request carries: 200 requests for 100,000 persons. */
export const CAPTURE_BATCH = 500;
/** PostHog's limit for person requests with a personal key that are not deletes (ClickHouse burst). */
const REST_PER_MINUTE = 240;
/** Capture is not throttled like the REST API; this only keeps a run from flooding a small instance. */
const CAPTURE_PER_MINUTE = 600;

/** A receipt of `persons bulk-update`: the receipt and the update's fields. */
export type UpdateReceipt = Receipt & {
  flags: { skip_invalid: boolean };
  /** What it changed, and how many persons showed the changes when read back (per person in
   * each project's verification). */
  update: { changes: Changes; verified: boolean; persons_applied: number; persons_pending: number; persons_failed: number };
  verification: (UpdateVerification & { note: string }) | null;
};

/** The changes an update's journal recorded, read back; undefined when it has none. */
export function recordedChanges(fields: KindFields | undefined): Changes | undefined {
  const c = fields?.changes as Changes | undefined;
  return c && typeof c === 'object' ? c : undefined;
}

export interface UpdateSettings {
  changes: Changes;
  /** Per-person values, by the identifier that names the person (as the input lists it). */
  values?: Map<string, Record<string, unknown>>;
  /** The properties those values set (the file's columns but the one naming the persons). */
  valueProperties?: string[];
  /** Where the capture requests go (runCaptureHost): recorded in the journal. Absent with --via api. */
  captureHost?: string;
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

export function updateKind(u: UpdateSettings): JobKind<UpdateReceipt> {
  const { changes } = u;
  const viaApi = changes.via === 'api';
  return {
    words: { job: 'update', request: 'change', done: 'changed', unit: 'persons' },
    byPersonId: { verb: 'change', how: 'a person_id column beside email' },
    journal: {
      command: 'persons bulk-update',
      binding: {
        fields: { changes },
        describe: (fields) => {
          const then = recordedChanges(fields);
          return then ? describeChanges(then) : 'no changes';
        },
      },
      hashesIdentifiers: false,
      // A new journal gets the nonce and the time of its events (see the top of this file).
      header: (startedAt) =>
        viaApi
          ? {}
          : {
              capture_events: { nonce: randomBytes(16).toString('hex'), timestamp: startedAt },
              capture_host: u.captureHost,
            },
    },
    requests: updateRequests(u),
    check: {
      verify: (ctx, env) => verifyUpdate(ctx, env, expectations(u, env.targets.projects, env.journal), u.verifyTimeoutMs),
      verdict: (receipt, o) => updateVerdict(receipt, o.resume, viaApi),
    },
    receipt: updateReceipt(changes),
  };
}

/** How an update's requests go: capture batches, or one person a request through the REST API. */
function updateRequests(u: UpdateSettings): KindRequests<UpdateReceipt> {
  const { changes } = u;
  const viaApi = changes.via === 'api';
  // One PATCH for the sets (common and per person), one delete_property per key unset.
  const requestsPerPerson = (Object.keys(changes.set).length || u.values ? 1 : 0) + changes.unset.length || 1;
  return {
    // Capture needs a distinct id of every person, and no person may be created: all are looked up.
    sendsIdsAsGiven: false,
    chunkSize: viaApi ? 1 : CAPTURE_BATCH,
    windows: viaApi
      ? [{ limit: Math.max(1, Math.floor(REST_PER_MINUTE / requestsPerPerson)), windowMs: 60_000 }]
      : [{ limit: CAPTURE_PER_MINUTE, windowMs: 60_000 }],
    snapshot: () => !viaApi,
    makeAction: async (ctx, env) => {
      await refusePersonless(ctx, env, { warnUnreadable: viaApi });
      return viaApi ? apiAction(env, u) : captureAction(ctx, env, u);
    },
  };
}

/** The update's part of the receipt: its changes, and what reading the persons back found. */
function updateReceipt(changes: Changes): ReceiptPart<UpdateReceipt> {
  return {
    fields: ({ verification, skipInvalid }) => {
      const v = verification as UpdateVerification | undefined;
      return {
        flags: { skip_invalid: skipInvalid },
        update: {
          changes,
          verified: Boolean(v),
          persons_applied: v?.applied ?? 0,
          persons_pending: v?.pending ?? 0,
          persons_failed: v?.failed ?? 0,
        },
      };
    },
    verificationNote:
      'every person sent a change was read back with batch_by_uuids until the change showed or --verify-timeout passed; applied_ids show it, pending_ids not yet (capture accepted the change: ingestion may still apply it, or the project was over its billing limit and the event was dropped), failed_ids are gone or their request failed',
    notes: {
      unanswered:
        'sent by a run that stopped before their answer was journaled (it was lost as the run stopped, or the run crashed, was killed or got a second Ctrl-C); the next run sends them again, with the same events',
      unclear:
        'an attempt at these requests timed out, lost its answer or met a server error: it may have been carried out; sending the same events again is harmless',
      lostAnswers: () => 'sent in a request whose answer was lost, then found done when checked; never sent again',
    },
    summary: (r) => {
      const u = r.update;
      return { persons_applied: u.persons_applied, persons_pending: u.persons_pending, persons_failed: u.persons_failed };
    },
  };
}

/**
 * What reading an update back found: persons that did not show the changes in time or that are
 * gone are a failure to report (exit 8); running the same command with --resume reads them back
 * again. Capture's 200 says only that it took the events: ingestion may still apply them, or never
 * will, for a project over its billing limit gets the same 200 and its events are dropped
 * (rust/capture/src/v0_endpoint.rs `event()`, docs/server-contract.md §14.1).
 */
function updateVerdict(receipt: UpdateReceipt, resume: string, viaApi: boolean): Verdict {
  const u = receipt.update;
  if (!u.verified || (u.persons_pending === 0 && u.persons_failed === 0)) {
    // Unread because nothing was sent (no person matched) is no --no-verify.
    const unread = !u.verified && receipt.counts.sent > 0;
    return {
      warnings: unread ? ['the persons were not read back (--no-verify): the receipt cannot say whether the changes show'] : [],
    };
  }
  const why = viaApi
    ? 'ingestion may still be applying them'
    : 'capture accepted them: ingestion may be slow, or the project may be over its billing limit, for which capture answers 200 and drops the events';
  const parts = [
    u.persons_pending && `${counted(u.persons_pending, 'person')} did not show the changes when the read-back stopped (${why})`,
    u.persons_failed && `${counted(u.persons_failed, 'person')} could not be changed (gone, or their request failed)`,
  ].filter(Boolean);
  return {
    warnings: [],
    error: new PartialFailureError(
      `${parts.join('; ')}; ${formatNumber(u.persons_applied)} show them; the receipt lists each person`,
      `read them back again with:\n  ${resume}` +
        (u.persons_pending && !viaApi
          ? "\nif they stay pending, PostHog did not apply the events it took: check the organization's billing limits and the project's ingestion warnings (Data management), then run the update again as a new run (--resume does not send them again)"
          : ''),
    ),
  };
}

/**
 * Refuses projects that do not process person profiles: nothing sent to them would change anyone
 * (posthog/api/team.py serves the team's `person_processing_opt_out`; ingestion then makes every
 * event personless: nodejs/src/worker/ingestion/event-pipeline/processPersonlessStep.ts). A key
 * that may not read the project leaves the setting unknown: through capture the run reads the
 * project again for its key (and stops there, after the scope check says why); --via api needs
 * person:write only, so the run goes on with a warning.
 */
async function refusePersonless(ctx: Context, env: ActionEnv, o: { warnUnreadable: boolean }): Promise<void> {
  if (!env.client) return;
  for (const id of env.projects) {
    let project;
    try {
      project = await getProject(env.client, id, { signal: ctx.deps.signal });
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 403)) throw err;
      if (!o.warnUnreadable) continue;
      ctx.warn(
        `cannot read the settings of project ${id} with this key (${err.message}): if it does not process person profiles, the changes will not show`,
      );
      continue;
    }
    checkPersonProcessing(id, project);
  }
}

function checkPersonProcessing(id: string, project: Project): void {
  if (project.person_processing_opt_out !== true) return;
  throw new UsageError(
    `project ${id} does not process person profiles (person_processing_opt_out): ingestion drops $set, $set_once and $unset from its events, so no person would change; nothing was sent`,
    "turn person profiles on in the project's settings (Product analytics → Person profiles), then run the command again",
  );
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
      for (const uuid of matches.get(identifier) ?? []) {
        // The file's own object when one identifier names the person: no copy of a million.
        const earlier = mine.get(uuid);
        mine.set(uuid, earlier ? { ...earlier, ...values } : values);
      }
    }
    out.set(p.id, mine);
  }
  return out;
}

function common(env: ActionEnv, u: UpdateSettings, request: string): Omit<BulkAction<UpdateReceipt>, 'attempt' | 'describeAnswer'> {
  return {
    title: `change the properties of persons ${BY[env.kind]}`,
    request,
    flags: describeChanges(u.changes),
    // What every person gets is the point of an update's plan: named as such, not as flags.
    flagsLabel: 'changes',
    planLines: valuesPlanLines(u, env),
    confirmation: (count) => `This changes the properties of ${counted(count, 'person')} (${describeChanges(u.changes)})`,
    scope: u.changes.via === 'api' ? 'person:write' : 'project:read',
    targetNoun: 'persons',
    checkedLost: () => '',
    account: (receipt, asked) => {
      const v = receipt.update;
      const lead = asked && receipt.identifiers ? describeAsked(receipt.identifiers.kind, asked) : '';
      const checked = v?.verified
        ? `; read back: ${formatNumber(v.persons_applied)} applied${v.persons_pending ? `, ${formatNumber(v.persons_pending)} still pending` : ''}${v.persons_failed ? `, ${formatNumber(v.persons_failed)} failed` : ''}`
        : '';
      return `${lead}${counted(receipt.counts.sent, 'person')} sent their changes in ${counted(receipt.chunks.answered, 'request')}${checked}`;
    },
  };
}

/** Persons the plan shows the per-person values of. */
const VALUES_SAMPLE = 3;
/** Characters of a value the plan shows: a long note would wrap over a screen. */
const VALUE_SHOWN = 40;

/** The plan's lines for --values-from: the properties the file sets, and what the first persons
 * it names get, so that a reviewer sees what will be written, not only where it comes from. */
function valuesPlanLines(u: UpdateSettings, env: ActionEnv): string[] {
  if (!u.values || !u.changes.values_from) return [];
  const properties = u.valueProperties ?? [];
  const lines = [
    `  values    ${counted(properties.length, 'property', 'properties')} from ${u.changes.values_from.file}, each person their own: ${properties.join(', ')}`,
  ];
  const named = (identifier: string) => env.targets.projects.some((p) => (p.matches.get(identifier) ?? []).length > 0);
  const lookedUp = env.targets.projects.some((p) => p.matches.size > 0);
  const shown: string[] = [];
  for (const [identifier, values] of u.values) {
    if (shown.length === VALUES_SAMPLE) break;
    if (lookedUp && !named(identifier)) continue;
    shown.push(
      `${identifier}: ${Object.entries(values)
        .map(([key, value]) => `${key}=${shortValue(value)}`)
        .join(' · ')}`,
    );
  }
  shown.forEach((line, i) => lines.push(`  ${i === 0 ? 'e.g.     ' : '         '} ${line}`));
  return lines;
}

/** A value as --set takes it, cut to VALUE_SHOWN characters. */
function shortValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > VALUE_SHOWN ? `${text.slice(0, VALUE_SHOWN - 1)}…` : text;
}

async function captureAction(ctx: Context, env: ActionEnv, u: UpdateSettings): Promise<BulkAction<UpdateReceipt>> {
  const settings = await ctx.settings();
  const host = u.captureHost;
  if (!host) throw new Error('an update through capture is given its capture host');
  let capture: { client: ApiClient; key: string } | undefined;
  let stamp: EventStamp | undefined;
  let distinctIdOf = new Map<string, string>();
  let own = new Map<string, Map<string, Record<string, unknown>>>();
  const set = (uuid: string, project: string) => ({ ...u.changes.set, ...own.get(project)?.get(uuid) });
  return {
    ...common(env, u, `POST ${host}/batch/ (capture: $set events, ${CAPTURE_BATCH} persons a request, gzip)`),
    // The project key is read when the run starts, after the confirmation, and only kept in memory.
    prepare: async (journal) => {
      for (const [, persons] of journal.recorded)
        for (const [uuid, ids] of persons) if (ids[0] !== undefined) distinctIdOf.set(uuid, ids[0]);
      // A resumed run: the distinct ids an earlier run recorded may name other persons now.
      if (journal.runs.length > 1) distinctIdOf = await currentDistinctIds(ctx, env, journal, distinctIdOf);
      own = ownValues(u, env.targets.projects, journal);
      stamp = stampToSend(eventStamp(journal.header!), ctx.clock.now());
      if (capture || !env.client) return;
      const project = await getProject(env.client, env.projects[0], { signal: ctx.deps.signal });
      // The setting may have changed since the plan was made.
      checkPersonProcessing(env.projects[0], project);
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
      if (!capture || !stamp) throw new Error('a dry run sends nothing');
      const project = chunk.project ?? env.projects[0];
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
          timestamp: stamp.timestamp,
          uuid: eventUuid(stamp.nonce, project, uuid),
        });
      }
      if (events.length === 0) return { kind: 'ok', status: 200, summary: null };
      return captureAttempt(
        () => sendBatch(capture!.client, batchBody(capture!.key, events), { timeoutMs: env.timeoutMs, signal: ctx.deps.signal }),
        ctx.clock.now,
        { host, project },
        'no person of that request is counted as changed',
      );
    },
    describeAnswer: ({ status }) => `accepted (${status})`,
  };
}

async function apiAction(env: ActionEnv, u: UpdateSettings): Promise<BulkAction<UpdateReceipt>> {
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
        return attemptOf(err);
      }
    },
    describeAnswer: ({ status }) => (status === 404 ? 'person not found' : `accepted (${status})`),
  };
}

/** What every event of a run carries, the same in each request that sends it again. */
interface EventStamp {
  nonce: string;
  timestamp: string;
}

/** The journal's nonce and event time, kept in its header (the kind's `capture_events`). */
export function eventStamp(header: JournalHeader): EventStamp {
  return header.capture_events as EventStamp;
}

/** The uuid of the event that changes a person in a run: the same each time it is sent, another in another run. */
export function eventUuid(nonce: string, project: string, person: string): string {
  const h = createHash('sha256').update(`${nonce}:${project}:${person}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
