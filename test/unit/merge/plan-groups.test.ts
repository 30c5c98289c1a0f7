// The merge plan: which person is kept under each --keep rule, what PostHog's mergePeople makes
// of the properties when several persons are merged one after another, and the persons left out
// for a distinct id PostHog refuses to merge (person-merge-service.ts isDistinctIdIllegal).
import { describe, expect, it } from 'vitest';
import type { Candidate } from '../../../src/merge/find-duplicates.js';
import { DEFAULT_KEEP, chooseKeeper, expectedProperties, planGroups } from '../../../src/merge/plan-groups.js';

const person = (uuid: string, o: Partial<Candidate> = {}): Candidate => ({
  uuid,
  distinct_ids: [`d-${uuid}`],
  created_at: '2025-01-01T00:00:00Z',
  last_seen: null,
  event_count: 0,
  is_identified: false,
  properties: {},
  ...o,
});

const old = person('00000000-0000-4000-8000-000000000001', { created_at: '2024-01-01T00:00:00Z', event_count: 2 });
const busy = person('00000000-0000-4000-8000-000000000002', { created_at: '2024-06-01T00:00:00Z', event_count: 90 });
const known = person('00000000-0000-4000-8000-000000000003', { created_at: '2025-03-01T00:00:00Z', event_count: 5, is_identified: true });

describe('chooseKeeper', () => {
  it('keeps the oldest, the newest, the one with most events, or an identified one', () => {
    expect(chooseKeeper([busy, known, old], 'oldest')).toBe(old);
    expect(chooseKeeper([busy, known, old], 'newest')).toBe(known);
    expect(chooseKeeper([busy, known, old], 'most-events')).toBe(busy);
    expect(chooseKeeper([busy, known, old], 'identified')).toBe(known);
    // Ties go to the oldest.
    expect(chooseKeeper([person('b', { created_at: '2025' }), person('a', { created_at: '2024' })], 'most-events').uuid).toBe('a');
  });
});

describe('the default --keep', () => {
  it('keeps what a reviewer would: the identified person over an older anonymous one with more events', () => {
    const device = person('00000000-0000-4000-8000-0000000000d1', { created_at: '2024-01-01T00:00:00Z', event_count: 40 });
    const signedIn = person('00000000-0000-4000-8000-0000000000d2', {
      created_at: '2025-01-01T00:00:00Z',
      event_count: 3,
      is_identified: true,
    });
    expect(DEFAULT_KEEP).toBe('identified');
    expect(chooseKeeper([device, signedIn], DEFAULT_KEEP)).toBe(signedIn);
    // Both identified: the most events; as many: the oldest.
    expect(chooseKeeper([known, { ...busy, is_identified: true }], DEFAULT_KEEP).uuid).toBe(busy.uuid);
    expect(chooseKeeper([{ ...old, event_count: 5, is_identified: true }, known], DEFAULT_KEEP).uuid).toBe(old.uuid);
  });
});

describe('expectedProperties', () => {
  it("is {...later merged, ...earlier merged, ...kept}: the kept person's values win, then the first merged", () => {
    const kept = person('k', { properties: { plan: 'team', email: 'a@x' } });
    const first = person('1', { properties: { plan: 'free', phone: '1', city: 'Rome' } });
    const second = person('2', { properties: { phone: '2', country: 'IT' } });
    expect(expectedProperties(kept, [first, second])).toEqual({ plan: 'team', email: 'a@x', phone: '1', city: 'Rome', country: 'IT' });
  });
});

describe('planGroups', () => {
  it('leaves out a person holding an illegal distinct id, and a group left with one person', () => {
    const junk = person('00000000-0000-4000-8000-00000000000f', { distinct_ids: ['null', 'x'] });
    const { planned, leftOut } = planGroups(
      [
        { project_id: '1', persons: [old, busy, junk] },
        { project_id: '1', persons: [known, person('00000000-0000-4000-8000-0000000000ee', { distinct_ids: ['undefined'] })] },
      ],
      'oldest',
    );
    expect(planned).toHaveLength(1);
    expect(planned[0].keep).toBe(old);
    expect(planned[0].merge).toEqual([busy]);
    expect(leftOut.map((l) => l.uuid).sort()).toEqual([junk.uuid, known.uuid, '00000000-0000-4000-8000-0000000000ee'].sort());
    expect(leftOut.find((l) => l.uuid === junk.uuid)!.reason).toContain('"null"');
  });

  it('leaves out a group whose key is a placeholder: a groups file can come from anywhere', () => {
    const { planned, leftOut } = planGroups([{ project_id: '1', persons: [old, busy], key: { email: 'N/A' } }], 'oldest');
    expect(planned).toEqual([]);
    expect(leftOut.map((l) => l.reason)).toEqual([
      `its group shares email="N/A", a placeholder or test value, not one person's`,
      `its group shares email="N/A", a placeholder or test value, not one person's`,
    ]);
  });

  it('keeps the person a reviewed plan names', () => {
    const { planned } = planGroups([{ project_id: '2', persons: [old, busy], keep: busy.uuid }], 'oldest');
    expect(planned[0].keep).toBe(busy);
  });
});
