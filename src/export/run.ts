// `hogctl persons export`: everything PostHog holds about one data subject, as a bundle a DPO can
// hand over (GDPR Art. 15). In order:
//
// 1. Find the persons, project by project, through the same identifier resolution as an erasure
//    (src/bulk/input/targets.ts: e-mail addresses as the email property and as distinct ids, distinct
//    ids and person UUIDs by the batch lookups), so that an erasure of the same request finds
//    exactly the persons the export found.
// 2. Plan: the persons per project, their events counted, the queries that takes. --dry-run ends
//    here, having written nothing.
// 3. Write, person by person, the parts (collect.ts) and the events (a keyset over HogQL's
//    events table, src/hogql/events.ts), journaling after every part and every page, so that a
//    crash, Ctrl-C or a query limit leaves a bundle --resume continues without writing any event
//    twice.
// 4. Finish: summary.html, then manifest.json with the SHA-256 of every file; the journal goes.
import { existsSync, rmSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { join } from 'node:path';
import type { Context } from '../context.js';
import { VERSION } from '../context.js';
import { CancelledError, CliError, NotFoundError, PartialFailureError, UsageError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import { runHogQL } from '../api/query.js';
import { getPerson } from '../api/persons.js';
import { getUser } from '../api/users.js';
import { underQueryLimit, type WaitCap } from '../cli/wait-out-limit.js';
import { formatDuration } from '../io/progress.js';
import { truncate } from '../io/columns.js';
import { caseProjects } from '../bulk/engine/projects.js';
import { findTargets } from '../bulk/input/targets.js';
import { CLEAR } from '../bulk/input/identifiers.js';
import { RateBudget } from '../bulk/engine/rate.js';
import { READ_PER_MINUTE } from '../bulk/input/resolve.js';
import { lockJournal } from '../bulk/engine/lock.js';
import { idListSha256, type IdList } from '../bulk/input/validate.js';
import { eventLine, walkEvents, type EventRecord } from '../hogql/events.js';
import { MAX_QUERY_ROWS } from '../hogql/walk.js';
import { appendGzipLines, createBundleDir, cutTo, listFiles, makeDir, MANIFEST_FILE, sha256File, writeJson } from './bundle.js';
import { collectPart, PARTS, refusal, type CollectContext } from './collect.js';
import { journalPath, loadJournal, saveJournal, type ExportJournal, type ExportPerson } from './journal.js';
import { summaryHtml, type SummaryProject } from './summary.js';
import { writeZip } from './zip.js';
import { writeSecretFile } from '../config/secret-file.js';

export const EVENTS_FILE = 'events.ndjson.gz';
export const HISTORY_FILE = 'properties-history.ndjson.gz';

const n = (x: number) => x.toLocaleString('en-US');
const plural = (k: number, one: string, many = `${one}s`) => `${n(k)} ${k === 1 ? one : many}`;

/** PostHog's budget for API queries with a personal key (docs/server-contract.md §5). */
const QUERIES_PER_HOUR = 2400;

export interface ExportSettings {
  out: string;
  emails: string[];
  distinctIds: string[];
  persons: string[];
  projects?: string[];
  allProjects: boolean;
  from?: string;
  recordings: boolean;
  /** Hand the finished bundle over as <out>.zip instead of a directory. */
  zip: boolean;
  dryRun: boolean;
  resume: boolean;
  maxWaitMs: number;
}

export interface ExportResult {
  bundle: string;
  persons: number;
  events: number;
  queries: number;
  files: number;
  /** The archive, with --zip (the directory is then removed). */
  zip: string | null;
  unavailable: string[];
  dry_run: boolean;
}

/** The identifiers as the bulk jobs read a mixed list: `email:…`, `distinct_id:…`, `person_id:…`. */
function identifierList(s: Pick<ExportSettings, 'emails' | 'distinctIds' | 'persons'>): IdList {
  const tagged = [
    ...s.emails.map((e) => `email:${e.trim().replace(/[A-Z]+/g, (m) => m.toLowerCase())}`),
    ...s.distinctIds.map((d) => `distinct_id:${d}`),
    ...s.persons.map((p) => `person_id:${p.trim().toLowerCase()}`),
  ];
  const ids = [...new Set(tagged)];
  return {
    kind: 'mixed',
    format: 'lines',
    ids,
    requested: tagged.length,
    duplicates: tagged.length - ids.length,
    invalidCount: 0,
    invalid: [],
    integerCount: 0,
    sha256: idListSha256(ids),
  };
}

/** One line of the terminal, never wrapped (a wrapped line is not cleared by the next redraw). */
function fitToTerminal(line: string, columns: number): string {
  return truncate(line, Math.max(10, columns - 1));
}

/** Where --zip puts the archive: beside the directory, named after it. */
function zipPathOf(out: string): string {
  return `${out.replace(/[\\/]+$/, '')}.zip`;
}

function currentTeamOf(me: unknown): string | null {
  const id = (me as { team?: { id?: unknown } } | null)?.team?.id;
  return id === undefined || id === null ? null : String(id);
}

const bare = (tagged: string) => tagged.slice(tagged.indexOf(':') + 1);

function month(timestamp: string): string {
  return timestamp.slice(0, 7);
}

export async function runExport(ctx: Context, s: ExportSettings): Promise<ExportResult> {
  const client = await ctx.api();
  const settings = await ctx.settings();
  let journal: ExportJournal;
  if (s.resume) {
    journal = loadJournal(s.out);
    ctx.info(`continuing the export in ${s.out}, begun ${journal.started_at}`);
  } else {
    journal = await plan(ctx, client, s, new URL(settings.baseUrl).host, settings.profileName ?? null);
    if (s.dryRun) {
      return {
        bundle: s.out,
        persons: journal.persons.length,
        events: 0,
        queries: journal.queries,
        files: 0,
        zip: null,
        unavailable: [],
        dry_run: true,
      };
    }
    if (s.zip && existsSync(zipPathOf(s.out))) {
      throw new UsageError(
        `${zipPathOf(s.out)} exists, and a bundle is never written over`,
        'move it away, or give --out another directory',
      );
    }
    createBundleDir(s.out);
    saveJournal(s.out, journal);
  }
  const lock = await lockJournal(journalPath(s.out), ctx.clock.now);
  try {
    await write(ctx, client, s.out, journal, s.maxWaitMs);
  } catch (err) {
    if (ctx.deps.signal?.aborted || err instanceof CancelledError) {
      throw new CancelledError(
        `stopped; the bundle in ${s.out} is unfinished (every page written is kept)`,
        `continue it with \`hogctl persons export --resume --out ${s.out}\``,
      );
    }
    if (err instanceof CliError) {
      err.hint = `${err.hint ? `${err.hint}; ` : ''}what was written is kept: \`hogctl persons export --resume --out ${s.out}\` continues`;
    }
    throw err;
  } finally {
    await lock.release();
  }
  return finish(ctx, s.out, journal);
}

/** Step 1 and 2: the persons, their events counted, the plan shown. */
async function plan(ctx: Context, client: ApiClient, s: ExportSettings, host: string, profile: string | null): Promise<ExportJournal> {
  const list = identifierList(s);
  const projects = await caseProjects(ctx, client, { projects: s.projects, allProjects: s.allProjects });
  const reads = new RateBudget(READ_PER_MINUTE, ctx.clock);
  const cap: WaitCap = { maxWaitMs: s.maxWaitMs, flag: '--max-wait' };
  const found = await findTargets(ctx, client, projects, list, undefined, {
    lookUp: true,
    policy: CLEAR,
    maxWaitMs: s.maxWaitMs,
    reads,
    concurrency: 4,
  });
  const until = new Date(ctx.clock.now()).toISOString();
  const me = await getUser(client).catch(() => null);
  const journal: ExportJournal = {
    journal_format: 1,
    started_at: until,
    until,
    from: s.from ?? null,
    host,
    profile,
    requested_by: me?.email ?? profile,
    identifiers: { emails: s.emails, distinct_ids: s.distinctIds, persons: s.persons },
    recordings: s.recordings,
    zip: s.zip,
    projects: found.projects.map((p) => ({ id: p.id, name: p.name, ...(p.unreachable ? { unreachable: p.unreachable } : {}) })),
    persons: [],
    queries: found.queries,
    current_team: currentTeamOf(me),
  };
  for (const project of found.projects) {
    for (const uuid of project.ids) {
      const foundBy = [...project.matches].filter(([, uuids]) => uuids.includes(uuid)).map(([key]) => bare(key));
      journal.persons.push({
        project: project.id,
        uuid,
        dir: `project-${project.id}/person-${uuid}`,
        distinctIds: project.distinctIds.get(uuid) ?? [],
        foundBy,
        parts: {},
        events: { bytes: 0, historyBytes: 0, count: 0, historyCount: 0, queries: 0, first: null, last: null, months: {}, done: false },
      });
    }
  }
  if (journal.persons.length === 0) {
    throw new NotFoundError(
      `no person matches ${Array.from(list.ids, bare).join(', ')} in ${plural(projects.length, 'project')} searched; nothing was written`,
      'check the identifiers, and the projects with --projects or --all-projects',
    );
  }
  // Distinct ids from the full records: the batch lookups show at most ten.
  for (const person of journal.persons) {
    const record = await getPerson(client, person.project, person.uuid);
    person.distinctIds = (record.distinct_ids ?? []).map(String);
  }
  // The events each person has up to now, counted: the plan's estimate of the queries.
  let events = 0;
  let pages = 0;
  let uncounted: string | undefined;
  for (const person of journal.persons) {
    if (uncounted) break;
    const res = await underQueryLimit(ctx, cap, (retry) =>
      runHogQL(
        client,
        person.project,
        {
          query: 'SELECT count() FROM events WHERE distinct_id IN {ids} AND timestamp <= toDateTime({until})',
          values: { ids: person.distinctIds, until },
          name: 'hogctl export: events to read',
        },
        { signal: ctx.deps.signal, retry, sleep: ctx.clock.sleep, now: ctx.clock.now },
      ),
    ).catch((err: unknown) => {
      // A key that may not query (no query:read) still exports the records; the events are
      // named as not readable when they are reached.
      uncounted = refusal(err);
      if (uncounted === undefined) throw err;
      return undefined;
    });
    if (!res) break;
    journal.queries++;
    const count = Number((res.results[0] ?? [])[0] ?? 0);
    person.events.estimate = count;
    events += count;
    pages += Math.floor(count / MAX_QUERY_ROWS) + 1;
  }
  ctx.info(`plan: export ${plural(journal.persons.length, 'person')} into ${s.out}`);
  for (const project of journal.projects) {
    const here = journal.persons.filter((p) => p.project === project.id);
    const name = project.name ? ` (${project.name})` : '';
    if (project.unreachable) ctx.info(`  project ${project.id}${name}: cannot be searched: ${project.unreachable}`);
    else
      ctx.info(
        `  project ${project.id}${name}: ${plural(here.length, 'person')}, ${plural(
          here.reduce((k, p) => k + p.distinctIds.length, 0),
          'distinct id',
        )}`,
      );
  }
  if (uncounted) ctx.info(`  the events cannot be counted: ${uncounted}`);
  else
    ctx.info(
      `  about ${plural(events, 'event')} up to ${until}: ${plural(pages, 'query', 'queries')} of up to ${n(MAX_QUERY_ROWS)} events` +
        ` (at ${n(QUERIES_PER_HOUR)} queries an hour, about ${formatDuration(Math.ceil((pages / QUERIES_PER_HOUR) * 3_600_000))} of the query budget),` +
        ` plus ${plural(journal.persons.length * PARTS.length, 'read')} for the records`,
    );
  if (s.dryRun) ctx.info('dry run: nothing was written');
  return journal;
}

/** Step 3: every part and every page, journaled as it is written. */
async function write(ctx: Context, client: ApiClient, bundle: string, journal: ExportJournal, maxWaitMs: number): Promise<void> {
  // A longer wait than --max-wait stops the run (exit 6), every page written kept for --resume.
  const cap: WaitCap = { maxWaitMs, flag: '--max-wait' };
  const c: CollectContext = {
    ctx,
    client,
    bundle,
    until: journal.until,
    from: journal.from,
    currentTeam: journal.current_team,
    recordings: journal.recordings,
  };
  // On a terminal one line, redrawn after every page; off one, a line a page (for a log).
  const tty = Boolean(ctx.io.stderr.isTTY) && !ctx.globals.quiet;
  let shown = '';
  const progress = (line: string | undefined) => {
    if (!tty) {
      if (line !== undefined) ctx.info(line);
      return;
    }
    if (line === undefined) {
      if (shown) ctx.io.stderr.write(`\r\u001b[2K${shown}\n`);
      shown = '';
      return;
    }
    shown = line;
    ctx.io.stderr.write(`\r\u001b[2K${fitToTerminal(line, ctx.io.stderr.columns || 100)}`);
  };
  for (const person of journal.persons) {
    makeDir(join(bundle, person.dir));
    const label = `project ${person.project}, person ${person.uuid}`;
    for (const part of PARTS) {
      if (person.parts[part.name] || (part.name === 'recording content' && !journal.recordings)) continue;
      if (ctx.deps.signal?.aborted) throw new CancelledError('cancelled');
      const state = await collectPart(c, person, part.name);
      person.parts[part.name] = state;
      if (state.unavailable) ctx.warn(`${label}: ${part.name} not exported: ${state.unavailable}`);
      if (state.note && !(part.name === 'recording content' && !journal.recordings))
        ctx.info(`${label}: ${part.name} not exported: ${state.note}`);
      saveJournal(bundle, journal);
    }
    if (person.events.done) continue;
    const eventsPath = join(bundle, person.dir, EVENTS_FILE);
    const historyPath = join(bundle, person.dir, HISTORY_FILE);
    // What a stopped run wrote after its last journaled page goes; that page is asked for again.
    cutTo(eventsPath, person.events.bytes);
    cutTo(historyPath, person.events.historyBytes);
    const walk = { after: person.events.cursor, queries: 0, events: 0 };
    const queriesBefore = person.events.queries;
    const counted = () => {
      journal.queries += queriesBefore + walk.queries - person.events.queries;
      person.events.queries = queriesBefore + walk.queries;
    };
    const run = (query: string, values: Record<string, unknown>) =>
      underQueryLimit(ctx, cap, (retry) =>
        runHogQL(
          client,
          person.project,
          { query, values, name: 'hogctl export: events' },
          { signal: ctx.deps.signal, retry, sleep: ctx.clock.sleep, now: ctx.clock.now },
        ),
      );
    const range = { distinctIds: person.distinctIds, until: journal.until, ...(journal.from ? { from: journal.from } : {}) };
    try {
      for await (const page of walkEvents(range, walk, run)) {
        await writePage(person, page, eventsPath, historyPath);
        counted();
        person.events.cursor = { timestamp: page[page.length - 1].timestamp, uuid: page[page.length - 1].uuid };
        saveJournal(bundle, journal);
        progress(
          `${label}: ${plural(person.events.count, 'event')} written${person.events.estimate !== undefined ? ` of about ${n(person.events.estimate)}` : ''} (${plural(person.events.queries, 'query', 'queries')})`,
        );
      }
      progress(undefined);
    } catch (err) {
      progress(undefined);
      const why = refusal(err);
      if (why === undefined) throw err;
      person.events.unavailable = why;
      ctx.warn(`${label}: events not exported: ${why}`);
    }
    // The query that found the end with an empty page counts too.
    counted();
    person.events.done = true;
    saveJournal(bundle, journal);
  }
}

/** One page: the events as NDJSON, and the property changes they carry, each as a gzip member. */
async function writePage(person: ExportPerson, page: EventRecord[], eventsPath: string, historyPath: string): Promise<void> {
  const lines: string[] = [];
  const history: string[] = [];
  const e = person.events;
  for (const event of page) {
    lines.push(eventLine(event));
    // Only the events that change the person are parsed again, for their changes.
    if (/"\$(set|set_once|unset)"/.test(event.properties)) {
      const p = JSON.parse(event.properties) as Record<string, unknown>;
      if ('$set' in p || '$set_once' in p || '$unset' in p) {
        history.push(
          `${JSON.stringify({ timestamp: event.timestamp, event: event.event, uuid: event.uuid, distinct_id: event.distinct_id, $set: p.$set, $set_once: p.$set_once, $unset: p.$unset })}\n`,
        );
      }
    }
    e.months[month(event.timestamp)] = (e.months[month(event.timestamp)] ?? 0) + 1;
    if (e.first === null || event.timestamp < e.first) e.first = event.timestamp;
    if (e.last === null || event.timestamp > e.last) e.last = event.timestamp;
  }
  if (history.length) e.historyBytes = await appendGzipLines(historyPath, history);
  e.bytes = await appendGzipLines(eventsPath, lines);
  e.count += page.length;
  e.historyCount += history.length;
}

/** Step 4: summary.html, then manifest.json naming every file with its SHA-256. */
async function finish(ctx: Context, bundle: string, journal: ExportJournal): Promise<ExportResult> {
  const unavailable: string[] = [];
  const projects: SummaryProject[] = journal.projects.map((p) => ({ id: p.id, name: p.name, unreachable: p.unreachable, persons: [] }));
  for (const person of journal.persons) {
    for (const [name, part] of Object.entries(person.parts)) {
      if (part.unavailable) unavailable.push(`project ${person.project}, person ${person.uuid}: ${name}: ${part.unavailable}`);
    }
    if (person.events.unavailable)
      unavailable.push(`project ${person.project}, person ${person.uuid}: events: ${person.events.unavailable}`);
    projects
      .find((p) => p.id === person.project)!
      .persons.push({
        uuid: person.uuid,
        distinctIds: person.distinctIds.length,
        events: person.events.count,
        firstEvent: person.events.first,
        lastEvent: person.events.last,
        months: person.events.months,
        parts: [
          ...PARTS.filter((part) => person.parts[part.name]).map((part) => ({
            name: part.name === 'properties' ? 'properties (as the events set them)' : part.name,
            count: person.parts[part.name]?.count ?? null,
            unavailable: person.parts[part.name]?.unavailable,
            note: person.parts[part.name]?.note,
          })),
          { name: 'events', count: person.events.count, unavailable: person.events.unavailable },
          { name: 'property changes', count: person.events.historyCount },
        ],
      });
  }
  const createdAt = new Date(ctx.clock.now()).toISOString();
  const identifiers = [...journal.identifiers.emails, ...journal.identifiers.distinct_ids, ...journal.identifiers.persons];
  writeSecretFile(
    join(bundle, 'summary.html'),
    summaryHtml({ host: journal.host, requestedBy: journal.requested_by, createdAt, until: journal.until, identifiers, projects }),
  );
  const files = [];
  for (const path of listFiles(bundle)) {
    files.push({ path, bytes: statSync(join(bundle, path)).size, sha256: await sha256File(join(bundle, path)) });
  }
  const events = journal.persons.reduce((k, p) => k + p.events.count, 0);
  const firsts = journal.persons
    .map((p) => p.events.first)
    .filter((x): x is string => x !== null)
    .sort();
  const lasts = journal.persons
    .map((p) => p.events.last)
    .filter((x): x is string => x !== null)
    .sort();
  writeJson(join(bundle, MANIFEST_FILE), {
    manifest_format: 1,
    kind: 'subject-access-export',
    hogctl_version: VERSION,
    requested_by: journal.requested_by,
    profile: journal.profile,
    host: journal.host,
    started_at: journal.started_at,
    finished_at: createdAt,
    identifiers_as_given: journal.identifiers,
    time_range: { from: journal.from, until: journal.until, first_event: firsts[0] ?? null, last_event: lasts[lasts.length - 1] ?? null },
    projects: journal.projects.map((project) => ({
      ...project,
      persons: journal.persons
        .filter((p) => p.project === project.id)
        .map((p) => ({
          uuid: p.uuid,
          dir: p.dir,
          found_by: p.foundBy,
          distinct_ids: p.distinctIds,
          counts: {
            events: p.events.count,
            event_queries: p.events.queries,
            property_changes: p.events.historyCount,
            ...Object.fromEntries(Object.entries(p.parts).map(([k, v]) => [k, v.count])),
          },
          first_event: p.events.first,
          last_event: p.events.last,
          not_exported: Object.fromEntries([
            ...Object.entries(p.parts)
              .filter(([, v]) => v.unavailable || v.note)
              .map(([k, v]) => [k, v.unavailable ?? v.note]),
            ...(p.events.unavailable ? [['events', p.events.unavailable]] : []),
          ]),
        })),
    })),
    counts: { persons: journal.persons.length, events, queries: journal.queries, files: files.length },
    files,
  });
  rmSync(journalPath(bundle), { force: true });
  let zip: string | null = null;
  if (journal.zip) {
    zip = zipPathOf(bundle);
    await writeZip(bundle, [...files.map((f) => f.path), MANIFEST_FILE].sort(), zip, basename(bundle));
    // The archive is the bundle now: the directory it was made from goes.
    rmSync(bundle, { recursive: true, force: true });
  }
  ctx.info(
    `✔ exported ${plural(journal.persons.length, 'person')} and ${plural(events, 'event')} into ${zip ?? bundle} (${plural(files.length + 1, 'file')})`,
  );
  const result: ExportResult = {
    bundle: zip ?? bundle,
    persons: journal.persons.length,
    events,
    queries: journal.queries,
    files: files.length + 1,
    zip,
    unavailable,
    dry_run: false,
  };
  if (unavailable.length) {
    throw Object.assign(
      new PartialFailureError(
        `the bundle is written, but ${plural(unavailable.length, 'part')} could not be read: ${unavailable.join('; ')}`,
        'give the key the scopes named (Settings → Personal API keys) and export again into a new directory',
      ),
      { result },
    );
  }
  return result;
}

export function checkSettings(s: ExportSettings): void {
  const given = s.emails.length + s.distinctIds.length + s.persons.length;
  if (s.resume && given > 0) {
    throw new UsageError(
      '--resume continues the export in --out with the identifiers it began with',
      'drop --email, --distinct-id and --person',
    );
  }
  if (!s.resume && given === 0) {
    throw new UsageError(
      'name the data subject: --email <address>, --distinct-id <id> or --person <uuid> (each repeatable)',
      'e.g. hogctl persons export --email lee@example.net --all-projects --out ./lee-export',
    );
  }
  if (s.from !== undefined && Number.isNaN(Date.parse(s.from))) {
    throw new UsageError(`invalid --from "${s.from}": expected a date or time, e.g. 2024-01-01`, 'or leave it out to export every event');
  }
}
