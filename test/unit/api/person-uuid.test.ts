import { describe, expect, it } from 'vitest';
import { uuidFromDistinctId } from '@hogctl/sandbox';
import { personUuidOf } from '../../../src/api/person-uuid.js';

describe('personUuidOf', () => {
  it("is PostHog's UUIDv5 of team:distinct_id, as ingestion and split give it", () => {
    // posthog/models/person/missing_person.py uuidFromDistinctId(2, "anonymous-123"), computed with
    // Python's uuid.uuid5 and the namespace 932979b4-65c3-4424-8467-0b66ec27bc22.
    expect(personUuidOf('2', 'anonymous-123')).toBe('244599ca-cd69-506d-9507-346d61f8c66a');
    for (const id of ['user-1', 'ana@example.com', 'ünïcode', '']) expect(personUuidOf('7', id)).toBe(uuidFromDistinctId(7, id));
  });
});
