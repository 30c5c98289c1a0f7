// The UUID PostHog gives a person made from a distinct id (ingestion, split): a UUIDv5 of
// `team_id:distinct_id` (nodejs/src/worker/ingestion/person-uuid.ts and
// posthog/models/person/missing_person.py, `uuidFromDistinctId()`), so the same distinct
// id always makes the same person.

import { createHash } from 'node:crypto';

const PERSON_UUIDV5_NAMESPACE = '932979b4-65c3-4424-8467-0b66ec27bc22';

/** A UUIDv5 of `team_id:distinct_id`, so a split-off or newly ingested person is findable. */
export function uuidFromDistinctId(teamId: number, distinctId: string): string {
  const namespace = Buffer.from(PERSON_UUIDV5_NAMESPACE.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(namespace).update(`${teamId}:${distinctId}`, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const h = hash.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
