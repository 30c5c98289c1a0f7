// Values that do not name one person, whatever number of persons share them: grouping persons
// by one joins different people. `persons duplicates` leaves such a value out of every group, and
// `persons merge` leaves out a group whose key is one.
//
// - PostHog's own placeholder words: the distinct ids its merge refuses (`isIllegalDistinctId`
//   below), here in any letter case ("NULL" is no more a person than "null").
// - A short list of values forms and test suites fill in when the real one is unknown: kept short
//   on purpose, since a value left out is a group a user does not see; `--ignore-value` adds more.
// - A value that is not text: HogQL's toString() turns `true`, `123`, `["a"]` and `{"a":1}` into
//   text, but a boolean or a number is a flag or a count, and an array or object a structure,
//   never an identity one person alone holds.
import { lowerAscii } from '../bulk/input/identifiers.js';

// nodejs/src/worker/ingestion/persons/person-merge-service.ts BARE_CASE_INSENSITIVE_ILLEGAL_IDS,
// BARE_CASE_SENSITIVE_ILLEGAL_IDS, each also in single and double quotes; the empty string after
// trim(). A merge of such a distinct id is a no-op with an ingestion warning (docs/server-contract.md §14.3).
const quoted = (ids: string[]) => ids.flatMap((id) => [id, `'${id}'`, `"${id}"`]);
const ILLEGAL_ANY_CASE = new Set(
  quoted(['anonymous', 'guest', 'distinctid', 'distinct_id', 'id', 'not_authenticated', 'email', 'undefined', 'true', 'false']),
);
const ILLEGAL_EXACT = new Set(quoted(['[object Object]', 'NaN', 'None', 'none', 'null', '0', 'undefined']));
/** As a grouping value "NULL" or "nan" is no more a person than PostHog's exact "null" and "NaN". */
const ILLEGAL_EXACT_ANY_CASE = new Set([...ILLEGAL_EXACT].map(lowerAscii));

/** person-merge-service.ts isDistinctIdIllegal() */
export function isIllegalDistinctId(id: string): boolean {
  return id.trim() === '' || ILLEGAL_ANY_CASE.has(id.toLowerCase()) || ILLEGAL_EXACT.has(id);
}

const PLACEHOLDER_WORDS = new Set([
  // "not applicable", "unknown", a dash: a form's way of saying "none".
  'n/a',
  'na',
  'nil',
  'unknown',
  '-',
  // Addresses test suites and sample data use.
  'test',
  'test@test.com',
  'test@example.com',
  'example@example.com',
  'email@example.com',
  'user@example.com',
]);

/** noreply@…, no-reply@…, donotreply@…, do-not-reply@… at any domain: a sender, never a person. */
const NO_REPLY = /^(no-?reply|do-?not-?reply)@/;

/** How a value given to --ignore-value and a value found are compared: trimmed, ASCII lower case. */
export function comparable(value: string): string {
  return lowerAscii(value.trim());
}

/**
 * Why this value names no one person, or undefined when it may. `ignored` holds the values a user
 * gave (--ignore-value), as `comparable` makes them.
 */
export function placeholderReason(value: string, ignored: ReadonlySet<string> = new Set()): string | undefined {
  const text = comparable(value);
  if (isIllegalDistinctId(value) || ILLEGAL_ANY_CASE.has(text) || ILLEGAL_EXACT_ANY_CASE.has(text))
    return "a placeholder, not one person's (PostHog refuses to merge on it)";
  if (PLACEHOLDER_WORDS.has(text) || NO_REPLY.test(text)) return "a placeholder or test value, not one person's";
  if (ignored.has(text)) return 'given to --ignore-value';
  return undefined;
}

/** The JSON type of a property's value as PostHog stores it. */
export type JsonType = 'string' | 'number' | 'boolean' | 'array' | 'object' | 'null' | 'missing';

export function jsonType(value: unknown): JsonType {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' ? type : 'object';
}

/** Why a property value of this type names no one person (undefined for text). */
export function typeReason(type: JsonType): string | undefined {
  if (type === 'string') return undefined;
  const what = { number: 'a number', boolean: 'a boolean', array: 'a list', object: 'an object', null: 'null', missing: 'no value' }[type];
  return `${what}, not text that names one person`;
}
