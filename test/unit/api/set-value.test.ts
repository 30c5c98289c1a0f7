import { describe, expect, it } from 'vitest';
import { parseAssignment, parseAssignments, parseSetValue } from '../../../src/api/set-value.js';
import { UsageError } from '../../../src/errors.js';

describe('parseSetValue', () => {
  it.each([
    ['30', 30],
    ['-5', -5],
    ['2.5', 2.5],
    ['1e3', 1000],
    ['true', true],
    ['false', false],
    ['null', null],
    ['["a", 1]', ['a', 1]],
    ['{"name": "Acme", "size": {"n": 5}}', { name: 'Acme', size: { n: 5 } }],
    ['"42"', '42'],
    ['""', ''],
  ])('reads %s as JSON', (raw, expected) => {
    expect(parseSetValue(raw)).toEqual(expected);
  });

  it.each([
    ['Lee'],
    [''],
    ['01234'], // JSON has no leading zeros: zip codes stay text
    [' 42'], // surrounding space means text
    ['42 '],
    ['tRue'],
    ['{not json}'],
    ['NaN'],
    ['Infinity'],
    ['1e400'], // not finite as a number
    ['12345678901234567890'], // a double cannot hold these digits
    ['-98765432109876543210'],
    ['$browser'],
    ['a=b'],
  ])('keeps %j as text', (raw) => {
    expect(parseSetValue(raw)).toBe(raw);
  });

  it('keeps integers beyond 2^53 that a double carries: exact digits, or its own spelling', () => {
    expect(parseSetValue('9007199254740991')).toBe(9007199254740991);
    expect(parseSetValue('1152921504606846976')).toBe(2 ** 60);
    expect(parseSetValue(String(2 ** 60))).toBe(2 ** 60);
    expect(parseSetValue('9007199254740993')).toBe('9007199254740993');
  });

  it('gives back any JSON value it is given as JSON text', () => {
    for (const value of [0, -1.25, 'text', '', 'with "quotes"', [], {}, [null, { a: [true] }], 'null', '12']) {
      expect(parseSetValue(JSON.stringify(value))).toEqual(value);
    }
  });
});

describe('parseAssignment(s)', () => {
  it('splits at the first =, so values may hold = and keys may start with $', () => {
    expect(parseAssignment('query=a=b')).toEqual(['query', 'a=b']);
    expect(parseAssignment('$browser=Firefox')).toEqual(['$browser', 'Firefox']);
    expect(parseAssignment('empty=')).toEqual(['empty', '']);
    expect(parseAssignment('n=7')).toEqual(['n', 7]);
  });

  it('rejects a missing key or = with the flag name and an example', () => {
    for (const raw of ['noequals', '=value', '']) {
      let error: unknown;
      try {
        parseAssignment(raw, '--field');
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toContain(`invalid --field "${raw}"`);
      expect((error as UsageError).hint).toContain('--field plan=team');
    }
  });

  it('builds one object, the last of a repeated key winning, __proto__ kept as a key', () => {
    const out = parseAssignments(['a=1', 'b=x', 'a=2', '__proto__={"polluted": true}']);
    expect(JSON.stringify(out)).toBe('{"a":2,"b":"x","__proto__":{"polluted":true}}');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
