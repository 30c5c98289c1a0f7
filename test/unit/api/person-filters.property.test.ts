// Properties of the property-filter parsers: `--where key<op>value` reads back the key, operator
// and value it was built from; the key is everything before the first operator (a key holding
// an operator character must go through --properties, which keeps any key); and no input makes
// either parser throw anything but a UsageError.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { binaryText } from '../binary-text.js';
import { parsePropertiesJson, parseWhere } from '../../../src/api/person-filters.js';
import { UsageError } from '../../../src/errors.js';

const RUNS = 300;
const OPERATORS: Record<string, string> = {
  '=': 'exact',
  '!=': 'is_not',
  '~': 'icontains',
  '!~': 'not_icontains',
  '>': 'gt',
  '>=': 'gte',
  '<': 'lt',
  '<=': 'lte',
};
const OPERATOR_CHARS = /[=~<>]|![=~]/;

const text = (o: { minLength?: number; maxLength?: number } = {}) => fc.string({ unit: 'grapheme', maxLength: 20, ...o });
/** A property name --where can carry: no operator in it, nothing to trim around it. */
const plainKey = text({ minLength: 1 }).filter((k) => k === k.trim() && k !== '' && !OPERATOR_CHARS.test(k) && !k.endsWith('!'));
const operator = fc.constantFrom(...Object.keys(OPERATORS));

function throwsOnlyUsageErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toMatch(/^invalid --(where|properties)/);
  }
}

describe('parseWhere', () => {
  it('reads back the key, the operator and the value it was built from', () => {
    fc.assert(
      fc.property(plainKey, operator, text(), fc.constantFrom('', ' '), (key, op, raw, space) => {
        // `age>` followed by `=5` is `age>=5`: the longer operator wins, as documented.
        fc.pre(!((op === '>' || op === '<') && raw.startsWith('=')));
        const itemsOperator = OPERATORS[op];
        const items = (itemsOperator === 'exact' || itemsOperator === 'is_not') && raw.includes(',') ? raw.split(',') : [raw];
        // An empty value (or list item), or one of only spaces or an empty pair of quotes, is
        // refused: the tests below and person-filters.test.ts say so.
        fc.pre(!items.some((item) => ['', '""', "''"].includes(item.trim())));
        const filter = parseWhere(`${key}${space}${op}${raw}`);
        const operatorName = itemsOperator;
        let value: unknown = raw;
        if (['gt', 'gte', 'lt', 'lte'].includes(operatorName) && raw.trim() !== '' && Number.isFinite(Number(raw))) value = Number(raw);
        else if ((operatorName === 'exact' || operatorName === 'is_not') && raw.includes(',')) value = raw.split(',');
        expect(filter).toEqual({ key, operator: operatorName, value, type: 'person' });
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses an empty value, or an empty item of a list, after any operator', () => {
    fc.assert(
      fc.property(plainKey, operator, fc.constantFrom('', ',', 'a,', ',b', 'a,,b'), (key, op, raw) => {
        const listy = op === '=' || op === '!=';
        fc.pre(raw === '' || listy);
        expect(() => parseWhere(`${key}${op}${raw}`)).toThrow(/the value after .* is empty/);
      }),
      { numRuns: RUNS },
    );
  });

  it('compares numbers as numbers', () => {
    fc.assert(
      fc.property(plainKey, fc.constantFrom('>', '>=', '<', '<='), fc.double({ noNaN: true, noDefaultInfinity: true }), (key, op, n) => {
        expect(parseWhere(`${key}${op}${n}`).value).toBe(Number(String(n)));
      }),
      { numRuns: RUNS },
    );
  });

  it('takes everything before the first operator as the key, so the key never holds one', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(text({ maxLength: 4 }), operator, fc.constantFrom('!', ' ', ',')), { maxLength: 8 }).map((p) => p.join('')),
        (expression) => {
          let filter;
          try {
            filter = parseWhere(expression);
          } catch (error) {
            expect(error).toBeInstanceOf(UsageError);
            return;
          }
          expect(filter.key).not.toBe('');
          expect(filter.key).not.toMatch(OPERATOR_CHARS);
          // Nothing is lost: key, operator and the raw value spell the expression again.
          const at = expression.indexOf(filter.key) + filter.key.length;
          const op = Object.keys(OPERATORS).find((o) => OPERATORS[o] === filter.operator)!;
          expect(expression.slice(at).trimStart().startsWith(op)).toBe(true);
          expect(expression.slice(0, at).trim()).toBe(filter.key);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('throws nothing but a UsageError, whatever it is given', () => {
    fc.assert(
      fc.property(binaryText({ maxLength: 40 }), (expression) => throwsOnlyUsageErrors(() => parseWhere(expression))),
      { numRuns: RUNS },
    );
  });
});

describe('parsePropertiesJson', () => {
  const filter = fc.record(
    {
      // Any key at all, operator characters included: this is the way to filter on such keys.
      key: fc.oneof(binaryText({ maxLength: 20 }), fc.constantFrom('a=b', 'x>=1', '$os~', '!=', '__proto__')),
      value: fc.jsonValue({ maxDepth: 2 }),
      operator: fc.constantFrom('exact', 'is_not', 'icontains', 'regex', 'gt', 'is_set', 'in'),
      type: fc.constantFrom('person', 'cohort', 'hogql'),
    },
    { requiredKeys: ['key'] },
  );

  it('gives back the filters it was given, with type "person" where none was', () => {
    fc.assert(
      fc.property(fc.array(filter, { maxLength: 5 }), fc.boolean(), (filters, single) => {
        const json = JSON.stringify(single && filters.length === 1 ? filters[0] : filters);
        const expected = JSON.parse(JSON.stringify(filters)).map((f: Record<string, unknown>) => ({ ...f, type: f.type ?? 'person' }));
        expect(parsePropertiesJson(json)).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });

  it('throws nothing but a UsageError, for any text or any JSON', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          binaryText({ maxLength: 40 }),
          fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
        ),
        (json) => throwsOnlyUsageErrors(() => parsePropertiesJson(json)),
      ),
      { numRuns: RUNS },
    );
  });
});
