// The input of a bulk job is one value: how messages name it and how the resume command gives it again.
import { describe, expect, it } from 'vitest';
import type { Context } from '../../../../src/context.js';
import { fromStdin, inputArgs, inputLabel, readJobInput, type JobInput } from '../../../../src/bulk/input/input.js';

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
  [
    {
      kind: 'own',
      flag: '--groups',
      file: '-',
      own: { label: 'stdin', sha256: 'ab'.repeat(32), projects: ['1', '2'], args: ['--groups', '-'], stem: 'merge' },
    },
    'stdin',
    ['--groups', '-'],
  ],
];

describe('a bulk job input', () => {
  it.each(inputs)('%o is named %s and given again as %o', (input, label, args) => {
    expect(inputLabel(input)).toBe(label);
    expect(inputArgs(input)).toEqual(args);
  });

  it('from standard input has no path to find its journal by', () => {
    expect(inputs.map(([input]) => fromStdin(input))).toEqual([false, true, false, false, false, false, true]);
  });
});

describe("a kind's own input (a merge's groups)", () => {
  const own = { label: 'groups.json', sha256: 'cd'.repeat(32), projects: ['1'], args: ['--groups', 'groups.json'], stem: 'merge' };

  it('is not read by the engine: it binds the journal by the hash of its text, and names no ids', async () => {
    const ctx = {} as Context;
    const read = await readJobInput(ctx, { kind: 'own', flag: '--groups', file: 'groups.json', own }, {});
    expect(read).toMatchObject({ label: 'groups.json', path: 'groups.json', list: { kind: 'person_ids', sha256: own.sha256, ids: [] } });
  });

  it('without a file (arguments, standard input) names its default journal by its stem', async () => {
    const read = await readJobInput({} as Context, { kind: 'own', flag: '<persons>', own: { ...own, label: 'the persons named' } }, {});
    expect(read).toMatchObject({ label: 'the persons named', stem: 'merge' });
    expect(read.path).toBeUndefined();
  });
});
