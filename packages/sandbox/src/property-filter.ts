// The `properties` query parameter of the persons list (docs/server-contract.md §6.1), compiled once into
// a predicate. Semantics follow HogQL's property_to_expr closely enough for a CLI to be tested:
// array values mean "any of" for positive operators and "none of" for negative ones, and a
// missing property satisfies the negative operators (HogQL wraps them in ifNull(..., 1)).

import { cohortsOf } from './cohorts.js';
import { serverError, validationError } from './errors.js';
import type { Person } from './store.js';

export interface CompiledProperties {
  match: (person: Person) => boolean;
  /** Stable identity of the filter, for the store's scan cache. */
  key: string;
}

type Test = (value: unknown) => boolean;

const NEGATIVE = new Set(['is_not', 'not_icontains', 'not_regex', 'not_in']);

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

function str(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function num(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return NaN;
}

function regex(pattern: unknown): RegExp {
  try {
    return new RegExp(str(pattern));
  } catch {
    throw validationError(`Invalid regular expression: ${str(pattern)}`);
  }
}

function dateValue(value: unknown): number {
  return typeof value === 'string' || typeof value === 'number' ? Date.parse(String(value)) : NaN;
}

/** A test for one operator against one filter value; `present` tells the caller to treat a
 * missing property as failing (positive) or passing (negative). */
function singleTest(operator: string, v: unknown): Test {
  switch (operator) {
    case 'exact':
    case 'is_not':
    case 'in':
    case 'not_in':
      return (p) => str(p) === str(v);
    case 'icontains':
    case 'not_icontains': {
      const needle = str(v).toLowerCase();
      return (p) => str(p).toLowerCase().includes(needle);
    }
    case 'regex':
    case 'not_regex': {
      const re = regex(v);
      return (p) => re.test(str(p));
    }
    case 'gt':
      return (p) => num(p) > num(v);
    case 'gte':
      return (p) => num(p) >= num(v);
    case 'lt':
      return (p) => num(p) < num(v);
    case 'lte':
      return (p) => num(p) <= num(v);
    case 'is_date_exact': {
      const day = str(v).slice(0, 10);
      return /^\d{4}-\d{2}-\d{2}$/.test(str(v)) ? (p) => str(p).slice(0, 10) === day : (p) => dateValue(p) === dateValue(v);
    }
    case 'is_date_before':
      return (p) => dateValue(p) < dateValue(v);
    case 'is_date_after':
      return (p) => dateValue(p) > dateValue(v);
    default:
      throw validationError(`Unknown property filter operator "${operator}".`);
  }
}

/**
 * `{"type": "cohort", "key": "id", "value": <cohort id>}`: membership of a cohort of the project
 * (PostHog/posthog posthog/hogql/property.py, property_to_expr: `Cohort.objects.get(team__project_id=…,
 * id=value)` then `id IN COHORT`, `NOT IN COHORT` for the not_in operator or `negation`). The
 * lookup does not leave out deleted cohorts, and an unknown id raises Cohort.DoesNotExist, which
 * no handler turns into a 4xx: a 500.
 */
function compileCohort(prop: Record<string, unknown>, teamId: number): (person: Person) => boolean {
  const value = prop.value;
  if (typeof value !== 'number' && typeof value !== 'string') throw validationError('Cohort property value must be a cohort ID');
  const cohort = cohortsOf(teamId).find((c) => String(c.id) === String(value).trim());
  if (!cohort) throw serverError();
  const negated = prop.negation === true || prop.operator === 'not_in';
  return (person) => cohort.matches(person) !== negated;
}

function compileItem(item: unknown, teamId: number): (person: Person) => boolean {
  // The server iterates the parsed value and calls prop.get(...): anything but an object is a 500.
  if (item === null || typeof item !== 'object' || Array.isArray(item)) throw serverError();
  const prop = item as Record<string, unknown>;
  const type = prop.type ?? 'person';
  if (type === 'event') {
    // "The 'event' property filter only works in 'event' scope, not in 'person' scope", raised
    // inside the query builder and surfacing as a server error.
    throw serverError();
  }
  if (type === 'cohort' || type === 'static-cohort' || type === 'precalculated-cohort') return compileCohort(prop, teamId);
  if (type !== 'person') throw validationError(`The sandbox does not support "${str(type)}" property filters; use type "person".`);
  if (typeof prop.key !== 'string' || prop.key === '')
    throw validationError('Property filters need a "key".', 'invalid_input', 'properties');
  const key = prop.key;
  const operator = typeof prop.operator === 'string' ? prop.operator : 'exact';
  if (operator === 'is_set') return (person) => person.properties[key] !== undefined && person.properties[key] !== null;
  if (operator === 'is_not_set') return (person) => person.properties[key] === undefined || person.properties[key] === null;
  const tests = asList(prop.value).map((v) => singleTest(operator, v));
  if (NEGATIVE.has(operator)) {
    return (person) => {
      const value = person.properties[key];
      if (value === undefined || value === null) return true;
      return !tests.some((t) => t(value));
    };
  }
  return (person) => {
    const value = person.properties[key];
    if (value === undefined || value === null) return false;
    return tests.some((t) => t(value));
  };
}

/** Compiles the raw `properties` parameter of a project's list; null when absent or empty. */
export function compilePropertiesParam(raw: string | null, teamId: number): CompiledProperties | null {
  if (raw === null || raw === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw validationError('Properties are unparsable!');
  }
  if (!Array.isArray(parsed)) throw serverError();
  const predicates = parsed.map((item) => compileItem(item, teamId));
  return { key: `${teamId}:${raw}`, match: (person) => predicates.every((p) => p(person)) };
}
