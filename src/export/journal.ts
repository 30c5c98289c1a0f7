// The journal of an export, kept in the bundle while it is being written (export-journal.json):
// what was asked, the persons found (so --resume asks nothing again and exports the same
// persons), which parts of each person are written, and where each person's events stand (the
// keyset cursor, and the length of the events file when that page was written). It holds no key,
// and is removed when the manifest is written: a bundle with a journal is unfinished.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import type { EventCursor } from '../hogql/events.js';
import { JOURNAL_FILE, writeJson } from './bundle.js';

export interface PartState {
  /** Items written (null: a record, not a list). */
  count: number | null;
  /** Why the server would not give it (a missing scope, an endpoint refused to keys). */
  unavailable?: string;
  /** Not read, for a reason of PostHog's API rather than of the key (said in the summary). */
  note?: string;
}

export interface EventsState {
  /** The last event written; absent before the first page. */
  cursor?: EventCursor;
  /** Length of events.ndjson.gz after the last page written. */
  bytes: number;
  /** Length of properties-history.ndjson.gz after the last page written. */
  historyBytes: number;
  count: number;
  historyCount: number;
  queries: number;
  first: string | null;
  last: string | null;
  months: Record<string, number>;
  /** The events the plan counted, for the progress line. */
  estimate?: number;
  done: boolean;
  unavailable?: string;
}

export interface ExportPerson {
  project: string;
  uuid: string;
  /** Relative to the bundle: project-<id>/person-<uuid> */
  dir: string;
  distinctIds: string[];
  /** The identifiers, as given, that named this person. */
  foundBy: string[];
  parts: Record<string, PartState>;
  events: EventsState;
}

export interface ExportProject {
  id: string;
  name: string | null;
  unreachable?: string;
}

export interface ExportJournal {
  journal_format: 1;
  started_at: string;
  /** The fixed upper bound of the events: when the export began. */
  until: string;
  from: string | null;
  host: string;
  profile: string | null;
  requested_by: string | null;
  identifiers: { emails: string[]; distinct_ids: string[]; persons: string[] };
  recordings: boolean;
  zip: boolean;
  projects: ExportProject[];
  persons: ExportPerson[];
  queries: number;
  /** The project PostHog looks a person's cohorts up in: the user's current one. */
  current_team: string | null;
}

export function journalPath(dir: string): string {
  return join(dir, JOURNAL_FILE);
}

export function saveJournal(dir: string, journal: ExportJournal): void {
  writeJson(journalPath(dir), journal);
}

export function loadJournal(dir: string): ExportJournal {
  let text: string;
  try {
    text = readFileSync(journalPath(dir), 'utf8');
  } catch {
    throw new UsageError(
      `${dir} holds no unfinished export (no ${JOURNAL_FILE})`,
      'give --resume the --out of an export that stopped; a finished bundle has a manifest.json and nothing to continue',
    );
  }
  const journal = JSON.parse(text) as ExportJournal;
  if (journal.journal_format !== 1 || !Array.isArray(journal.persons)) {
    throw new UsageError(`${journalPath(dir)} is not a journal this hogctl can continue`, 'start a new export in a new directory');
  }
  return journal;
}
