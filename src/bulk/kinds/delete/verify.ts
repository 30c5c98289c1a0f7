// After a run, the server is asked what it holds now, so that the receipt states the server's
// truth and not only its answers: every person the run deleted is checked gone (batch_by_uuids
// or batch_by_distinct_ids, 200 a request, within the read rate), and where the events were to be
// deleted too, that the server has their deletion queued (deletion_status, which PostHog's weekly
// batch marks completed). Newest servers may queue person deletions and answer before they are
// done; then a person may still exist for a while. `persons erasure-status` asks the same later.
import type { SweepRecord } from './sweep.js';
import type { Context } from '../../../context.js';
import { deletionStatus, type DeletionStatusEntry } from '../../../api/person-actions.js';
import { PERSON_BATCH_MAX } from '../../../api/persons.js';
import type { ApiClient } from '../../../http/client.js';
import type { PresenceCheck } from '../../engine/lost-answers.js';
import { formatNumber } from '../../../io/counts.js';

/** Ids listed in the receipt at most. */
const LIST_CAP = 10_000;
/** deletion_status rows a request. */
const STATUS_PAGE = 1000;
/** Persons asked about one by one when the newest rows did not hold them. */
const ONE_BY_ONE_CAP = 200;

export interface EventsVerification {
  /** queued: every person found has an event deletion (pending or completed); missing: some have
   * none; unavailable: the server could not say. */
  status: 'queued' | 'missing' | 'unavailable';
  pending: number;
  completed: number;
  /** Persons the server found (and so queued) with no event deletion to be seen. */
  missing: number;
}

export interface Verification {
  /** gone: none is left; still_present: some are; unavailable: the server could not say;
   * interrupted: Ctrl-C stopped it (`checked`: found gone until then; --resume goes on). */
  status: 'gone' | 'still_present' | 'unavailable' | 'interrupted';
  at: string;
  checked: number;
  /** Ids of requests the server answered with no person found: nothing to read back. */
  not_read_back?: number;
  still_present: number;
  still_present_ids: string[];
  /** With --delete-events: their deletion as the server has it queued. */
  events?: EventsVerification;
  /** With --sweep-events: the query deletions of the erased distinct ids' events. */
  sweep?: SweepRecord;
}

/** Which persons are gone: `ids` of one project. */
export interface GoneSettings {
  /** Ids of requests that found no one, not read back. */
  notFound?: number;
  /** Ids an interrupted verification already found gone, not read again. */
  alreadyGone?: number;
  /** Told the ids found gone, slice by slice, as the check goes (to journal them). */
  checkedGone?: (gone: string[]) => Promise<void>;
}

/** Ids checked between two journal lines of the verification: one read (batch_by_uuids takes 200). */
const SLICE = PERSON_BATCH_MAX;

export async function verifyGone(
  check: PresenceCheck,
  ids: string[],
  project: string,
  now: () => number,
  o: GoneSettings = {},
): Promise<Verification> {
  const skipped = o.notFound ? { not_read_back: o.notFound } : {};
  const left: string[] = [];
  for (let i = 0; i < ids.length; i += SLICE) {
    const slice = ids.slice(i, i + SLICE);
    const present = await check(slice, project);
    if (present === null)
      return { status: 'unavailable', at: new Date(now()).toISOString(), checked: 0, ...skipped, still_present: 0, still_present_ids: [] };
    left.push(...slice.filter((id) => present.has(id)));
    await o.checkedGone?.(slice.filter((id) => !present.has(id)));
  }
  return {
    status: left.length ? 'still_present' : 'gone',
    at: new Date(now()).toISOString(),
    checked: ids.length + (o.alreadyGone ?? 0),
    ...skipped,
    still_present: left.length,
    still_present_ids: left.slice(0, LIST_CAP),
  };
}

/**
 * The event deletions of these persons as deletion_status lists them: newest rows first, down to
 * those older than `since` (the run's start), then one request for each person not seen yet
 * (their deletion may have been queued earlier), up to a cap. Null when the server cannot say.
 */
export async function eventDeletions(
  ctx: Context,
  client: ApiClient,
  project: string,
  uuids: string[],
  since: number,
): Promise<Map<string, DeletionStatusEntry['status']> | null> {
  const wanted = new Set(uuids);
  const found = new Map<string, DeletionStatusEntry['status']>();
  try {
    pages: for await (const page of deletionStatus(
      client,
      project,
      { status: 'all' },
      { pageSize: STATUS_PAGE, signal: ctx.deps.signal },
    )) {
      for (const row of page) {
        const uuid = row.person_uuid?.toLowerCase();
        if (wanted.has(uuid) && !found.has(uuid)) found.set(uuid, row.status);
        if (found.size === wanted.size || Date.parse(row.created_at) < since) break pages;
      }
    }
    for (const uuid of uuids.filter((u) => !found.has(u)).slice(0, ONE_BY_ONE_CAP)) {
      for await (const page of deletionStatus(client, project, { personUuid: uuid }, { pageSize: 1, limit: 1, signal: ctx.deps.signal })) {
        if (page[0]) found.set(uuid, page[0].status);
      }
    }
  } catch (err) {
    if (ctx.deps.signal?.aborted) throw err;
    ctx.warn(`cannot read the queued event deletions of project ${project}: ${(err as Error).message}`);
    return null;
  }
  return found;
}

/** What deletion_status says of the event deletions of `found` persons (of `uuids` sent). */
export function eventsVerification(statuses: Map<string, DeletionStatusEntry['status']> | null, found: number): EventsVerification {
  if (statuses === null) return { status: 'unavailable', pending: 0, completed: 0, missing: 0 };
  let pending = 0;
  let completed = 0;
  for (const status of statuses.values()) {
    if (status === 'completed') completed++;
    else pending++;
  }
  const missing = Math.max(0, found - pending - completed);
  return { status: missing ? 'missing' : 'queued', pending, completed, missing };
}

/** Adds up the verifications of several projects. */
export function totalVerification(parts: Verification[]): Verification | undefined {
  if (parts.length === 0) return undefined;
  if (parts.length === 1) return parts[0];
  const sum = (pick: (v: Verification) => number) => parts.reduce((k, v) => k + pick(v), 0);
  const still = sum((v) => v.still_present);
  const events = parts.filter((v) => v.events).map((v) => v.events!);
  return {
    status: parts.some((v) => v.status === 'unavailable') ? 'unavailable' : still ? 'still_present' : 'gone',
    at: parts.map((v) => v.at).sort()[parts.length - 1],
    checked: sum((v) => v.checked),
    ...(sum((v) => v.not_read_back ?? 0) ? { not_read_back: sum((v) => v.not_read_back ?? 0) } : {}),
    still_present: still,
    still_present_ids: parts.flatMap((v) => v.still_present_ids).slice(0, LIST_CAP),
    ...(events.length
      ? {
          events: {
            status: events.some((e) => e.status === 'unavailable') ? 'unavailable' : events.some((e) => e.missing) ? 'missing' : 'queued',
            pending: events.reduce((k, e) => k + e.pending, 0),
            completed: events.reduce((k, e) => k + e.completed, 0),
            missing: events.reduce((k, e) => k + e.missing, 0),
          },
        }
      : {}),
  };
}

/** The closing words of a verification: "✔ verified: none of the 12 persons exists any more". */
export function describeVerification(v: Verification, what: string): string | undefined {
  if (v.status !== 'gone') return undefined;
  const events =
    v.events?.status === 'queued'
      ? `; the deletion of their events is queued (${formatNumber(v.events.pending)} pending, ${formatNumber(v.events.completed)} done)`
      : '';
  return `✔ verified: none of the ${formatNumber(v.checked)} ${what} exists any more${events}`;
}
