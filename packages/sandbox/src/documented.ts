// The person the documentation's examples name: `hogctl persons get 42`, `... get
// 01900000-aaaa-7bbb-8ccc-000000000001`, `... get --distinct-id user-881`, `... split 42
// --distinct-ids device-1,device-2`. Seeded into project 1, so that every example in --help and
// in the README runs verbatim against a fresh sandbox (test/e2e/examples.test.ts runs them).
// It is data only: the server behaves the same for this person as for any other.
import type { SandboxStore } from './store.js';

export const DOCUMENTED_PERSON = {
  id: 42,
  uuid: '01900000-aaaa-7bbb-8ccc-000000000001',
  distinctIds: ['user-881', 'device-1', 'device-2'],
} as const;

/** Makes person 42 (when seeded) the documented one; a store of fewer persons is left alone. */
export function seedDocumentedPerson(store: SandboxStore): void {
  const { id, uuid, distinctIds } = DOCUMENTED_PERSON;
  if (!store.getById(id)) return;
  store.giveUuid(id, uuid);
  for (const distinctId of distinctIds) store.moveDistinctId(distinctId, id);
}
