// The input of a bulk job is one value: how messages name it and how the resume command gives it again.
import { describe, expect, it } from 'vitest';
import { fromStdin, inputArgs, inputLabel, type JobInput } from '../../../src/bulk/input.js';

const inputs: [JobInput, string, string[]][] = [
  [{ kind: 'ids', flag: '--file', file: 'ids.txt', ids: 'distinct_ids' }, 'ids.txt', ['--file', 'ids.txt']],
  [{ kind: 'ids', flag: '--file', file: '-', ids: 'person_ids' }, 'stdin', ['--file', '-']],
  [{ kind: 'emails', flag: '--emails', file: 'erasure.txt' }, 'erasure.txt', ['--emails', 'erasure.txt']],
  [{ kind: 'addresses', flag: '--email', addresses: ['a@x.io', 'b@x.io'] }, '--email', ['--email', 'a@x.io', '--email', 'b@x.io']],
  [
    { kind: 'selection', flag: '--where', selection: { where: ['plan=free'], cohort: '3', query: null } },
    '--where plan=free --cohort 3',
    ['--where', 'plan=free', '--cohort', '3'],
  ],
  [{ kind: 'plan', flag: '--plan', file: 'plan.json' }, 'plan.json', ['--plan', 'plan.json']],
];

describe('a bulk job input', () => {
  it.each(inputs)('%o is named %s and given again as %o', (input, label, args) => {
    expect(inputLabel(input)).toBe(label);
    expect(inputArgs(input)).toEqual(args);
  });

  it('from standard input has no path to find its journal by', () => {
    expect(inputs.map(([input]) => fromStdin(input))).toEqual([false, true, false, false, false, false]);
  });
});
