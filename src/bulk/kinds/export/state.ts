// The export's own state, kept in the bundle while it is being written (export-state.json): the
// engine's journal (src/bulk/engine/journal-write.ts) records which persons are done and what each one came
// to; this file records what the engine cannot, where a person stands inside its attempt: which
// parts are written, and where its events stand (the keyset cursor, and the length of the events
// file when that page was written), so that a crash mid-person goes on from the last page rather
// than from the first; and the same of the events of distinct ids of no person, project by
// project, which the engine's journal does not hold (its units are persons). It also names the
// journal, for `--resume --out <dir>`. It holds no key, and is removed when the manifest is
// written: a bundle with it is unfinished.
import { readFileSync } from 'node:fs';
import { inBundle } from './safe-name.js';
import { UsageError } from '../../../errors.js';
import type { EventCursor } from '../../../hogql/events.js';
import { STATE_FILE, writeJson } from './bundle.js';

export interface PartState {
  /** Items written (null: a record, not a list). */
  count: number | null;
  /** Why the server would not give it (a missing scope, an endpoint refused to keys). */
  unavailable?: string;
  /** Not read, for a reason of PostHog's API rather than of the key (said in the summary). */
  note?: string;
  /** Read, and empty for a reason its reader would not guess (said in the manifest and summary). */
  empty?: string;
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
  /** The events the plan counted, for the progress line, and to know a walk that ended early. */
  estimate?: number;
  done: boolean;
  /** Fewer events were read than the plan counted: what the bundle says about it. */
  short?: string;
  unavailable?: string;
}

/** Whose events one keyset walk writes into one directory: a person's, or those of the
 * identifiers given that are distinct ids of no person found in a project (write-events.ts). */
export interface EventsUnit {
  project: string;
  /** Relative to the bundle: project-<id>/person-<uuid>, or project-<id>/distinct-ids-of-no-person */
  dir: string;
  distinctIds: string[];
  events: EventsState;
}

export interface ExportPerson extends EventsUnit {
  uuid: string;
  /** The identifiers, as given, that named this person. */
  foundBy: string[];
  parts: Record<string, PartState>;
}

/** The identifiers as given on the command line. */
export interface GivenIdentifiers {
  emails: string[];
  distinct_ids: string[];
  persons: string[];
}

export interface ExportState {
  state_format: 1;
  /** The engine's journal of this export. */
  journal: string;
  identifiers: GivenIdentifiers;
  /** Persons begun, by `<project>/<uuid>`: what is written of each. */
  persons: Record<string, ExportPerson>;
  /** By project: the events of the identifiers given that are distinct ids of no person found
   * (personless traffic, an address used only as a distinct id), counted by the plan and written
   * after the persons (no-person.ts). Absent: none had events. */
  no_person?: Record<string, EventsUnit>;
}

export function statePath(dir: string): string {
  return inBundle(dir, STATE_FILE);
}

export function saveState(dir: string, state: ExportState): void {
  writeJson(statePath(dir), state);
}

export function loadState(dir: string): ExportState {
  let text: string;
  try {
    text = readFileSync(statePath(dir), 'utf8');
  } catch {
    throw new UsageError(
      `${dir} holds no unfinished export (no ${STATE_FILE})`,
      'give --resume the --out of an export that stopped; a finished bundle has a manifest.json and nothing to continue',
    );
  }
  const state = JSON.parse(text) as ExportState;
  if (state.state_format !== 1 || typeof state.persons !== 'object' || typeof state.journal !== 'string') {
    throw new UsageError(`${statePath(dir)} is not an export this hogctl can continue`, 'start a new export in a new directory');
  }
  return state;
}
