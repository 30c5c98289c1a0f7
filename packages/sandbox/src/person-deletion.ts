// What `PersonViewSet._bulk_delete_persons` does once the persons are resolved; shared by
// `DELETE /persons/{id}/` and `POST /persons/bulk_delete/`, which differ only in how they find
// the persons and read the flags (docs/server-contract.md §6.5, §6.6).

import type { Services } from './context.js';
import type { Person, SandboxStore } from './store.js';
import type { SandboxUser } from './world.js';

export interface DeletionFlags {
  deleteEvents: boolean;
  deleteRecordings: boolean;
  keepPerson: boolean;
}

export interface DeletionSummary {
  persons_found: number;
  persons_deleted: number;
  events_queued_for_deletion: boolean;
  recordings_queued_for_deletion: boolean;
  deletion_errors: { person_uuid: string }[];
}

/**
 * Deletes the profiles (unless keep_person): the person is tombstoned, its distinct ids are
 * blocked until reset_person_distinct_id, and a `deleted` activity entry is written. Then event
 * and recording deletions are queued for every person found, kept or not.
 */
export function deletePersons(
  app: Services,
  teamId: number,
  store: SandboxStore,
  persons: Person[],
  flags: DeletionFlags,
  actor: SandboxUser | null,
): DeletionSummary {
  let deleted = 0;
  const errors: { person_uuid: string }[] = [];
  if (!flags.keepPerson) {
    for (const person of persons) {
      // A person whose deletion raises stays, and is reported (deletion-faults.ts).
      if (!app.deletionFaults.failsNow(person.uuid) && store.delete(person)) {
        deleted++;
        // The tombstone of each distinct id (version + 100) is an override to the deleted person
        // (posthog/models/person/util.py, `_delete_ch_distinct_id`;
        // docs/server-contract.md §14.5): the weekly squash gives their events the deleted UUID.
        // keep_person writes none.
        for (const distinctId of person.distinctIds) app.events.get(teamId)?.override(distinctId, person.uuid);
        app.activity.log({ teamId, itemId: person.id, activity: 'deleted', user: actor, detail: { name: person.uuid } });
      } else {
        errors.push({ person_uuid: person.uuid });
      }
    }
  }
  for (const person of persons) {
    if (flags.deleteEvents) app.deletions.queueEvents(teamId, person.uuid, actor);
    if (flags.deleteRecordings) app.deletions.queueRecordings(teamId, person.uuid, person.distinctIds);
  }
  return {
    persons_found: persons.length,
    persons_deleted: deleted,
    events_queued_for_deletion: flags.deleteEvents && persons.length > 0,
    recordings_queued_for_deletion: flags.deleteRecordings && persons.length > 0,
    deletion_errors: errors,
  };
}
