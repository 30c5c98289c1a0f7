// Deleting one person, or their events or recordings, the way PostHog wants it today: POST
// `/persons/bulk_delete/` with `ids: [<uuid>]` and the flags (docs/server-contract.md §6.5). PostHog hid and
// deprecated `DELETE /persons/{id}/`, `/delete_events/` and `/delete_recordings/` in favour of
// it, and the newest servers answer a single DELETE that removes nothing with a 5xx. The old
// endpoints are used only by a server without bulk_delete (404 or 405 there).
import type { ApiClient } from '../http/client.js';
import { UnavailableError } from '../errors.js';
import { bulkDeleteSummaryOf, type BulkDeleteSummary } from './bulk-delete.js';
import { deleteEvents, deletePerson, deleteRecordings, personNotFound, type DeleteFlags } from './person-actions.js';
import { getPerson, personsPath } from './persons.js';
import { isUuid } from './uuid.js';

/** Tries of a deletion the server answers with the person in deletion_errors. */
const DELETION_ERROR_TRIES = 3;

/**
 * What goes: the person (with the flags), or only their events, or only their recordings. It
 * also names the old endpoint a server without bulk_delete is sent instead: `DELETE
 * /persons/{id}/` with the flags, `/delete_events/` or `/delete_recordings/`.
 */
export type OneDeletion = { what: 'person'; flags: DeleteFlags } | { what: 'events' } | { what: 'recordings' };

/** The person to delete: the id as the user gave it, and its UUID when a read already found it. */
export interface OneDeleteTarget {
  id: string;
  uuid?: string;
}

export type OneDeleteResult =
  /** bulk_delete answered. `summary` is null for an older server's empty body, which does not
   * say whether the person was found. */
  | { via: 'bulk_delete'; status: number; uuid: string; summary: BulkDeleteSummary | null; goneEarlier: boolean }
  /** No bulk_delete on this server: the old endpoint answered this. */
  | { via: 'legacy'; status: number; goneEarlier: boolean };

function flagsOf(deletion: OneDeletion): DeleteFlags {
  if (deletion.what === 'person') return deletion.flags;
  return { deleteEvents: deletion.what === 'events', deleteRecordings: deletion.what === 'recordings', keepPerson: true };
}

/** The old endpoint of `deletion`, for a server from before bulk_delete. */
async function deleteTheOldWay(client: ApiClient, projectId: string, id: string, deletion: OneDeletion): Promise<OneDeleteResult> {
  if (deletion.what === 'person') return { via: 'legacy', ...(await deletePerson(client, projectId, id, deletion.flags)) };
  const status = deletion.what === 'events' ? await deleteEvents(client, projectId, id) : await deleteRecordings(client, projectId, id);
  return { via: 'legacy', status, goneEarlier: false };
}

export async function deleteOnePerson(
  client: ApiClient,
  projectId: string,
  target: OneDeleteTarget,
  deletion: OneDeletion,
): Promise<OneDeleteResult> {
  const { id } = target;
  // bulk_delete matches UUIDs only (an integer id matches nothing): read it, unless known.
  const uuid = target.uuid ?? (isUuid(id) ? id.toLowerCase() : (await getPerson(client, projectId, id)).uuid);
  const flags = flagsOf(deletion);
  const body = { ids: [uuid], delete_events: flags.deleteEvents, delete_recordings: flags.deleteRecordings, keep_person: flags.keepPerson };
  let res: Awaited<ReturnType<typeof client.post<unknown>>>;
  let summary: BulkDeleteSummary | null;
  let errors: Record<string, unknown>[] = [];
  // A person in deletion_errors was found and not deleted, and the server asks for it to be sent
  // again (PostHog/posthog#103144): a few tries before giving up.
  for (let tries = 1; ; tries++) {
    res = await client.post<unknown>(personsPath(projectId, 'bulk_delete/'), body, {
      // Sending it again is harmless: a person already deleted is simply not found.
      idempotent: true,
      acceptStatus: (s) => s === 404 || s === 405,
    });
    if (res.status === 404 || res.status === 405) {
      if ((res.body as { detail?: unknown } | null)?.detail === 'Project not found.') throw personNotFound(projectId, id, res.body);
      return deleteTheOldWay(client, projectId, id, deletion);
    }
    summary = bulkDeleteSummaryOf(res);
    errors = summary?.deletion_errors ?? [];
    if (errors.length === 0) break;
    if (tries === DELETION_ERROR_TRIES) {
      const what = errors
        .map((e) => [e.step, e.error].filter((x) => typeof x === 'string').join(': '))
        .filter(Boolean)
        .join('; ');
      const error = new UnavailableError(
        `the server found person ${id} but could not delete it, ${tries} times${what ? ` (${what})` : ''}; it asks for the deletion to be sent again`,
        'run the command again later',
      );
      error.notDone = true;
      throw error;
    }
  }
  if (summary?.persons_found === 0) {
    // An attempt whose answer was lost (a 502/504, a dropped connection) and a retry that finds
    // nobody: that attempt most likely did it.
    if ((res.unclearAttempts ?? 0) > 0) return { via: 'bulk_delete', status: res.status, uuid, summary, goneEarlier: true };
    throw personNotFound(projectId, id, null);
  }
  return { via: 'bulk_delete', status: res.status, uuid, summary, goneEarlier: false };
}
