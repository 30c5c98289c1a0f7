// One person of an export, written into the bundle: the export kind's attempt at one chunk
// (kind.ts). The parts (collect.ts) first, then the events, a keyset over HogQL's events table
// (src/hogql/events.ts), page by page. After every part and every page the export's state
// (state.ts) records where the person stands, so that a crash, Ctrl-C or a query limit mid-person
// goes on from the last page written, never writing an event twice. When the person is done its
// files are hashed, and what it came to is the answer the engine journals.
import { join } from 'node:path';
import type { Context } from '../../../context.js';
import { CancelledError } from '../../../errors.js';
import type { ApiClient } from '../../../http/client.js';
import { runHogQL } from '../../../api/query.js';
import { underQueryLimit, type WaitCap } from '../../../cli/wait-out-limit.js';
import { counted, formatNumber } from '../../../io/counts.js';
import { eventLine, walkEvents, type EventRecord } from '../../../hogql/events.js';
import { appendGzipLines, cutTo, listFiles, makeDir, sha256File } from './bundle.js';
import { inBundle } from './safe-name.js';
import { collectPart, PARTS, refusal, type CollectContext } from './collect.js';
import { saveState, type ExportPerson, type ExportState, type PartState } from './state.js';
import { statSync } from 'node:fs';

export const EVENTS_FILE = 'events.ndjson.gz';
export const HISTORY_FILE = 'properties-history.ndjson.gz';

/** A file of the bundle, as the manifest names it. */
export interface BundleFile {
  path: string;
  bytes: number;
  sha256: string;
}

/** What one person came to: the answer the engine journals, from which the summary, the
 * manifest and the receipt are made. It names the person's distinct ids, as the manifest does. */
export interface PersonSummary {
  project: string;
  uuid: string;
  dir: string;
  distinct_ids: string[];
  found_by: string[];
  parts: Record<string, PartState>;
  events: {
    count: number;
    history_count: number;
    queries: number;
    first: string | null;
    last: string | null;
    months: Record<string, number>;
    unavailable?: string;
    /** Fewer were read than the plan counted (shortOf). */
    short?: string;
  };
  /** The person's files, relative to the bundle, hashed once the person was done. */
  files: BundleFile[];
}

export interface PersonWriter {
  ctx: Context;
  client: ApiClient;
  bundle: string;
  state: ExportState;
  until: string;
  from: string | null;
  currentTeam: string | null;
  recordings: boolean;
  /** The signed-in session, for the parts PostHog refuses to keys; null if none. */
  sessionClient: ApiClient | null;
  /** --max-wait: a longer wait for the query limit stops the run, every page kept. */
  maxWaitMs: number;
  /** A line above the engine's progress bar (a line a page). */
  note: (line: string) => void;
}

const month = (timestamp: string) => timestamp.slice(0, 7);

/** Writes (or goes on writing) one person; returns what it came to. */
export async function writePerson(w: PersonWriter, person: ExportPerson): Promise<PersonSummary> {
  const { ctx, bundle } = w;
  makeDir(inBundle(bundle, person.dir));
  const label = `project ${person.project}, person ${person.uuid}`;
  const c: CollectContext = {
    ctx,
    client: w.client,
    bundle,
    until: w.until,
    from: w.from,
    currentTeam: w.currentTeam,
    recordings: w.recordings,
    sessionClient: w.sessionClient,
  };
  for (const part of PARTS) {
    if (person.parts[part.name] || (part.name === 'recording content' && !w.recordings)) continue;
    if (ctx.deps.signal?.aborted) throw new CancelledError('cancelled');
    const state = await collectPart(c, person, part.name);
    person.parts[part.name] = state;
    if (state.unavailable) ctx.warn(`${label}: ${part.name} not exported: ${state.unavailable}`);
    if (state.note) ctx.info(`${label}: ${part.name} not exported: ${state.note}`);
    saveState(bundle, w.state);
  }
  if (!person.events.done) await writeEvents(w, person, label);
  const files = [];
  for (const path of listFiles(bundle).filter((p) => p.startsWith(`${person.dir}/`))) {
    files.push({ path, bytes: statSync(join(bundle, path)).size, sha256: await sha256File(join(bundle, path)) });
  }
  const e = person.events;
  return {
    project: person.project,
    uuid: person.uuid,
    dir: person.dir,
    distinct_ids: person.distinctIds,
    found_by: person.foundBy,
    parts: person.parts,
    events: {
      count: e.count,
      history_count: e.historyCount,
      queries: e.queries,
      first: e.first,
      last: e.last,
      months: e.months,
      ...(e.unavailable ? { unavailable: e.unavailable } : {}),
      ...(e.short ? { short: e.short } : {}),
    },
    files,
  };
}

async function writeEvents(w: PersonWriter, person: ExportPerson, label: string): Promise<void> {
  const { ctx, bundle } = w;
  const cap: WaitCap = { maxWaitMs: w.maxWaitMs, flag: '--max-wait' };
  const eventsPath = inBundle(bundle, person.dir, EVENTS_FILE);
  const historyPath = inBundle(bundle, person.dir, HISTORY_FILE);
  // What a stopped run wrote after its last recorded page goes; that page is asked for again.
  cutTo(eventsPath, person.events.bytes);
  cutTo(historyPath, person.events.historyBytes);
  const walk = { after: person.events.cursor, queries: 0, events: 0 };
  const queriesBefore = person.events.queries;
  const counted_ = () => {
    person.events.queries = queriesBefore + walk.queries;
  };
  const run = (query: string, values: Record<string, unknown>) =>
    underQueryLimit(ctx, cap, (retry) =>
      runHogQL(
        w.client,
        person.project,
        { query, values, name: 'hogctl export: events' },
        { signal: ctx.deps.signal, retry, sleep: ctx.clock.sleep, now: ctx.clock.now },
      ),
    );
  const range = { distinctIds: person.distinctIds, until: w.until, ...(w.from ? { from: w.from } : {}) };
  try {
    // Each page let go before the next is read: a suspended loop would hold it while the next
    // page's answer is read and parsed, two pages at once.
    const pages = walkEvents(range, walk, run);
    for (let step = await pages.next(); !step.done; step = await pages.next()) {
      let page: EventRecord[] | undefined = step.value;
      step = { done: false, value: [] };
      await writePage(person, page, eventsPath, historyPath);
      counted_();
      person.events.cursor = { timestamp: page[page.length - 1].timestamp, uuid: page[page.length - 1].uuid };
      page = undefined;
      saveState(bundle, w.state);
      w.note(
        `${label}: ${counted(person.events.count, 'event')} written${person.events.estimate !== undefined ? ` of about ${formatNumber(person.events.estimate)}` : ''} (${counted(person.events.queries, 'query', 'queries')})`,
      );
      if (ctx.deps.signal?.aborted) throw new CancelledError('cancelled');
    }
  } catch (err) {
    const why = refusal(err);
    if (why === undefined) throw err;
    person.events.unavailable = why;
    ctx.warn(`${label}: events not exported: ${why}`);
  }
  // The query that found the end with an empty page counts too.
  counted_();
  // Read to the end with no change of a property: the file says so by being there and empty.
  if (!person.events.unavailable && person.events.historyBytes === 0) person.events.historyBytes = await appendGzipLines(historyPath, []);
  person.events.short = shortOf(person.events);
  if (person.events.short) ctx.warn(`${label}: events not all read: ${person.events.short}`);
  person.events.done = true;
  saveState(bundle, w.state);
}

/**
 * Whether the events read fall short of the plan's count (same distinct ids, same time range):
 * the server ended the walk early, with a short page that did not say there was more. Events
 * deleted since the plan would do the same; either way the bundle is not said to be complete.
 */
export function shortOf(e: { count: number; estimate?: number; unavailable?: string }): string | undefined {
  if (e.unavailable || e.estimate === undefined || e.count >= e.estimate) return undefined;
  return `${formatNumber(e.count)} read of the ${formatNumber(e.estimate)} the plan counted (${formatNumber(e.estimate - e.count)} missing): the server's answers ended before the last event`;
}

/** One page: the events as NDJSON, and the property changes they carry, each as a gzip member. */
async function writePage(person: ExportPerson, page: EventRecord[], eventsPath: string, historyPath: string): Promise<void> {
  const history: string[] = [];
  const e = person.events;
  for (const event of page) {
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
  // Each line made as the compressor takes it: the page's lines are never all held at once.
  e.bytes = await appendGzipLines(eventsPath, linesOf(page));
  e.count += page.length;
  e.historyCount += history.length;
}

function* linesOf(page: EventRecord[]): Generator<string> {
  for (const event of page) yield eventLine(event);
}
