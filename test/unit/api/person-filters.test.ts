import { describe, expect, it } from 'vitest';
import { parsePropertiesJson, parseWhere } from '../../../src/api/person-filters.js';
import { UsageError } from '../../../src/errors.js';
import { thrown } from '../helpers.js';

describe('parseWhere', () => {
  it.each([
    ['plan=team', { key: 'plan', value: 'team', operator: 'exact' }],
    ['plan!=free', { key: 'plan', value: 'free', operator: 'is_not' }],
    ['email~example.com', { key: 'email', value: 'example.com', operator: 'icontains' }],
    ['email!~test', { key: 'email', value: 'test', operator: 'not_icontains' }],
    ['age>30', { key: 'age', value: 30, operator: 'gt' }],
    ['age>=30', { key: 'age', value: 30, operator: 'gte' }],
    ['age<40', { key: 'age', value: 40, operator: 'lt' }],
    ['age<=40.5', { key: 'age', value: 40.5, operator: 'lte' }],
  ])('%s', (expression, expected) => {
    expect(parseWhere(expression)).toEqual({ ...expected, type: 'person' });
  });

  it('splits a comma-separated value after = and != into a list', () => {
    expect(parseWhere('plan=team,enterprise')).toEqual({ key: 'plan', value: ['team', 'enterprise'], operator: 'exact', type: 'person' });
    expect(parseWhere('plan!=free,trial')).toEqual({ key: 'plan', value: ['free', 'trial'], operator: 'is_not', type: 'person' });
    expect(parseWhere('name~a,b').value).toBe('a,b');
  });

  it('keeps a non-numeric comparison value as text', () => {
    expect(parseWhere('signup>2024-01-01').value).toBe('2024-01-01');
    expect(parseWhere('age>-3').value).toBe(-3);
  });

  it('splits at the first operator and keeps the rest of the value', () => {
    expect(parseWhere('url=https://x.test/?a=b')).toMatchObject({ key: 'url', value: 'https://x.test/?a=b', operator: 'exact' });
    expect(parseWhere('email~a=b')).toMatchObject({ key: 'email', value: 'a=b', operator: 'icontains' });
    expect(parseWhere(' plan =team')).toMatchObject({ key: 'plan', value: 'team' });
  });

  it('rejects an expression without an operator or without a key', () => {
    for (const bad of ['plan', '=team', ' =team']) {
      const err = thrown(() => parseWhere(bad));
      expect(err).toBeInstanceOf(UsageError);
      expect(err.exitCode).toBe(2);
    }
  });

  it('refuses an empty value after every operator, as an unset shell variable leaves it', () => {
    for (const bad of ['email~', 'email!~', 'plan!=', 'plan=', 'age>', 'age<', 'age>=', 'age<=', 'plan=team,', 'plan!=,free']) {
      const err = thrown(() => parseWhere(bad));
      expect(err).toBeInstanceOf(UsageError);
      expect(err.exitCode).toBe(2);
      expect(err.message).toMatch(/^invalid --where ".*": the value after \S+ is empty/);
      expect((err as UsageError).hint).toContain('has:');
    }
  });

  it('refuses a value of only spaces or of an empty pair of quotes, which would select every person with !=', () => {
    for (const bad of ['plan!= ', 'plan!=""', "plan!=''", 'plan=  ', 'email~ ', 'plan!=free, ']) {
      const err = thrown(() => parseWhere(bad));
      expect(err.exitCode, bad).toBe(2);
      expect(err.message).toMatch(/^invalid --where ".*": the value after \S+ is (only spaces|"", an empty string in quotes|''|empty)/);
      expect((err as UsageError).hint).toContain('"value":""');
    }
    // A value with spaces inside it is a value.
    expect(parseWhere('name=Ana Lee')).toMatchObject({ value: 'Ana Lee' });
  });

  it('reads has:<key> and lacks:<key> as the is_set and is_not_set operators', () => {
    expect(parseWhere('has:email')).toEqual({ key: 'email', value: 'is_set', operator: 'is_set', type: 'person' });
    expect(parseWhere(' lacks: phone ')).toEqual({ key: 'phone', value: 'is_not_set', operator: 'is_not_set', type: 'person' });
    // With an operator in it, it is a property whose name starts with has:.
    expect(parseWhere('has:x=1')).toMatchObject({ key: 'has:x', value: '1', operator: 'exact' });
    expect(thrown(() => parseWhere('has:')).message).toBe('invalid --where "has:": the property name is empty');
  });

  it('does not read an operator at the start as the key', () => {
    for (const bad of ['>=30', '<=5', '!=free', '!~test', '=a=b', '~x']) {
      const err = thrown(() => parseWhere(bad));
      expect(err).toBeInstanceOf(UsageError);
      expect(err.message).toBe(`invalid --where "${bad}": the property name is empty`);
    }
  });
});

describe('parsePropertiesJson', () => {
  it('adds type person where it is missing and keeps a given type', () => {
    expect(parsePropertiesJson('[{"key":"plan","value":"team","operator":"exact"},{"key":"id","value":3,"type":"cohort"}]')).toEqual([
      { key: 'plan', value: 'team', operator: 'exact', type: 'person' },
      { key: 'id', value: 3, type: 'cohort' },
    ]);
  });

  it('accepts a single filter object', () => {
    expect(parsePropertiesJson('{"key":"plan","value":"team"}')).toEqual([{ key: 'plan', value: 'team', type: 'person' }]);
  });

  it('rejects bad JSON with a UsageError', () => {
    const err = thrown(() => parsePropertiesJson('[{"key":'));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toMatch(/^invalid --properties/);
    expect(err.hint).toContain('--properties');
  });

  it('rejects items that are not filters', () => {
    for (const bad of ['[1]', '[null]', '[{"value":"x"}]', '[[]]', 'null']) {
      const err = thrown(() => parsePropertiesJson(bad));
      expect(err).toBeInstanceOf(UsageError);
      expect(err.message).toContain('item 0');
    }
  });
});
