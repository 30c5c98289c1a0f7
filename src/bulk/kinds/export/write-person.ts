// One person of an export, written into the bundle: the export kind's attempt at one chunk
// (kind.ts). The parts (collect.ts) first, then the events (write-events.ts), page by page. After
// every part and every page the export's state (state.ts) records where the person stands, so
// that a crash, Ctrl-C or a query limit mid-person goes on from the last page written, never
// writing an event twice. When the person is done its files are hashed, and what it came to is
// the answer the engine journals.
import type { ApiClient } from '../../../http/client.js';
import { CancelledError } from '../../../errors.js';
import { makeDir } from './bundle.js';
import { inBundle } from './safe-name.js';
import { collectPart, PARTS, type CollectContext } from './collect.js';
import { saveState, type ExportPerson, type PartState } from './state.js';
import { eventsSummaryOf, filesOf, writeEvents, type BundleFile, type EventsSummary, type EventsWriter } from './write-events.js';

/** What one person came to: the answer the engine journals, from which the summary, the
 * manifest and the receipt are made. It names the person's distinct ids, as the manifest does. */
export interface PersonSummary {
  project: string;
  uuid: string;
  dir: string;
  distinct_ids: string[];
  found_by: string[];
  parts: Record<string, PartState>;
  events: EventsSummary;
  /** The person's files, relative to the bundle, hashed once the person was done. */
  files: BundleFile[];
}

export interface PersonWriter extends EventsWriter {
  currentTeam: string | null;
  recordings: boolean;
  /** The signed-in session, for the parts PostHog refuses to keys; null if none. */
  sessionClient: ApiClient | null;
}

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
  const files: BundleFile[] = await filesOf(bundle, person.dir);
  return {
    project: person.project,
    uuid: person.uuid,
    dir: person.dir,
    distinct_ids: person.distinctIds,
    found_by: person.foundBy,
    parts: person.parts,
    events: eventsSummaryOf(person.events),
    files,
  };
}
