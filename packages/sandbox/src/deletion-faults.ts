// Persons whose deletion fails on the server, for tests (docs/server-contract.md §6.5, §6.6). In
// PostHog each person is tombstoned and deleted on its own, and one that raises is left in place
// and reported, not deleted: bulk_delete lists it in `deletion_errors` as `{"person_uuid": ...}`
// in its 202 (PostHog/posthog posthog/api/person.py, PersonViewSet._bulk_delete_persons;
// posthog/models/person/bulk_delete.py, _tombstone_and_delete_persons), which means "not
// deleted, retry it" (PostHog/posthog#103144), and the single DELETE answers 503
// `person_deletion_failed`. A test names the persons and how many attempts fail before one works.

export class DeletionFaults {
  /** Person UUID → attempts that still fail. */
  private readonly left = new Map<string, number>();

  /** The next `times` attempts at deleting each of these persons fail. */
  fail(uuids: Iterable<string>, times = 1): void {
    for (const uuid of uuids) {
      if (times > 0) this.left.set(uuid.toLowerCase(), times);
      else this.left.delete(uuid.toLowerCase());
    }
  }

  /** Whether this attempt at deleting the person fails; an attempt that fails is counted. */
  failsNow(uuid: string): boolean {
    if (this.left.size === 0) return false;
    const key = uuid.toLowerCase();
    const times = this.left.get(key);
    if (!times) return false;
    if (times === 1) this.left.delete(key);
    else this.left.set(key, times - 1);
    return true;
  }
}
