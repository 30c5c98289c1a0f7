// The end of an export, once every person is written: the export kind's verification (kind.ts).
// From what the engine journaled of each person (its counts and its files' SHA-256, hashed when
// the person was done), and what the events of distinct ids of no person came to (no-person.ts),
// it writes summary.html and manifest.json, then reads every file of the bundle back and compares
// it with the manifest: a file changed, cut or added since its person was written is named, and
// the export ends with exit 8. Then the state file goes (the bundle is finished) and, with --zip,
// the bundle becomes one archive and the directory goes.
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { NotRecordedError } from '../../../errors.js';
import { VERSION } from '../../../context.js';
import { listFiles, MANIFEST_FILE, sha256File, writeJson } from './bundle.js';
import { PARTS } from './collect.js';
import type { GivenIdentifiers } from './state.js';
import { statePath } from './state.js';
import { inBundle } from './safe-name.js';
import { summaryHtml, type SummaryInput, type SummaryNoPerson, type SummaryPerson, type SummaryProject } from './summary.js';
import { NO_PERSON_FILES, NOT_IN_BUNDLE, PERSON_FILES } from './contents.js';
import type { PersonSummary } from './write-person.js';
import type { BundleFile } from './write-events.js';
import type { NoPersonSummary } from './no-person.js';
import { writeZip } from './zip.js';
import { writeSecretFile } from '../../../config/secret-file.js';

export interface SealFacts {
  bundle: string;
  /** Where --zip puts the archive; null: the bundle stays a directory. */
  zip: string | null;
  host: string;
  profile: string | null;
  requestedBy: string | null;
  startedAt: string;
  finishedAt: string;
  until: string;
  from: string | null;
  identifiers: GivenIdentifiers;
  projects: { id: string; name: string | null; unreachable?: string }[];
  /** Every person written, in the order of the projects. */
  persons: PersonSummary[];
  /** The events of distinct ids of no person written, a project each (no-person.ts). */
  noPerson: NoPersonSummary[];
}

/** What the verification found, as the receipt keeps it. */
export interface SealVerification {
  status: 'verified' | 'mismatch';
  /** The directory, or the archive with --zip. */
  bundle: string;
  zip: string | null;
  /** Files of the bundle, the manifest included. */
  files: number;
  manifest_sha256: string;
  /** Files whose content is not what the manifest says. */
  mismatched: string[];
  /** Files in the bundle the manifest does not name. */
  unlisted: string[];
  /** Per project, the events of distinct ids of no person written (none: an empty list). */
  no_person: NoPersonWritten[];
}

/** The events of distinct ids of no person of one project, as the receipt keeps them. */
export interface NoPersonWritten {
  project: string;
  dir: string;
  events: number;
  event_queries: number;
  property_changes: number;
  files: number;
  unavailable?: string;
  short?: string;
}

/** The parts of a person as its manifest counts them: the rebuilt properties by their file's name. */
const countName = (part: string) => (part === 'properties' ? 'properties_from_set_events' : part);

/** A person as summary.html shows it: its stored properties and distinct ids, read from the
 * person.json the bundle holds, and what each part came to. */
function summaryPerson(bundle: string, person: PersonSummary): SummaryPerson {
  const record = join(bundle, person.dir, 'person.json');
  const stored = existsSync(record) ? (JSON.parse(readFileSync(record, 'utf8')) as { properties?: Record<string, unknown> }) : {};
  return {
    uuid: person.uuid,
    distinctIds: person.distinct_ids,
    properties: stored.properties ?? null,
    events: person.events.count,
    firstEvent: person.events.first,
    lastEvent: person.events.last,
    months: person.events.months,
    parts: [
      ...PARTS.filter((part) => person.parts[part.name]).map((part) => ({
        name: part.name === 'properties' ? 'properties rebuilt from $set events' : part.name,
        count: person.parts[part.name]?.count ?? null,
        missing: Boolean(person.parts[part.name]?.unavailable || person.parts[part.name]?.note),
        empty: person.parts[part.name]?.empty,
      })),
      { name: 'events', count: person.events.count, missing: Boolean(person.events.unavailable || person.events.short) },
      { name: 'property changes in the events', count: person.events.history_count, missing: Boolean(person.events.unavailable) },
    ],
  };
}

/** A person as manifest.json lists it. */
function manifestPerson(p: PersonSummary) {
  return {
    uuid: p.uuid,
    dir: p.dir,
    found_by: p.found_by,
    distinct_ids: p.distinct_ids,
    counts: {
      events: p.events.count,
      event_queries: p.events.queries,
      property_changes: p.events.history_count,
      ...Object.fromEntries(Object.entries(p.parts).map(([k, v]) => [countName(k), v.count])),
    },
    first_event: p.events.first,
    last_event: p.events.last,
    empty: Object.fromEntries(Object.entries(p.parts).flatMap(([k, v]) => (v.empty ? [[countName(k), v.empty]] : []))),
    not_exported: Object.fromEntries([
      ...Object.entries(p.parts)
        .filter(([, v]) => v.unavailable || v.note)
        .map(([k, v]) => [countName(k), v.unavailable ?? v.note]),
      ...(p.events.unavailable ? [['events', p.events.unavailable]] : []),
      ...(p.events.short ? [['events', `not all read: ${p.events.short}`]] : []),
    ]),
  };
}

/** The events of distinct ids of no person of a project, as manifest.json lists them. */
function manifestNoPerson(u: NoPersonSummary) {
  return {
    dir: u.dir,
    // The distinct ids as the events store them: the subject's data, whatever case it was asked in.
    distinct_ids: u.distinct_ids,
    distinct_ids_matched: 'the e-mail addresses asked for in any case of their ASCII letters, the other distinct ids exactly',
    counts: { events: u.events.count, event_queries: u.events.queries, property_changes: u.events.history_count },
    first_event: u.events.first,
    last_event: u.events.last,
    not_exported: {
      ...(u.events.unavailable ? { events: u.events.unavailable } : {}),
      ...(u.events.short ? { events: `not all read: ${u.events.short}` } : {}),
    },
  };
}

/** The earliest and latest of some timestamps (ISO strings sort as times). */
function span(times: (string | null)[]): { first: string | null; last: string | null } {
  const sorted = times.filter((x): x is string => x !== null).sort();
  return { first: sorted[0] ?? null, last: sorted[sorted.length - 1] ?? null };
}

/** Writes summary.html and manifest.json, reads the bundle back against the manifest, and zips it. */
export async function sealBundle(f: SealFacts): Promise<SealVerification> {
  const { bundle } = f;
  const summaryFile = 'summary.html';
  writeSecretFile(inBundle(bundle, summaryFile), summaryHtml(summaryInput(f)));
  const files: BundleFile[] = [
    ...f.persons.flatMap((p) => p.files),
    ...f.noPerson.flatMap((u) => u.files),
    { path: summaryFile, bytes: statSync(join(bundle, summaryFile)).size, sha256: await sha256File(join(bundle, summaryFile)) },
  ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  writeJson(inBundle(bundle, MANIFEST_FILE), manifestOf(f, files));

  // Read back: every file the manifest names, as it names it; nothing else in the bundle.
  const mismatched: string[] = [];
  for (const file of files) {
    const path = join(bundle, file.path);
    if (!existsSync(path) || statSync(path).size !== file.bytes || (await sha256File(path)) !== file.sha256) mismatched.push(file.path);
  }
  const named = new Set(files.map((x) => x.path));
  const unlisted = listFiles(bundle).filter((p) => !named.has(p));
  const manifestSha256 = await sha256File(join(bundle, MANIFEST_FILE));
  rmSync(statePath(bundle), { force: true });
  const zip = f.zip ? await zipBundle(bundle, files, f.zip) : null;
  return {
    status: mismatched.length || unlisted.length ? 'mismatch' : 'verified',
    bundle: zip ?? bundle,
    zip,
    files: files.length + 1,
    manifest_sha256: manifestSha256,
    mismatched,
    unlisted,
    no_person: f.noPerson.map((u) => ({
      project: u.project,
      dir: u.dir,
      events: u.events.count,
      event_queries: u.events.queries,
      property_changes: u.events.history_count,
      files: u.files.length,
      ...(u.events.unavailable ? { unavailable: u.events.unavailable } : {}),
      ...(u.events.short ? { short: u.events.short } : {}),
    })),
  };
}

/** What summary.html shows: per project, its persons and the events of distinct ids of no person. */
function summaryInput(f: SealFacts): SummaryInput {
  const projects: SummaryProject[] = f.projects.map((p) => ({
    id: p.id,
    name: p.name,
    unreachable: p.unreachable,
    persons: [],
    noPerson: summaryNoPerson(f.noPerson.find((u) => u.project === p.id)),
  }));
  for (const person of f.persons) projects.find((p) => p.id === person.project)?.persons.push(summaryPerson(f.bundle, person));
  const identifiers = [...f.identifiers.emails, ...f.identifiers.distinct_ids, ...f.identifiers.persons];
  return { host: f.host, requestedBy: f.requestedBy, createdAt: f.finishedAt, until: f.until, identifiers, projects };
}

function summaryNoPerson(u: NoPersonSummary | undefined): SummaryNoPerson | undefined {
  if (!u) return undefined;
  const e = u.events;
  return {
    distinctIds: u.distinct_ids,
    events: e.count,
    firstEvent: e.first,
    lastEvent: e.last,
    months: e.months,
    missing: Boolean(e.unavailable || e.short),
  };
}

/** manifest.json: who asked, where from, the time range, every person and every file. */
function manifestOf(f: SealFacts, files: BundleFile[]) {
  const units = [...f.persons, ...f.noPerson];
  const events = units.reduce((k, p) => k + p.events.count, 0);
  const queries = units.reduce((k, p) => k + p.events.queries, 0);
  const { first } = span(units.map((p) => p.events.first));
  const { last } = span(units.map((p) => p.events.last));
  return {
    manifest_format: 1,
    kind: 'subject-access-export',
    hogctl_version: VERSION,
    requested_by: f.requestedBy,
    profile: f.profile,
    host: f.host,
    started_at: f.startedAt,
    finished_at: f.finishedAt,
    identifiers_as_given: f.identifiers,
    time_range: { from: f.from, until: f.until, first_event: first, last_event: last },
    person_files: PERSON_FILES,
    distinct_ids_of_no_person_files: NO_PERSON_FILES,
    not_in_bundle: NOT_IN_BUNDLE,
    projects: f.projects.map((project) => {
      const unit = f.noPerson.find((u) => u.project === project.id);
      return {
        ...project,
        persons: f.persons.filter((p) => p.project === project.id).map(manifestPerson),
        distinct_ids_of_no_person: unit ? manifestNoPerson(unit) : null,
      };
    }),
    counts: {
      persons: f.persons.length,
      events,
      events_of_distinct_ids_of_no_person: f.noPerson.reduce((k, u) => k + u.events.count, 0),
      queries,
      files: files.length,
    },
    files,
  };
}

/** With --zip: the bundle as one archive, and the directory it was made from gone. */
async function zipBundle(bundle: string, files: BundleFile[], archive: string): Promise<string> {
  await writeZip(bundle, [...files.map((x) => x.path), MANIFEST_FILE].sort(), archive, basename(bundle)).catch((err: unknown) => {
    // The bundle is whole and its state file gone: "run it again" would find it finished.
    throw new NotRecordedError(
      `${(err as Error).message}; no archive was made, and the bundle is in ${bundle}, with its manifest`,
      `free some space, then archive that directory yourself (\`cd ${dirname(bundle)} && zip -r ${resolve(archive)} ${basename(bundle)}\`), or hand it over as it is`,
    );
  });
  // The archive is the bundle now: the directory it was made from goes.
  rmSync(bundle, { recursive: true, force: true });
  return archive;
}
