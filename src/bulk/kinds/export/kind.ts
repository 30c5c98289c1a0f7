// `hogctl persons export` as a kind of bulk job (src/bulk/action.ts): everything PostHog holds
// about one data subject, as a bundle a DPO can hand over (GDPR Art. 15).
//
// The engine does what it does for every bulk job: reads the identifiers (--email, --distinct-id,
// --person: JobInput `identifiers`), finds the persons project by project through the same
// resolution as an erasure (src/bulk/targets.ts), so that an erasure of the same request finds
// exactly the persons the export found; plans, takes the journal and its lock, runs with progress,
// Ctrl-C and --resume (persons done are not written again), and writes the receipt. This kind
// supplies the rest:
//   - one chunk is one person; its attempt (write-person.ts) writes the person's files into the
//     bundle and answers with what the person came to (counts, and its files' SHA-256), which the
//     engine journals; within a person, the export's state file (state.ts) keeps the events'
//     cursor, so a crash mid-person goes on from the last page;
//   - its plan lines: persons and distinct ids per project, the events counted, the queries;
//   - its verification (seal.ts): summary.html and manifest.json from the journaled answers, then
//     every file read back against the manifest; with --zip, the archive;
//   - its receipt part (counts per project, the bundle, the manifest's SHA-256) and verdict (exit 8
//     for a part the key may not read, fewer events read than the plan counted, or a file that is
//     not what the manifest says).
// An export changes nothing on the server, so it asks for no confirmation (JobKind.readOnly).
import { resolve } from 'node:path';
import type { Context } from '../../../context.js';
import {
  ApiError,
  AuthError,
  CancelledError,
  CliError,
  NotFoundError,
  PartialFailureError,
  RateLimitedError,
  UsageError,
  UnavailableError,
} from '../../../errors.js';
import type { ApiClient } from '../../../http/client.js';
import { getPerson } from '../../../api/persons.js';
import { formatDuration } from '../../../io/progress.js';
import { counted, formatNumber } from '../../../io/counts.js';
import type { ActionEnv, BulkAction, JobKind, JobVerification, Verdict, VerifyEnv } from '../../engine/action.js';
import type { ChunkTally, Count, Receipt, ReceiptPart } from '../../engine/receipt.js';
import type { KindFields } from '../../engine/journal-format.js';
import type { Attempt, Chunk } from '../../engine/runner.js';
import { MAX_QUERY_ROWS } from '../../../hogql/walk.js';
import { createBundleDir } from './bundle.js';
import { personDir } from './safe-name.js';
import { PARTS, refusal, unreadableHint } from './collect.js';
import { sealBundle, type NoPersonWritten, type SealVerification } from './seal.js';
import { saveState, type EventsUnit, type ExportPerson, type ExportState, type GivenIdentifiers } from './state.js';
import { writePerson, type PersonSummary } from './write-person.js';
import { countEvents, noEventsYet } from './write-events.js';
import {
  findNoPersonEvents,
  noPersonLabel,
  noPersonPlanLines,
  noPersonUnits,
  writeNoPersonEvents,
  type NoPersonFound,
} from './no-person.js';

/** PostHog's budget for API queries with a personal key (docs/server-contract.md §5): the pace
 * of the persons, each of which takes at least one query. */
const QUERY_WINDOWS = [
  { limit: 240, windowMs: 60_000 },
  { limit: 2400, windowMs: 3_600_000 },
] as const;
const QUERIES_PER_HOUR = 2400;

/** What binds an export's journal (its header's `export`): what its files depend on. */
export interface ExportFields {
  /** The bundle's directory, absolute. */
  out: string;
  /** The fixed upper bound of the events: when the export began. */
  until: string;
  from: string | null;
  recordings: boolean;
  zip: boolean;
  requested_by: string | null;
  /** The project PostHog looks a person's cohorts up in: the user's current one. */
  current_team: string | null;
  identifiers: GivenIdentifiers;
}

/** The export's fields as a journal recorded them (SettledSettings.recorded). */
export function exportFieldsOf(recorded: KindFields | undefined): ExportFields | undefined {
  return recorded?.export as ExportFields | undefined;
}

/** Where --zip puts the archive: beside the directory, named after it. */
export function zipPathOf(out: string): string {
  return `${out.replace(/[\\/]+$/, '')}.zip`;
}

export interface ExportKindSettings {
  /** --out as given (messages name it so). */
  out: string;
  /** The engine's journal, named in the state file for --resume --out. */
  journal: string;
  fields: ExportFields;
  /** On --resume: the state the bundle holds. */
  state?: ExportState;
  maxWaitMs: number;
}

const bare = (tagged: string) => tagged.slice(tagged.indexOf(':') + 1);
const summaryOf = (c: { answer?: { summary: unknown } }) => c.answer?.summary as PersonSummary | undefined;

/** A receipt of `persons export`: the receipt and the export's fields. */
export type ExportReceipt = Receipt & {
  export: {
    bundle: string;
    zip: string | null;
    files: number | null;
    manifest_sha256: string | null;
    until: ExportFields['until'];
    from: ExportFields['from'];
    unavailable: string[];
    events_short: string[];
    persons: { project: string; uuid: string; dir: string; events: number; event_queries: number; files: number }[];
    /** Per project, the events of distinct ids of no person written (no-person.ts). */
    distinct_ids_of_no_person: NoPersonWritten[];
  };
  verification: (SealVerification & { note: string }) | null;
};

export function exportKind(ctx: Context, k: ExportKindSettings): JobKind<ExportReceipt> {
  const { fields, out } = k;
  const state: ExportState = k.state ?? { state_format: 1, journal: k.journal, identifiers: fields.identifiers, persons: {} };
  return {
    words: { job: 'export', request: 'request', done: 'written', unit: 'persons' },
    byPersonId: { verb: 'export', how: '--person <uuid>' },
    journal: {
      command: 'persons export',
      binding: { fields: { export: fields }, describe: describeExport },
      resumeCommand: resumeOf(ctx, out),
      hashesIdentifiers: false,
    },
    requests: {
      readOnly: true,
      // The events of distinct ids of no person are exported with no person to write (no-person.ts).
      runsWithoutRequests: true,
      sendsIdsAsGiven: false,
      chunkSize: 1,
      windows: QUERY_WINDOWS,
      snapshot: () => false,
      makeAction: (c, env) => makeAction(c, env, k, state),
    },
    check: {
      verify: (c, env) => verify(c, env, k, state),
      verdict: exportVerdict,
      interrupted: {
        while: 'writing the events of distinct ids of no person',
        kept: 'the persons written and every page of those events written so far are kept, and are not written again',
      },
    },
    receipt: exportReceipt(fields, out, state),
  };
}

/** The export's fields of the journal, in words, when a --resume finds them changed. */
function describeExport(f: KindFields): string {
  const e = exportFieldsOf(f);
  return e
    ? `--out ${e.out}, events ${e.from ? `from ${e.from} ` : ''}up to ${e.until}${e.recordings ? ', --recordings' : ''}${e.zip ? ', --zip' : ''}`
    : '(none)';
}

/** An export continues by its bundle, not by its input: `persons export --resume --out <dir>`. */
function resumeOf(ctx: Context, out: string): string {
  return [
    'hogctl',
    ...(ctx.globals.profile ? ['--profile', ctx.globals.profile] : []),
    ...(ctx.globals.baseUrl ? ['--base-url', ctx.globals.baseUrl] : []),
    ...(ctx.globals.project ? ['--project', ctx.globals.project] : []),
    'persons export --resume --out',
    out,
  ].join(' ');
}

/** The export's part of the receipt: its counts, its bundle and the persons written into it. */
function exportReceipt(fields: ExportFields, out: string, state: ExportState): ReceiptPart<ExportReceipt> {
  return {
    tally: (t) => ({ counts: exportCounts(t, state), notReported: [] }),
    fields: ({ answered, verification }) => ({
      export: exportFieldsOfRun(fields, out, answered, verification as SealVerification | undefined),
    }),
    verificationNote: "every file of the bundle read back and compared with the manifest's SHA-256",
    notes: {
      unanswered:
        'a person whose export was under way when the run stopped: its files are cut back to the last page recorded and written on by --resume',
      unclear: 'a person whose export met a server error or a timeout before it was written whole: written on from its last page recorded',
      lostAnswers: () => 'persons written again from their last page recorded',
    },
    summary: (r) => {
      const e: ExportReceipt['export'] | undefined = r.export;
      const dryRun = r.status === 'dry_run';
      return {
        bundle: e?.bundle ?? out,
        persons: dryRun ? r.projects.reduce((n, p) => n + p.targets, 0) : (r.counts.persons_exported ?? 0),
        // The receipt's counts as they are: every event of the bundle, and those of no person among them.
        events: r.counts.events ?? 0,
        events_of_distinct_ids_of_no_person: r.counts.events_of_distinct_ids_of_no_person ?? 0,
        queries: r.counts.event_queries ?? 0,
        files: e?.files ?? 0,
        zip: e?.zip ?? null,
        unavailable: e?.unavailable.length ?? 0,
        dry_run: dryRun,
      };
    },
  };
}

/**
 * The export's counts, for the job or one project: the persons written and every event of the
 * bundle, those of distinct ids of no person among them (written by the verification, so counted
 * from it, as the manifest counts them). A dry run writes nothing: its counts are what its plan
 * counted (the same estimates and queries as the plan's lines).
 */
function exportCounts(t: ChunkTally, state: ExportState): Record<string, Count> {
  const here = (u: { project: string }) => !t.project || u.project === t.projectId;
  if (t.dryRun) {
    const persons = Object.values(state.persons).filter(here);
    const noPerson = Object.values(state.no_person ?? {}).filter(here);
    const units = [...persons, ...noPerson];
    return {
      persons_exported: 0,
      events: estimatedEvents(units),
      events_of_distinct_ids_of_no_person: estimatedEvents(noPerson),
      property_changes: 0,
      event_queries: plannedQueries(units),
    };
  }
  const persons = t.answered.map(summaryOf).filter((p): p is PersonSummary => p !== undefined);
  const noPerson = ((t.verification as SealVerification | undefined)?.no_person ?? []).filter(here);
  const sum = <U>(units: U[], of: (u: U) => number) => units.reduce((n, u) => n + of(u), 0);
  const noPersonEvents = sum(noPerson, (u) => u.events);
  return {
    persons_exported: persons.length,
    events: sum(persons, (p) => p.events.count) + noPersonEvents,
    events_of_distinct_ids_of_no_person: noPersonEvents,
    property_changes: sum(persons, (p) => p.events.history_count) + sum(noPerson, (u) => u.property_changes),
    event_queries: sum(persons, (p) => p.events.queries) + sum(noPerson, (u) => u.event_queries),
  };
}

/** The events the plan counted for these units. */
const estimatedEvents = (units: EventsUnit[]) => units.reduce((n, u) => n + (u.events.estimate ?? 0), 0);

/** The queries of the plan's walks: a page of up to MAX_QUERY_ROWS events each, and the last. */
const plannedQueries = (units: EventsUnit[]) => units.reduce((n, u) => n + Math.floor((u.events.estimate ?? 0) / MAX_QUERY_ROWS) + 1, 0);

/** The receipt's `export`: the bundle as sealed, each person written, and the events of
 * distinct ids of no person. */
function exportFieldsOfRun(
  fields: ExportFields,
  out: string,
  answered: { answer?: { summary: unknown } }[],
  v: SealVerification | undefined,
): ExportReceipt['export'] {
  const persons = answered.map(summaryOf);
  const noPerson = v?.no_person ?? [];
  return {
    bundle: v?.bundle ?? (fields.zip ? zipPathOf(out) : out),
    zip: v?.zip ?? null,
    files: v?.files ?? null,
    manifest_sha256: v?.manifest_sha256 ?? null,
    until: fields.until,
    from: fields.from,
    unavailable: [
      ...unavailableOf(persons),
      ...noPerson.flatMap((u) => (u.unavailable ? [`${noPersonLabel(u.project)}: events: ${u.unavailable}`] : [])),
    ],
    events_short: [...shortEventsOf(persons), ...noPerson.flatMap((u) => (u.short ? [`${noPersonLabel(u.project)}: ${u.short}`] : []))],
    persons: persons
      .filter((p): p is PersonSummary => p !== undefined)
      .map((p) => ({
        project: p.project,
        uuid: p.uuid,
        dir: p.dir,
        events: p.events.count,
        event_queries: p.events.queries,
        files: p.files.length,
      })),
    distinct_ids_of_no_person: noPerson,
  };
}

/** A bundle that does not read back as its manifest says, or that lacks parts or events, is a failure (exit 8). */
function exportVerdict(receipt: ExportReceipt): Verdict {
  const v = receipt.verification;
  if (v?.status === 'mismatch') {
    return {
      warnings: [],
      error: new PartialFailureError(
        `the bundle is written, but reading it back found ${[...v.mismatched.map((f) => `${f} not as the manifest says`), ...v.unlisted.map((f) => `${f} not in the manifest`)].join('; ')}`,
        'export again into a new directory',
      ),
    };
  }
  const short = receipt.export?.events_short ?? [];
  if (short.length)
    return {
      warnings: [],
      error: new PartialFailureError(
        `the bundle is written, but not complete: fewer events were read than the plan counted: ${short.join('; ')}`,
        'export again into a new directory; if it falls short again, the server (or a proxy in front of it) cuts its answers: run with --debug to see them',
      ),
    };
  const unavailable = receipt.export?.unavailable ?? [];
  if (unavailable.length)
    return {
      warnings: [],
      error: new PartialFailureError(
        `the bundle is written, but ${counted(unavailable.length, 'part')} could not be read: ${unavailable.join('; ')}`,
        unreadableHint(unavailable),
      ),
    };
  return { warnings: [] };
}

/** The parts (and events) the server would not give, as the messages and the receipt name them. */
function unavailableOf(persons: (PersonSummary | undefined)[]): string[] {
  const out: string[] = [];
  for (const p of persons) {
    if (!p) continue;
    for (const [name, part] of Object.entries(p.parts))
      if (part.unavailable) out.push(`project ${p.project}, person ${p.uuid}: ${name}: ${part.unavailable}`);
    if (p.events.unavailable) out.push(`project ${p.project}, person ${p.uuid}: events: ${p.events.unavailable}`);
  }
  return out;
}

/** The persons whose events fall short of the plan's count, as the messages and the receipt name them. */
function shortEventsOf(persons: (PersonSummary | undefined)[]): string[] {
  return persons.flatMap((p) => (p?.events.short ? [`project ${p.project}, person ${p.uuid}: ${p.events.short}`] : []));
}

async function makeAction(ctx: Context, env: ActionEnv, k: ExportKindSettings, state: ExportState): Promise<BulkAction> {
  const { fields } = k;
  const found = foundPersons(env);
  // Every directory named before anything is asked or written: an id that is not PostHog's (one
  // that would climb out of --out) stops the run here.
  const host = env.client ? new URL(env.client.origin).host : 'the server';
  const dirs = new Map(found.map((p) => [`${p.project}/${p.uuid}`, personDir(p.project, p.uuid, host)]));
  const person = exportPersons(state, found, (project, uuid) => dirs.get(`${project}/${uuid}`) ?? personDir(project, uuid, host));
  const persons = found.map((p) => person(p.project, p.uuid));
  // A resumed export goes on with what its state recorded; a new one looks everything up.
  const fresh = env.client && !env.journal ? env.client : undefined;
  let noPerson: NoPersonFound = { units: noPersonUnits(state, env.projects) };
  if (fresh) {
    await readDistinctIds(fresh, persons);
    noPerson = await findNoPersonEvents(ctx, fresh, {
      projects: env.targets.projects.filter((p) => !p.unreachable).map((p) => p.id),
      persons,
      identifiers: fields.identifiers,
      bounds: fields,
      maxWaitMs: k.maxWaitMs,
      host,
    });
    if (found.length === 0 && noPerson.units.length === 0) throw noPersonError(fields.identifiers, env.projects.length, noPerson.uncounted);
    state.no_person = Object.fromEntries(noPerson.units.map((u) => [u.project, u]));
  }
  const planLines = await exportPlanLines(ctx, env, k, state, persons, noPerson);
  return exportAction(ctx, env, k, state, planLines, person);
}

/** Each person's distinct ids from the full record (the lookups show at most ten). */
async function readDistinctIds(client: ApiClient, persons: ExportPerson[]): Promise<void> {
  for (const person of persons) {
    const record = await getPerson(client, person.project, person.uuid);
    person.distinctIds = (record.distinct_ids ?? []).map(String);
  }
}

/** A person the lookups found, with what named it. */
interface FoundPerson {
  project: string;
  uuid: string;
  distinctIds: string[];
  /** The identifiers given that name this person. */
  foundBy: string[];
}

function foundPersons(env: ActionEnv): FoundPerson[] {
  return env.targets.projects.flatMap((p) =>
    Array.from(p.ids, (uuid) => ({
      project: p.id,
      uuid,
      distinctIds: p.distinctIds.get(uuid) ?? [],
      foundBy: [...p.matches].filter(([, uuids]) => uuids.includes(uuid)).map(([key]) => bare(key)),
    })),
  );
}

type PersonOf = (project: string, uuid: string) => ExportPerson;

/** Each person's export record: the one a resumed run began, else a fresh one, kept in the state. */
function exportPersons(state: ExportState, found: FoundPerson[], dirOf: (project: string, uuid: string) => string): PersonOf {
  return (project, uuid) => {
    const key = `${project}/${uuid}`;
    const begun = state.persons[key];
    if (begun) return begun;
    const f = found.find((p) => p.project === project && p.uuid === uuid);
    const fresh: ExportPerson = {
      project,
      uuid,
      dir: dirOf(project, uuid),
      distinctIds: f?.distinctIds ?? [],
      foundBy: f?.foundBy ?? [],
      parts: {},
      events: noEventsYet(),
    };
    state.persons[key] = fresh;
    return fresh;
  };
}

/** The plan: each project's persons and distinct ids, the events estimated, those of distinct
 * ids of no person, and the bundle. */
async function exportPlanLines(
  ctx: Context,
  env: ActionEnv,
  k: ExportKindSettings,
  state: ExportState,
  persons: ExportPerson[],
  noPerson: NoPersonFound,
): Promise<string[]> {
  const { fields, out } = k;
  const planLines: string[] = [];
  if (env.client && !env.journal) await estimate(ctx, env.client, persons, noPerson.units, fields, k.maxWaitMs, planLines);
  for (const p of env.targets.projects.filter((x) => !x.unreachable)) {
    const mine = Array.from(p.ids, (uuid) => state.persons[`${p.id}/${uuid}`]?.distinctIds.length ?? p.distinctIds.get(uuid)?.length ?? 0);
    planLines.unshift(
      `  project ${p.id}${p.name ? ` (${p.name})` : ''}: ${counted(p.ids.length, 'person')}, ${counted(
        mine.reduce((n, x) => n + x, 0),
        'distinct id',
      )}`,
    );
  }
  planLines.push(...noPersonPlanLines(noPerson));
  planLines.push(
    `  bundle    ${fields.zip ? zipPathOf(out) : out} (events ${fields.from ? `from ${fields.from} ` : ''}up to ${fields.until}${fields.recordings ? "; the recordings' content" : ''})`,
  );
  return planLines;
}

/** The export as the engine runs it: a chunk is a few persons, each written whole into the bundle. */
function exportAction(
  ctx: Context,
  env: ActionEnv,
  k: ExportKindSettings,
  state: ExportState,
  planLines: string[],
  person: PersonOf,
): BulkAction<ExportReceipt> {
  const { fields, out } = k;
  // Both are set when the run starts (prepare), not when the plan is made.
  const clients: ChunkClients = { client: env.client, sessionClient: null };
  return {
    title: 'export everything PostHog holds about these persons',
    request:
      'reads only: the person, its properties, cohorts, activity, recordings and feature flags; its events by HogQL, and those of the distinct ids given that no person holds',
    flags: `${fields.from ? `--from ${fields.from}` : 'every event'}${fields.recordings ? ', --recordings' : ''}${fields.zip ? ', --zip' : ''}`,
    flagsLabel: 'export',
    confirmation: (count) => `This exports ${counted(count, 'person')}`,
    scope: 'person:read',
    targetNoun: 'persons',
    planLines,
    checkedLost: (done) => `${counted(done, 'person')} written again from the last page recorded`,
    account: (receipt) => exportAccount(receipt, out),
    describeAnswer: (a) => {
      const p = a.summary as PersonSummary | undefined;
      return p ? `person ${p.uuid}: ${counted(p.events.count, 'event')}, ${counted(p.files.length, 'file')}` : 'written';
    },
    prepare: async () => {
      clients.client = env.client;
      // The flags' evaluation reasons are served to a session only: used when one is signed in.
      clients.sessionClient = await ctx.api({ auth: 'session' }).catch(() => null);
      if (!env.journal) createBundleDir(out);
      saveState(out, state);
    },
    attempt: (chunk: Chunk, note?: (line: string) => void) => writeChunk(ctx, k, state, clients, person, chunk, note),
  };
}

interface ChunkClients {
  client: ApiClient | undefined;
  sessionClient: ApiClient | null;
}

/** The receipt's account of the export: the bundle and its files, or how far the directory got. */
function exportAccount(receipt: ExportReceipt, out: string): string {
  const e = receipt.export;
  const persons = receipt.counts.persons_exported ?? 0;
  const noPerson = receipt.counts.events_of_distinct_ids_of_no_person ?? 0;
  // The persons' own events: the count is every event of the bundle.
  const events = (receipt.counts.events ?? 0) - noPerson;
  const theirs = noPerson ? ` and ${counted(noPerson, 'event')} of distinct ids of no person` : '';
  return e?.files
    ? `exported ${counted(persons, 'person')}${noPerson ? ` (${counted(events, 'event')})` : ` and ${counted(events, 'event')}`}${theirs} into ${e.bundle} (${counted(e.files, 'file')})`
    : `${counted(persons, 'person')} of ${formatNumber(receipt.projects.reduce((n, p) => n + p.targets, 0))} written (${counted(events, 'event')}) into ${out}`;
}

/** Writes every person of a chunk; the last one's summary is the answer. */
async function writeChunk(
  ctx: Context,
  k: ExportKindSettings,
  state: ExportState,
  clients: ChunkClients,
  person: PersonOf,
  chunk: Chunk,
  note?: (line: string) => void,
): Promise<Attempt> {
  const { fields, out } = k;
  try {
    let summary: PersonSummary | undefined;
    for (const uuid of chunk.ids) {
      summary = await writePerson(
        {
          ctx,
          client: clients.client!,
          bundle: out,
          state,
          until: fields.until,
          from: fields.from,
          currentTeam: fields.current_team,
          recordings: fields.recordings,
          sessionClient: clients.sessionClient,
          maxWaitMs: k.maxWaitMs,
          note: note ?? ((line) => ctx.info(line)),
        },
        person(chunk.project!, uuid),
      );
    }
    return { kind: 'ok', status: 200, summary };
  } catch (err) {
    return failed(ctx, err, k.maxWaitMs);
  }
}

/** What a failure while writing a person means for the runner. A person is written again from
 * its last page recorded, so an attempt may always be made again. */
function failed(ctx: Context, err: unknown, maxWaitMs: number): Attempt {
  if (ctx.deps.signal?.aborted || err instanceof CancelledError) return { kind: 'retry', status: null, error: 'interrupted' };
  // The query limit asks to wait longer than --max-wait: the run stops, every page kept.
  if (err instanceof RateLimitedError)
    return { kind: 'throttled', status: 429, retryAfterMs: Math.max(err.retryAfterMs ?? 0, maxWaitMs + 1), error: err.message };
  if (err instanceof AuthError) return { kind: 'auth', status: err instanceof ApiError ? err.status : 401, error: err };
  if (err instanceof ApiError) {
    if (err.status >= 500 || err.status === 408) return { kind: 'retry', status: err.status, error: err.message };
    return { kind: 'rejected', status: err.status, error: err };
  }
  if (err instanceof UnavailableError) return { kind: 'retry', status: null, error: err.message };
  if (err instanceof CliError) return { kind: 'rejected', status: 0, error: err };
  throw err;
}

/** The plan's estimate: every person's events counted, with those of distinct ids of no person
 * (counted when they were found). */
async function estimate(
  ctx: Context,
  client: ApiClient,
  persons: ExportPerson[],
  noPerson: EventsUnit[],
  fields: ExportFields,
  maxWaitMs: number,
  lines: string[],
): Promise<void> {
  let uncounted: string | undefined;
  for (const person of persons) {
    person.events.estimate = await countEvents(ctx, client, person, fields, maxWaitMs).catch((err: unknown) => {
      // A key that may not query (no query:read) still exports the records; the events are
      // named as not readable when they are reached.
      uncounted = refusal(err);
      if (uncounted === undefined) throw err;
      return undefined;
    });
    if (uncounted) break;
  }
  const units = [...persons, ...noPerson];
  const events = estimatedEvents(units);
  const pages = plannedQueries(units);
  if (uncounted) lines.push(`  events    cannot be counted: ${uncounted}`);
  else
    lines.push(
      `  events    about ${counted(events, 'event')} up to ${fields.until}: ${counted(pages, 'query', 'queries')} of up to ${formatNumber(MAX_QUERY_ROWS)} events` +
        ` (at ${formatNumber(QUERIES_PER_HOUR)} queries an hour, about ${formatDuration(Math.ceil((pages / QUERIES_PER_HOUR) * 3_600_000))} of the query budget),` +
        ` plus ${counted(persons.length * PARTS.length, 'read')} for the records`,
    );
}

/** The end of the export: the events of distinct ids of no person (after the persons, so a
 * resumed run finds them here whatever stopped it), then the bundle sealed and read back. */
async function verify(ctx: Context, env: VerifyEnv, k: ExportKindSettings, state: ExportState): Promise<JobVerification> {
  const { fields } = k;
  const header = env.journal.header!;
  const order = env.targets.projects.map((p) => p.id);
  const persons = [...env.journal.chunks.values()]
    .sort((a, b) => a.chunk - b.chunk)
    .map(summaryOf)
    .filter((p): p is PersonSummary => p !== undefined)
    .sort((a, b) => order.indexOf(a.project) - order.indexOf(b.project));
  const writer = { ctx, client: env.client, bundle: k.out, state, until: fields.until, from: fields.from, maxWaitMs: k.maxWaitMs };
  const noPerson = await writeNoPersonEvents({ ...writer, note: (line) => ctx.info(line) }, noPersonUnits(state, order)).catch(
    (err: unknown) => {
      throw goOnLater(ctx, err, resumeOf(ctx, k.out));
    },
  );
  const v = await sealBundle({
    bundle: k.out,
    zip: fields.zip ? zipPathOf(k.out) : null,
    host: new URL(header.host.includes('://') ? header.host : `https://${header.host}`).host,
    profile: header.profile,
    requestedBy: fields.requested_by,
    startedAt: header.created_at,
    finishedAt: new Date(ctx.clock.now()).toISOString(),
    until: fields.until,
    from: fields.from,
    identifiers: fields.identifiers,
    projects: env.targets.projects.map((p) => ({ id: p.id, name: p.name, ...(p.unreachable ? { unreachable: p.unreachable } : {}) })),
    persons,
    noPerson,
  });
  return { total: v, perProject: new Map(order.map((id) => [id, { status: v.status }])) };
}

/** A stop while the events of distinct ids of no person are written (a query limit longer than
 * --max-wait, a server that failed) keeps every page written: said, with how to go on. Ctrl-C is
 * the engine's to say. */
function goOnLater(ctx: Context, err: unknown, resume: string): unknown {
  if (ctx.deps.signal?.aborted || !(err instanceof CliError) || err instanceof CancelledError) return err;
  err.hint = `${err.hint ? `${err.hint}; ` : ''}every page written is kept: continue with \`${resume}\``;
  return err;
}

/** The flags of an export, checked before anything is asked of the server. */
export function checkExportFlags(s: { resume: boolean; given: number; from?: string }): void {
  if (s.resume && s.given > 0) {
    throw new UsageError(
      '--resume continues the export in --out with the identifiers it began with',
      'drop --email, --distinct-id and --person',
    );
  }
  if (!s.resume && s.given === 0) {
    throw new UsageError(
      'name the data subject: --email <address>, --distinct-id <id> or --person <uuid> (each repeatable)',
      'e.g. hogctl persons export --email lee@example.net --all-projects --out ./lee-export',
    );
  }
  if (s.from !== undefined && Number.isNaN(Date.parse(s.from))) {
    throw new UsageError(`invalid --from "${s.from}": expected a date or time, e.g. 2024-01-01`, 'or leave it out to export every event');
  }
}

/** The bundle's directory, absolute: what binds the journal. */
export function bundlePath(out: string): string {
  return resolve(out);
}

/** No person matched, and no event carries the identifiers as distinct ids of no person: what was searched. */
function noPersonError(identifiers: GivenIdentifiers, projects: number, uncounted: string | undefined): NotFoundError {
  const given = [...identifiers.emails, ...identifiers.distinct_ids, ...identifiers.persons];
  const unsure = uncounted ? `; events of the identifiers as distinct ids of no person could not be counted (${uncounted})` : '';
  return new NotFoundError(
    `no person matches ${given.join(', ')} in ${counted(projects, 'project')} searched; nothing was written${unsure}`,
    uncounted
      ? 'give the key the query:read scope (Settings → Personal API keys) to export those events'
      : 'check the identifiers, and the projects with --projects or --all-projects',
  );
}
