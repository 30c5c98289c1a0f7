// Joining persons by shared values: through any key, never through a placeholder or a value that
// is not text, and a group kept only when its size after every join is within the limits.
import { describe, expect, it } from 'vitest';
import { joinPersons, type KeyedRow } from '../../../src/merge/join-persons.js';

const rules = { minGroup: 2, maxGroup: 100, ignored: new Set<string>() };
const row = (uuid: string, key: string, value: string, type?: KeyedRow['type']): KeyedRow => ({
  uuid,
  key,
  value,
  ...(type ? { type } : {}),
});

describe('joinPersons', () => {
  it('joins persons that share a value of any key into one group', () => {
    const joined = joinPersons(
      [row('a', 'email', 'x@y.io'), row('b', 'email', 'x@y.io'), row('b', 'user_id', '7'), row('c', 'user_id', '7')],
      rules,
    );
    expect(joined.groups).toEqual([{ uuids: ['a', 'b', 'c'], values: { email: ['x@y.io'], user_id: ['7'] } }]);
    expect(joined.leftOut).toEqual([]);
  });

  it('never joins through a placeholder or a value that is not text, and names each with its persons', () => {
    const joined = joinPersons(
      [
        row('a', 'email', 'null', 'string'),
        row('b', 'email', 'null', 'string'),
        row('c', 'email', '123', 'number'),
        row('d', 'email', '123', 'string'),
        row('e', 'email', '123', 'number'),
      ],
      rules,
    );
    expect(joined.groups).toEqual([]);
    expect(joined.leftOut).toEqual([
      {
        key: 'email',
        value: 'null',
        type: 'string',
        persons: 2,
        reason: "a placeholder, not one person's (PostHog refuses to merge on it)",
      },
      { key: 'email', value: '123', type: 'number', persons: 2, reason: 'a number, not text that names one person' },
    ]);
  });

  it('holds --max-group to the group once joined: two keys each shared by fewer make a group too large', () => {
    const rows: KeyedRow[] = [];
    for (let i = 0; i < 6; i++)
      rows.push(row(`p${i}`, 'email', `e${Math.floor(i / 2)}@x.io`), row(`p${i}`, 'country', i < 3 ? 'IT' : 'FR'));
    // email pairs {0,1} {2,3} {4,5}; IT {0,1,2}, FR {3,4,5}: one group of six.
    const joined = joinPersons(rows, { ...rules, maxGroup: 4 });
    expect(joined.groups).toEqual([]);
    expect(joined.tooLarge).toHaveLength(1);
    expect(joined.tooLarge[0].uuids).toHaveLength(6);
    expect(joined.tooLarge[0].values).toEqual({ email: ['e0@x.io', 'e1@x.io', 'e2@x.io'], country: ['FR', 'IT'] });
    expect(joinPersons(rows, { ...rules, maxGroup: 6 }).groups).toHaveLength(1);
  });
});
