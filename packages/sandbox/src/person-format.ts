// How persons are rendered. The list and the retrieve endpoints serialise differently on the
// real server (docs/server-contract.md §6.1, §6.3): list items come from get_serialized_people with the
// UUID as `id`, retrieve uses PersonSerializer with the integer `id` and `last_seen_at`.

import type { Person } from './store.js';

/** posthog.utils.is_anonymous_id */
export function isAnonymousId(distinctId: string): boolean {
  return /^([a-z0-9]+-){4}([a-z0-9]+)$/.test(distinctId);
}

/** Non-anonymous ids first, otherwise stable (Python's sorted with key=is_anonymous_id). */
export function sortDistinctIds(ids: string[]): string[] {
  return [...ids.filter((id) => !isAnonymousId(id)), ...ids.filter(isAnonymousId)];
}

const DISPLAY_NAME_PROPERTIES = ['email', 'name', 'username'];

/** get_person_name_helper: first non-empty display property, else the first distinct id after
 * sorting non-anonymous first (an anonymous one if that is all there is), else str(pk). */
export function personName(person: Person): string {
  for (const key of DISPLAY_NAME_PROPERTIES) {
    const value = person.properties[key];
    if (value !== undefined && value !== null && value !== '' && value !== false && value !== 0) return String(value);
  }
  if (person.distinctIds.length > 0) return sortDistinctIds(person.distinctIds)[0];
  return String(person.id);
}

export function serializeListItem(person: Person) {
  return {
    type: 'person',
    id: person.uuid,
    uuid: person.uuid,
    created_at: person.createdAt,
    properties: person.properties,
    is_identified: person.isIdentified,
    name: personName(person),
    distinct_ids: sortDistinctIds(person.distinctIds).slice(0, 1000),
    matched_recordings: [],
    value_at_data_point: null,
  };
}

export function serializeRecord(person: Person) {
  return {
    id: person.id,
    name: personName(person),
    distinct_ids: sortDistinctIds(person.distinctIds),
    properties: person.properties,
    created_at: person.createdAt,
    uuid: person.uuid,
    last_seen_at: person.lastSeenAt,
  };
}
