// What an undo does with a group, from which person each of its distinct ids names now.
import { describe, expect, it } from 'vitest';
import { changedKeys, holdsOwnIds, judgeGroup } from '../../../../../src/bulk/kinds/undo/undo-check.js';
import type { ListedPerson } from '../../../../../src/api/persons.js';
import type { KeptPerson, RecordedGroup } from '../../../../../src/bulk/kinds/merge/merge-kind.js';

const K = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const C = '00000000-0000-4000-8000-00000000000c';
const kept = (uuid: string, ids: string[], properties: Record<string, unknown>): KeptPerson => ({
  uuid,
  distinct_ids: ids,
  properties,
  created_at: '2026-01-01T00:00:00Z',
  is_identified: true,
});
const group: RecordedGroup = {
  project_id: '1',
  keep: kept(K, ['k'], { plan: 'a', email: 'k@x' }),
  merge: [kept(B, ['b1', 'b2'], { plan: 'b', name: 'B' })],
};
const person = (uuid: string, ids: string[], properties: Record<string, unknown>): ListedPerson => ({
  id: uuid,
  uuid,
  distinct_ids: ids,
  properties,
  created_at: '',
});
const owners = (...persons: ListedPerson[]) => new Map(persons.flatMap((p) => p.distinct_ids.map((id) => [id, p] as const)));
/** As the merge left it: every id on K, the properties {...B, ...K}. */
const merged = (properties: Record<string, unknown> = { plan: 'a', email: 'k@x', name: 'B' }) => person(K, ['k', 'b1', 'b2'], properties);

describe('judgeGroup', () => {
  it('gives back a group as the merge left it, the kept person its own properties', () => {
    expect(judgeGroup(group, owners(merged()), 'refuse')).toMatchObject({ keep_target: { plan: 'a', email: 'k@x' }, changed: [] });
  });

  it('refuses a group whose kept person changed since, naming the keys, unless --changed keep or overwrite', () => {
    const now = owners(merged({ plan: 'enterprise', email: 'k@x', vip: true }));
    expect(judgeGroup(group, now, 'refuse')).toMatchObject({
      status: 'refused',
      reason: expect.stringContaining('name, plan, vip changed'),
    });
    expect(judgeGroup(group, now, 'keep')).toMatchObject({
      keep_target: { plan: 'enterprise', email: 'k@x', vip: true },
      changed: ['name', 'plan', 'vip'],
    });
    expect(judgeGroup(group, now, 'overwrite')).toMatchObject({ keep_target: { plan: 'a', email: 'k@x' } });
  });

  it('refuses a group whose ids name another person now, or none; fails one whose kept person is gone', () => {
    expect(judgeGroup(group, owners(person(C, ['c', 'k', 'b1', 'b2'], {})), 'overwrite')).toMatchObject({
      status: 'refused',
      reason: expect.stringContaining(`now names person ${C}`),
    });
    expect(judgeGroup(group, owners(person(K, ['k', 'b1'], {})), 'overwrite')).toMatchObject({
      reason: expect.stringContaining('"b2" names no person'),
    });
    expect(judgeGroup(group, owners(person(B, ['b1', 'b2'], {})), 'overwrite')).toMatchObject({ status: 'failed' });
  });

  it('knows a group already undone', () => {
    const undone = owners(person(K, ['k'], {}), person(B, ['b1', 'b2'], {}));
    expect(judgeGroup(group, undone, 'overwrite')).toMatchObject({ undone: true });
  });
});

describe('holdsOwnIds', () => {
  it('needs every id on one person, and no other id listed on it', () => {
    const b = group.merge[0];
    expect(holdsOwnIds(owners(person(B, ['b1', 'b2'], {})), b)).toBe(true);
    expect(holdsOwnIds(owners(person(B, ['b1', 'b2', 'x'], {})), b)).toBe(false);
    expect(holdsOwnIds(owners(person(B, ['b1'], {}), person(C, ['b2'], {})), b)).toBe(false);
  });
});

describe('changedKeys', () => {
  it('compares values, not key order, and a missing key differs', () => {
    expect(changedKeys({ a: { x: 1, y: 2 }, b: 1 }, { a: { y: 2, x: 1 }, b: 1 })).toEqual([]);
    expect(changedKeys({ a: 1 }, { a: 1, b: null })).toEqual(['b']);
  });
});
