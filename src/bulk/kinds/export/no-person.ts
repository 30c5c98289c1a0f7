// The events of a subject who is, in a project, no person: those whose distinct_id is one of the
// addresses (in any case of its letters, as an erasure's sweep selects them) or distinct ids given
// and is held by none of the persons found there (personless traffic sent with
// `$process_person_profile: false`, an address used only as a distinct id). PostHog makes no
// person for them (docs/server-contract.md §14.4), and a person's events are read by its own
// distinct ids (docs/server-contract.md §15.1), so no person's files reach them; a subject-access
// export hands them over all the same, into `project-<id>/distinct-ids-of-no-person/`. Each
// project's are one unit of the export, kept in the export's state file (state.ts: the engine's
// journal holds persons), counted by the plan and written after the persons, before the bundle is
// sealed, by the same keyset walk as a person's events (write-events.ts), so a stop mid-walk goes
// on from its last page and writes no event twice.
import type { Context } from '../../../context.js';
import type { ApiClient } from '../../../http/client.js';
import { counted } from '../../../io/counts.js';
import { UsageError } from '../../../errors.js';
import { queryUnderLimit } from '../../../cli/wait-out-limit.js';
import { distinctIdsQuery, subjectQueries } from '../../../hogql/event-deletion.js';
import { makeDir } from './bundle.js';
import { refusal } from './collect.js';
import { inBundle, noPersonDir } from './safe-name.js';
import type { EventsUnit, ExportState, GivenIdentifiers } from './state.js';
import {
  countEvents,
  eventsSummaryOf,
  filesOf,
  noEventsYet,
  writeEvents,
  type BundleFile,
  type EventsSummary,
  type EventsWriter,
} from './write-events.js';

/** What a project's unit came to, as the manifest, the summary page and the receipt keep it. It
 * names the distinct ids the events were read by, as the manifest names a person's. */
export interface NoPersonSummary {
  project: string;
  dir: string;
  distinct_ids: string[];
  events: EventsSummary;
  files: BundleFile[];
}

/** How messages name a unit: by its project, never by its distinct ids. */
export const noPersonLabel = (project: string) => `project ${project}, distinct ids of no person`;

/** The units found for the plan, or why their events could not be counted. */
export interface NoPersonFound {
  units: EventsUnit[];
  uncounted?: string;
}

/**
 * Per project, the distinct ids the events carry that the addresses and distinct ids given name
 * (an address in any case of its letters, as an erasure's sweep selects them: distinctIdsCarried)
 * and that none of the persons found there holds (their full lists of distinct ids, compared
 * exactly, as events store them), and the events they carry in the export's range: a unit for each
 * project where there are any.
 */
export async function findNoPersonEvents(
  ctx: Context,
  client: ApiClient,
  s: {
    projects: string[];
    persons: { project: string; distinctIds: string[] }[];
    identifiers: GivenIdentifiers;
    bounds: { until: string; from: string | null };
    maxWaitMs: number;
    host: string;
  },
): Promise<NoPersonFound> {
  const units: EventsUnit[] = [];
  const given = [...new Set([...s.identifiers.emails, ...s.identifiers.distinct_ids])];
  if (!given.length) return { units };
  for (const project of s.projects) {
    const held = new Set(s.persons.filter((p) => p.project === project).flatMap((p) => p.distinctIds));
    // A distinct id a person holds is that person's, exactly; an address a person holds may still
    // be stored in another case of its letters, as no person's.
    const asked = given.filter((id) => id.includes('@') || !held.has(id));
    if (!asked.length) continue;
    const unit = { project, dir: noPersonDir(project, s.host), distinctIds: [] as string[], events: noEventsYet() };
    try {
      unit.distinctIds = (await distinctIdsCarried(ctx, client, project, asked, s)).filter((id) => !held.has(id));
      if (!unit.distinctIds.length) continue;
      unit.events.estimate = await countEvents(ctx, client, unit, s.bounds, s.maxWaitMs);
    } catch (err) {
      // A key that may not query: the persons' records are exported all the same.
      const why = refusal(err);
      if (why === undefined) throw err;
      return { units, uncounted: why };
    }
    if (unit.events.estimate > 0) units.push(unit);
  }
  return { units };
}

/**
 * The distinct ids, as the events store them, that carry events in the export's range and that the
 * identifiers given name: the erasure's sweep's queries (subjectQueries), so that an export finds
 * what an erasure of the same subject would delete (`Ghost@Example.NET` for ghost@example.net).
 * In the order of the identifiers that name them.
 */
async function distinctIdsCarried(
  ctx: Context,
  client: ApiClient,
  project: string,
  given: string[],
  s: { bounds: { until: string; from: string | null }; maxWaitMs: number },
): Promise<string[]> {
  const queries = subjectQueries(given, { until: s.bounds.until, ...(s.bounds.from ? { after: s.bounds.from } : {}) });
  if (!queries)
    throw new UsageError(
      'a distinct id given is too long for a query PostHog takes (100,000 bytes)',
      'check the identifiers: a distinct id is at most 200 characters',
    );
  const found = new Set<string>();
  for (const query of queries) {
    const res = await queryUnderLimit(
      ctx,
      client,
      project,
      { query: distinctIdsQuery(query), name: 'hogctl export: distinct ids of the subject' },
      { maxWaitMs: s.maxWaitMs, flag: '--max-wait' },
    );
    for (const [id] of res.results as unknown[][]) if (typeof id === 'string') found.add(id);
  }
  const rank = (id: string) => given.findIndex((g) => g === id || (g.includes('@') && asciiLower(g) === asciiLower(id)));
  return [...found].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** ClickHouse's lower(): ASCII letters only, as the sweep's queries compare addresses. */
const asciiLower = (text: string) => text.replace(/[A-Z]+/g, (m) => m.toLowerCase());

/** The plan's lines of the units: each project's events, by the identifiers that carry them. */
export function noPersonPlanLines(found: NoPersonFound): string[] {
  if (found.uncounted) return [`  no person events of the identifiers as distinct ids of no person cannot be counted: ${found.uncounted}`];
  return found.units.map(
    (u) =>
      `  no person project ${u.project}: ${counted(u.events.estimate ?? 0, 'event')} under distinct ids no person holds, among ${u.distinctIds.join(', ')}, into ${u.dir}/`,
  );
}

/** The units a bundle holds, in the order of the projects. */
export function noPersonUnits(state: ExportState, order: string[]): EventsUnit[] {
  return Object.values(state.no_person ?? {}).sort((a, b) => order.indexOf(a.project) - order.indexOf(b.project));
}

/** Writes (or goes on writing) every unit not done yet; returns what each came to. */
export async function writeNoPersonEvents(w: EventsWriter, units: EventsUnit[]): Promise<NoPersonSummary[]> {
  const out: NoPersonSummary[] = [];
  for (const unit of units) {
    makeDir(inBundle(w.bundle, unit.dir));
    if (!unit.events.done) await writeEvents(w, unit, noPersonLabel(unit.project));
    out.push({
      project: unit.project,
      dir: unit.dir,
      distinct_ids: unit.distinctIds,
      events: eventsSummaryOf(unit.events),
      files: await filesOf(w.bundle, unit.dir),
    });
  }
  return out;
}
