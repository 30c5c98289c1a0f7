import { describe, expect, it } from 'vitest';
import { oneOf } from '../../../src/cli/exclusive.js';

describe('oneOf', () => {
  it('names the one flag given, or none', () => {
    expect(
      oneOf(
        [
          ['--file', false],
          ['--where', true],
        ],
        'the run reads one input',
      ),
    ).toBe('--where');
    expect(oneOf([['--file', false]])).toBeUndefined();
  });

  it('refuses two, naming those given and why', () => {
    expect(() =>
      oneOf(
        [
          ['--file', true],
          ['--emails', false],
          ['--where', true],
        ],
        'the run reads one input',
      ),
    ).toThrow('give one of --file and --where: the run reads one input');
    expect(() =>
      oneOf([
        ['--projects', true],
        ['--all-projects', true],
      ]),
    ).toThrow('give one of --projects and --all-projects');
  });
});
