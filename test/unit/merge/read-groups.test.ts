// The groups a merge reads: `persons duplicates` JSON or NDJSON, or a --plan-out plan; a mistake
// names where it is, and nothing is sent.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { PLAN_FORMAT, readGroups } from '../../../src/merge/read-groups.js';

const p = (n: number) => ({ uuid: `00000000-0000-4000-8000-00000000000${n}`, distinct_ids: [`d${n}`], properties: { n } });
const group = { project_id: '1', key: { email: 'a@x' }, persons: [p(1), p(2)] };

describe('readGroups', () => {
  it('reads a JSON array, NDJSON and a plan', () => {
    expect(readGroups(JSON.stringify([group, group]), 'f').groups).toHaveLength(2);
    expect(readGroups(`${JSON.stringify(group)}\n\n${JSON.stringify(group)}\n`, 'f').groups).toHaveLength(2);
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
});
