// The UUID PostHog gives the person it creates for a distinct id, and the person a split moves that
// id to. Apart from uuid.ts, which `persons get` loads: this needs node:crypto.
import { createHash } from 'node:crypto';

/** nodejs/src/worker/ingestion/person-uuid.ts PERSON_UUIDV5_NAMESPACE. */
const PERSON_UUIDV5_NAMESPACE = Buffer.from('932979b465c3442484670b66ec27bc22', 'hex');

/**
 * A UUIDv5 of `team_id:distinct_id` (nodejs/src/worker/ingestion/person-uuid.ts
 * `uuidFromDistinctId()`; the split: docs/server-contract.md §14.7). A project's id is its
 * first environment's team id, the one its persons live in.
 */
export function personUuidOf(teamId: string, distinctId: string): string {
  const hash = createHash('sha1').update(PERSON_UUIDV5_NAMESPACE).update(`${teamId}:${distinctId}`, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const h = hash.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
