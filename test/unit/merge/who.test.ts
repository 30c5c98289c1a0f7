// Who a candidate is: the e-mail address and name PostHog's persons list shows
// (PERSON_DEFAULT_DISPLAY_NAME_PROPERTIES), quoted so that spaces show, and, when read, whether
// identified, events, created and last seen.
import { describe, expect, it } from 'vitest';
import type { Candidate } from '../../../src/merge/find-duplicates.js';
import { cell, emailOf, nameOf, whoIs } from '../../../src/merge/who.js';

const person = (o: Partial<Candidate>): Candidate => ({
  uuid: 'u',
  distinct_ids: ['d'],
  created_at: '2025-01-02T03:04:05.000000Z',
  last_seen: null,
  event_count: 1,
  is_identified: false,
  properties: {},
  ...o,
});

describe('who.ts', () => {
  it("takes PostHog's display properties in its order: e-mail ones for the address, then name and username", () => {
    expect(emailOf(person({ properties: { Email: 'A@x.io', $email: 'b@x.io' } }))).toBe('A@x.io');
    expect(nameOf(person({ properties: { username: 'ana1', Name: 'Ana' } }))).toBe('Ana');
    expect(nameOf(person({ properties: { username: 'ana1', name: '' } }))).toBe('ana1');
    expect(nameOf(person({ properties: {} }))).toBeUndefined();
    expect([cell('a b'), cell(3), cell(undefined)]).toEqual(['a b', '3', '']);
  });

  it('says who a person is on one line; a person from the journal (nothing read) by address and name alone', () => {
    expect(
      whoIs(person({ properties: { email: ' a@x.io' }, event_count: 12, is_identified: true, last_seen: '2025-03-01T10:00:00Z' })),
    ).toBe('email " a@x.io", name (none), identified, 12 events, created 2025-01-02 03:04, last seen 2025-03-01 10:00');
    expect(whoIs(person({ created_at: '', properties: { name: 'Ana' } }))).toBe('email (none), name "Ana"');
  });
});
