// The groups a merge reads: `persons duplicates` JSON or NDJSON, or a --plan-out plan; a mistake
// names where it is, and nothing is sent.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { PLAN_FORMAT, readGroups, refuseLargeGroups } from '../../../src/merge/read-groups.js';

const p = (n: number) => ({ uuid: `00000000-0000-4000-8000-00000000000${n}`, distinct_ids: [`d${n}`], properties: { n } });
const group = { project_id: '1', key: { email: 'a@x' }, persons: [p(1), p(2)] };
const other = { project_id: '1', key: { email: 'b@x' }, persons: [p(3), p(4)] };

describe('readGroups', () => {
  it('reads a JSON array, NDJSON and a plan', () => {
    expect(readGroups(JSON.stringify([group, other]), 'f').groups).toHaveLength(2);
    expect(readGroups(`${JSON.stringify(group)}\n\n${JSON.stringify(other)}\n`, 'f').groups).toHaveLength(2);
    const plan = readGroups(JSON.stringify({ format: PLAN_FORMAT, groups: [{ ...group, keep: p(2).uuid }] }), 'plan.json');
    expect(plan.fromPlan).toBe(true);
    expect(plan.groups[0].keep).toBe(p(2).uuid);
    expect(readGroups('', 'stdin').groups).toEqual([]);
  });

  it('names the line or group that is wrong', () => {
    const fails = (text: string) => {
      try {
        readGroups(text, 'groups.ndjson');
      } catch (err) {
        expect(err).toBeInstanceOf(UsageError);
        return (err as Error).message;
      }
      throw new Error('expected a UsageError');
    };
    expect(fails(`${JSON.stringify(group)}\n{oops\n`)).toBe('groups.ndjson line 2 is not JSON');
    expect(fails(JSON.stringify([group, { ...group, persons: [p(1)] }]))).toContain(
      'groups.ndjson group 2: a group needs "persons", two or more',
    );
    expect(fails(JSON.stringify([{ ...group, project_id: 'x' }]))).toContain('group 1: no project_id');
    expect(fails(JSON.stringify([{ ...group, persons: [p(1), { ...p(2), uuid: 'nope' }] }]))).toContain('person 2: no "uuid"');
    expect(fails(JSON.stringify({ format: PLAN_FORMAT, groups: [{ ...group, keep: 'someone' }] }))).toContain(
      '"keep" does not name one of its persons',
    );
    expect(fails('hello')).toContain('is not JSON');
  });

  it('refuses a person in two groups and a person listed twice, naming where', () => {
    const twoGroups = () => readGroups(`${JSON.stringify(group)}\n${JSON.stringify({ ...group, persons: [p(3), p(2)] })}\n`, 'g.ndjson');
    expect(twoGroups).toThrow(UsageError);
    expect(twoGroups).toThrow(
      `g.ndjson line 2 person 2 (${p(2).uuid}) is also g.ndjson line 1 person 2: a person can be in one group only`,
    );
    expect(() => readGroups(JSON.stringify([{ ...group, persons: [p(1), p(2), p(1)] }]), 'f')).toThrow(
      `f group 1: a person is listed twice (${p(1).uuid})`,
    );
    // The same UUID in two projects is two persons.
    expect(readGroups(JSON.stringify([group, { ...group, project_id: '2' }]), 'f').groups).toHaveLength(2);
  });

  it('keeps where each group was and the text values of its key', () => {
    const [g] = readGroups(JSON.stringify([{ ...group, key: { email: 'a@x', n: 3 } }]), 'f').groups;
    expect(g.where).toBe('f group 1');
    expect(g.key).toEqual({ email: 'a@x' });
  });
});

describe('refuseLargeGroups', () => {
  it('refuses a group of more persons than --max-group, naming it', () => {
    const { groups } = readGroups(JSON.stringify([group, { ...group, persons: [p(3), p(4), p(5)] }]), 'f');
    expect(() => refuseLargeGroups(groups, 3)).not.toThrow();
    expect(() => refuseLargeGroups(groups, 2)).toThrow('f group 2 has 3 persons: more than --max-group 2; nothing was sent');
  });
});
