// Properties of the `--set` value parser: JSON text gives back its value, anything else stays the
// very text typed, and nothing throws; `key=value` splits at the first "=".
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { binaryText } from '../binary-text.js';
import { parseAssignment, parseAssignments, parseSetValue } from '../../../src/api/set-value.js';
import { UsageError } from '../../../src/errors.js';

const RUNS = 300;

/** What the text means as JSON, or undefined when it is not JSON. */
function asJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** Text typed on a command line: anything, with JSON-looking pieces now and then. */
const typed = fc.oneof(
  binaryText({ maxLength: 30 }),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
  fc
    .tuple(
      fc.constantFrom('', ' ', '0', '-', '+', '"', '['),
      fc.oneof(fc.integer(), fc.bigInt(), fc.double()).map(String),
      fc.constantFrom('', ' ', ']', '"', 'e5', '.0'),
    )
    .map((p) => p.join('')),
);

describe('parseSetValue', () => {
  it('gives back any JSON value from its JSON text, compact or indented', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        expect(parseSetValue(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps text that is not JSON exactly as typed', () => {
    fc.assert(
      fc.property(binaryText({ maxLength: 40 }), (text) => {
        fc.pre(asJson(text) === undefined);
        expect(parseSetValue(text)).toBe(text);
      }),
      { numRuns: RUNS },
    );
  });

  it('never throws, and gives either the text itself or exactly what JSON.parse makes of it', () => {
    fc.assert(
      fc.property(typed, (text) => {
        const value = parseSetValue(text);
        if (value === text) return;
        const json = asJson(text);
        expect(json).toBeDefined();
        expect(value).toEqual(json!.value);
        // Surrounding space and lossy big integers are the documented reasons to keep text.
        expect(text).toBe(text.trim());
        if (typeof value === 'number' && /^-?\d+$/.test(text)) expect(BigInt(text) === BigInt(value) || String(value) === text).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps an integer whose digits a double cannot hold as its digits', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), (n) => {
        const text = n.toString();
        const value = parseSetValue(text);
        if (typeof value === 'number') expect(BigInt(value) === n || String(value) === text).toBe(true);
        else expect(value).toBe(text);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('parseAssignment(s)', () => {
  const key = binaryText({ minLength: 1, maxLength: 15 }).filter((k) => !k.includes('='));

  it('splits key=value at the first "=", the value parsed as --set values are', () => {
    fc.assert(
      fc.property(key, typed, (k, v) => {
        expect(parseAssignment(`${k}=${v}`)).toEqual([k, parseSetValue(v)]);
      }),
      { numRuns: RUNS },
    );
  });

  it('builds one object of own keys, the last value of a repeated key winning', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.oneof(key, fc.constantFrom('__proto__', 'constructor', 'toString')), typed), { maxLength: 10 }),
        (pairs) => {
          const out = parseAssignments(pairs.map(([k, v]) => `${k}=${v}`));
          const last = new Map(pairs.map(([k, v]) => [k, parseSetValue(v)]));
          expect(Object.keys(out).sort()).toEqual([...last.keys()].sort());
          for (const [k, v] of last) {
            expect(Object.hasOwn(out, k)).toBe(true);
            expect(Object.getOwnPropertyDescriptor(out, k)!.value).toEqual(v);
          }
          expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('throws nothing but a UsageError naming the flag', () => {
    fc.assert(
      fc.property(binaryText({ maxLength: 30 }), (raw) => {
        try {
          parseAssignment(raw, '--field');
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
          expect((error as UsageError).message.startsWith(`invalid --field "${raw}"`)).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
