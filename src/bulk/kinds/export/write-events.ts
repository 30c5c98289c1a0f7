// The events of one unit of an export, written into its directory: a person's (write-person.ts),
// or those of the identifiers given that are distinct ids of no person in a project
// (no-person.ts). One keyset walk over HogQL's events table (src/hogql/events.ts), page by page:
// after every page the export's state (state.ts) records the cursor and the files' lengths, so
// that a crash, Ctrl-C or a query limit goes on from the last page written, never writing an
// event twice. Then the unit's files are hashed, as the manifest names them.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../../../context.js';
import { CancelledError } from '../../../errors.js';
import type { ApiClient } from '../../../http/client.js';
import { queryUnderLimit, type WaitCap } from '../../../cli/wait-out-limit.js';
import { counted, formatNumber } from '../../../io/counts.js';
import { checkEventsRange, eventLine, walkEvents, type EventRecord } from '../../../hogql/events.js';
import { appendGzipLines, cutTo, listFiles, sha256File } from './bundle.js';
import { inBundle } from './safe-name.js';
import { refusal } from './collect.js';
import { saveState, type EventsState, type EventsUnit, type ExportState } from './state.js';

export const EVENTS_FILE = 'events.ndjson.gz';
export const HISTORY_FILE = 'properties-history.ndjson.gz';

/** A file of the bundle, as the manifest names it. */
export interface BundleFile {
  path: string;
  bytes: number;
  sha256: string;
}

/** What a unit's events came to, as the journal, the manifest and the receipt keep it. */
export interface EventsSummary {
  count: number;
  history_count: number;
  queries: number;
  first: string | null;
  last: string | null;
  months: Record<string, number>;
  unavailable?: string;
  /** Fewer were read than the plan counted (shortOf). */
  short?: string;
}

/** What writing a unit's events needs. */
export interface EventsWriter {
  ctx: Context;
  client: ApiClient;
  bundle: string;
  state: ExportState;
  until: string;
  from: string | null;
  /** --max-wait: a longer wait for the query limit stops the run, every page kept. */
  maxWaitMs: number;
  /** A line above the engine's progress bar (a line a page). */
  note: (line: string) => void;
}

const month = (timestamp: string) => timestamp.slice(0, 7);

/** Writes (or goes on writing) the events of a unit; `label` names it in messages ("project 1,
 * person …"), never by its distinct ids. */
export async function writeEvents(w: EventsWriter, unit: EventsUnit, label: string): Promise<void> {
  const { ctx, bundle } = w;
  const eventsPath = inBundle(bundle, unit.dir, EVENTS_FILE);
  const historyPath = inBundle(bundle, unit.dir, HISTORY_FILE);
  // What a stopped run wrote after its last recorded page goes; that page is asked for again.
  cutTo(eventsPath, unit.events.bytes);
  cutTo(historyPath, unit.events.historyBytes);
  const walk = { after: unit.events.cursor, queries: 0, events: 0 };
  const queriesBefore = unit.events.queries;
  const counted_ = () => {
    unit.events.queries = queriesBefore + walk.queries;
  };
  const range = { distinctIds: unit.distinctIds, until: w.until, ...(w.from ? { from: w.from } : {}) };
  try {
    // Each page let go before the next is read: a suspended loop would hold it while the next
    // page's answer is read and parsed, two pages at once.
    const cap: WaitCap = { maxWaitMs: w.maxWaitMs, flag: '--max-wait' };
    const pages = walkEvents(range, walk, (query, values) =>
      queryUnderLimit(ctx, w.client, unit.project, { query, values, name: 'hogctl export: events' }, cap),
    );
    for (let step = await pages.next(); !step.done; step = await pages.next()) {
      let page: EventRecord[] | undefined = step.value;
      step = { done: false, value: [] };
      await writePage(unit.events, page, eventsPath, historyPath);
      counted_();
      unit.events.cursor = { timestamp: page[page.length - 1].timestamp, uuid: page[page.length - 1].uuid };
      page = undefined;
      saveState(bundle, w.state);
      w.note(
        `${label}: ${counted(unit.events.count, 'event')} written${unit.events.estimate !== undefined ? ` of about ${formatNumber(unit.events.estimate)}` : ''} (${counted(unit.events.queries, 'query', 'queries')})`,
      );
      if (ctx.deps.signal?.aborted) throw new CancelledError('cancelled');
    }
  } catch (err) {
    const why = refusal(err);
    if (why === undefined) throw err;
    unit.events.unavailable = why;
    ctx.warn(`${label}: events not exported: ${why}`);
  }
  // The query that found the end with an empty page counts too.
  counted_();
  await finishEvents(w, unit.events, historyPath, label);
}

/** Read to the end: the history file is there even when empty, a short walk is said, and the
 * unit is recorded as done. */
async function finishEvents(w: EventsWriter, e: EventsState, historyPath: string, label: string): Promise<void> {
  // Read to the end with no change of a property: the file says so by being there and empty.
  if (!e.unavailable && e.historyBytes === 0) e.historyBytes = await appendGzipLines(historyPath, []);
  e.short = shortOf(e);
  if (e.short) w.ctx.warn(`${label}: events not all read: ${e.short}`);
  e.done = true;
  saveState(w.bundle, w.state);
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
async function writePage(e: EventsState, page: EventRecord[], eventsPath: string, historyPath: string): Promise<void> {
  const history: string[] = [];
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

/** A unit's events as its summary keeps them. */
export function eventsSummaryOf(e: EventsState): EventsSummary {
  return {
    count: e.count,
    history_count: e.historyCount,
    queries: e.queries,
    first: e.first,
    last: e.last,
    months: e.months,
    ...(e.unavailable ? { unavailable: e.unavailable } : {}),
    ...(e.short ? { short: e.short } : {}),
  };
}

/** The files of a unit's directory, relative to the bundle, hashed (once the unit is done). */
export async function filesOf(bundle: string, dir: string): Promise<BundleFile[]> {
  const files = [];
  for (const path of listFiles(bundle).filter((p) => p.startsWith(`${dir}/`))) {
    files.push({ path, bytes: statSync(join(bundle, path)).size, sha256: await sha256File(join(bundle, path)) });
  }
  return files;
}

/** A fresh unit's events: nothing written yet. */
export function noEventsYet(): EventsState {
  return { bytes: 0, historyBytes: 0, count: 0, historyCount: 0, queries: 0, first: null, last: null, months: {}, done: false };
}

/**
 * How many events a unit's walk will read: the same distinct ids and time range (src/hogql/events.ts),
 * so that a walk that ends early is seen by its count (shortOf). A person whose events cannot be
 * read in queries PostHog takes is refused here, before the run.
 */
export async function countEvents(
  ctx: Context,
  client: ApiClient,
  unit: { project: string; distinctIds: string[] },
  bounds: { until: string; from: string | null },
  maxWaitMs: number,
): Promise<number> {
  const { until, from } = bounds;
  checkEventsRange({ distinctIds: unit.distinctIds, until, ...(from ? { from } : {}) });
  const res = await queryUnderLimit(
    ctx,
    client,
    unit.project,
    {
      query: `SELECT count() FROM events WHERE distinct_id IN {ids} AND timestamp <= toDateTime({until})${from ? ' AND timestamp >= toDateTime({from})' : ''}`,
      values: { ids: unit.distinctIds, until, ...(from ? { from } : {}) },
      name: 'hogctl export: events to read',
    },
    { maxWaitMs, flag: '--max-wait' },
  );
  return Number((res.results[0] ?? [])[0] ?? 0);
}
