// Builds the `properties` filter of GET /persons/: a JSON array of {key, value, operator, type}
// where type must be "person" (docs/server-contract.md §6.1; "event" fails in person scope).
import { UsageError } from '../errors.js';

export interface PropertyFilter {
  key: string;
  value?: unknown;
  operator?: string;
  type: string;
}

// Longest operators first, so that `>=` is not read as `>`.
const OPERATORS: [string, string][] = [
  ['!~', 'not_icontains'],
  ['!=', 'is_not'],
  ['>=', 'gte'],
  ['<=', 'lte'],
  ['~', 'icontains'],
  ['=', 'exact'],
  ['>', 'gt'],
  ['<', 'lt'],
];

/**
 * Reads one `--where` expression: `plan=team`, `plan!=free`, `email~example.com` (contains),
 * `email!~test`, `age>=30`, `age<40`, and `has:email` / `lacks:email` for a property that is set
 * or not set at all. A comma-separated value after `=` or `!=` matches any of them; numbers
 * compare as numbers. An empty value is refused: `email~` contains the empty text, so an unset
 * shell variable (`--where "email~$DOMAIN"`) would select every person with an address.
 */
export function parseWhere(expression: string): PropertyFilter {
  const presence = /^(has|lacks):(.*)$/.exec(expression.trim());
  let best: { at: number; op: string; operator: string } | undefined;
  for (const [op, operator] of OPERATORS) {
    const at = expression.indexOf(op);
    // An operator at 0 counts too: `>=30` has an empty key, not the key ">".
    if (at !== -1 && (!best || at < best.at || (at === best.at && op.length > best.op.length))) best = { at, op, operator };
  }
  if (!best && presence) {
    const key = presence[2]!.trim();
    if (!key)
      throw new UsageError(
        `invalid --where "${expression}": the property name is empty`,
        `write it as ${presence[1]}:<key>, e.g. --where ${presence[1]}:email`,
      );
    return {
      key,
      value: presence[1] === 'has' ? 'is_set' : 'is_not_set',
      operator: presence[1] === 'has' ? 'is_set' : 'is_not_set',
      type: 'person',
    };
  }
  if (!best) {
    throw new UsageError(
      `invalid --where "${expression}": expected key=value`,
      'operators: = != ~ (contains) !~ > >= < <=, and has:<key> / lacks:<key>, e.g. --where plan=team --where email~@example.com',
    );
  }
  const key = expression.slice(0, best.at).trim();
  const raw = expression.slice(best.at + best.op.length);
  if (!key)
    throw new UsageError(`invalid --where "${expression}": the property name is empty`, 'write it as key=value, e.g. --where plan=team');
  const values = (best.operator === 'exact' || best.operator === 'is_not') && raw.includes(',') ? raw.split(',') : [raw];
  const blank = values.find(isBlank);
  if (blank !== undefined) {
    const what = blank === '' ? 'empty' : blank.trim() === '' ? 'only spaces' : `${blank.trim()}, an empty string in quotes`;
    throw new UsageError(
      `invalid --where "${expression}": the value after ${best.op} is ${what}${values.length > 1 ? ' in the list' : ''}`,
      `give a value, e.g. --where ${key}${best.op}team; to choose persons by whether the property exists, use --where has:${key} or --where lacks:${key}; ` +
        `to match the empty string on purpose, give the filter as JSON: --properties '[{"key":"${key}","value":"","operator":"${best.operator}","type":"person"}]'`,
    );
  }
  let value: unknown = raw;
  if (best.operator === 'gt' || best.operator === 'gte' || best.operator === 'lt' || best.operator === 'lte') {
    value = raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
  } else if (values.length > 1) {
    value = values;
  }
  return { key, value, operator: best.operator, type: 'person' };
}

/**
 * A value that selects what an empty one would: nothing, spaces (an unset variable between
 * quotes), or a pair of quotes meant for a shell that did not take them. PostHog compares `!=`
 * with a value no person has as "every person", so such a value is refused, not sent.
 */
function isBlank(value: string): boolean {
  const v = value.trim();
  return v === '' || v === '""' || v === "''";
}

/** Reads `--properties`: a JSON array of filters (or one filter object); items without a type get "person". */
export function parsePropertiesJson(json: string): PropertyFilter[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    throw new UsageError(
      `invalid --properties: ${(err as Error).message}`,
      `give a JSON array, e.g. --properties '[{"key":"plan","value":"team","operator":"exact"}]'`,
    );
  }
  const items = Array.isArray(parsed) ? parsed : [parsed];
  return items.map((item, i) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item) || typeof (item as PropertyFilter).key !== 'string') {
      throw new UsageError(
        `invalid --properties: item ${i} is not an object with a "key"`,
        'each filter looks like {"key":"plan","value":"team"}',
      );
    }
    return { ...(item as PropertyFilter), type: (item as PropertyFilter).type ?? 'person' };
  });
}

/**
 * `persons list --email`: the email property equal to the address, ignoring the case of ASCII
 * letters, as every other lookup of an address in hogctl matches it (`persons get --email`, an
 * erasure: src/bulk/input/identifiers.ts). PostHog's own `email` parameter compares exactly, case
 * included (docs/server-contract.md §6.1), so the list sends a `regex` filter instead: each ASCII
 * letter as a class of its two cases (`[lL]`), anything else escaped; `(?i)` would also fold
 * letters beyond ASCII, which the other lookups do not.
 */
export function emailFilter(address: string): PropertyFilter {
  const pattern = [...address]
    .map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c.replace(/[\\^$.|?*+()[\]{}]/, '\\$&')))
    .join('');
  return { key: 'email', operator: 'regex', value: `^${pattern}$`, type: 'person' };
}
