// POST /query/ with an ActorsQuery (docs/server-contract.md §7.1): the persons behind an insight, the way a
// personal key gets them now that the legacy /persons/funnel/, /lifecycle/ and /trends/ lists
// refuse keys. Shapes from PostHog's schema (frontend/src/queries/schema/schema-general.ts:
// ActorsQuery {source, select, limit, offset}, InsightActorsQuery {source, day, status, series},
// FunnelsActorsQuery {source: FunnelsQuery, funnelStep}; ActorsQueryResponse {results, columns,
// types, hogql, hasMore, limit, offset, missing_actors_count}). Who is behind a step or bucket is
// the same deterministic function of the person as in the legacy lists (legacy-persons.ts).
import { validationError } from './errors.js';
import { hash32 } from './prng.js';
import { serializeListItem } from './person-format.js';
import type { Person } from './store.js';
import { funnelPeople, lifecyclePeople } from './insight-people.js';

// Paging as PostHog's HogQLHasMorePaginator does it (posthog/hogql_queries/insights/paginators.py):
// `limit` defaults to 100 and is clamped to MAX_SELECT_RETURNED_ROWS, 50,000 on the query endpoint
// (posthog/hogql/constants.py); the query asks for limit + 1 rows, and hasMore says whether more
// than `limit` came. The HogQL printer clamps the top-level LIMIT to 50,000 too
// (posthog/hogql/printer.py), so a page of 50,000 never has more.
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 50_000;

type Node = Record<string, unknown>;

function node(value: unknown, what: string): Node {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw validationError(`${what}: Input should be a valid dictionary or object`);
  return value as Node;
}

function seriesOf(query: Node): unknown[] {
  return Array.isArray(query.series) ? query.series : [];
}

/** The persons a trends series counts on a day: about a quarter of those created by then. */
function trendsPeople(store: Iterable<Person>, day: string, series: number): Person[] {
  const people: Person[] = [];
  for (const person of store) if (person.createdAt.slice(0, 10) <= day && hash32(person.id, 0x7e0 + series) % 100 < 25) people.push(person);
  return people;
}

function actorsOf(store: Iterable<Person>, source: Node): Person[] {
  const inner = node(source.source, 'source.source');
  switch (source.kind) {
    case 'FunnelsActorsQuery': {
      if (inner.kind !== 'FunnelsQuery') throw validationError('FunnelsActorsQuery needs a FunnelsQuery source');
      const steps = seriesOf(inner).length;
      if (steps < 2) throw validationError('Funnels require at least two steps before calculating.');
      const step = source.funnelStep === undefined || source.funnelStep === null ? 1 : Number(source.funnelStep);
      if (!Number.isInteger(step) || step === 0 || Math.abs(step) > steps)
        throw validationError(`funnelStep must be between 1 and ${steps}, or between -${steps} and -1 for drop-offs.`);
      return funnelPeople(store, steps, step);
    }
    case 'InsightActorsQuery': {
      const day = typeof source.day === 'string' ? source.day.slice(0, 10) : undefined;
      if (inner.kind === 'LifecycleQuery') {
        if (!day || typeof source.status !== 'string') throw validationError('Lifecycle actors need a day and a status');
        return lifecyclePeople(store, day, source.status);
      }
      if (inner.kind === 'TrendsQuery') {
        if (!day) throw validationError('Trends actors need a day');
        const series = source.series === undefined ? 0 : Number(source.series);
        if (!Number.isInteger(series) || series < 0 || series >= Math.max(1, seriesOf(inner).length))
          throw validationError(`series ${String(source.series)} is not a series of the query`);
        return trendsPeople(store, day, series);
      }
      throw validationError(
        `The hogctl sandbox answers InsightActorsQuery over a TrendsQuery or a LifecycleQuery, not ${JSON.stringify(inner.kind ?? null)}`,
      );
    }
    default:
      throw validationError(
        `The hogctl sandbox answers ActorsQuery over InsightActorsQuery or FunnelsActorsQuery, not ${JSON.stringify(source.kind ?? null)}`,
      );
  }
}

export function runActorsQuery(query: Node, store: Iterable<Person>) {
  const source = node(query.source, 'source');
  const asked = query.limit === undefined || query.limit === null ? 0 : Number(query.limit);
  const from = query.offset === undefined || query.offset === null ? 0 : Number(query.offset);
  if (!Number.isInteger(asked) || !Number.isInteger(from)) throw validationError('limit and offset must be whole numbers');
  const limit = Math.min(MAX_LIMIT, asked > 0 ? asked : DEFAULT_LIMIT);
  const offset = from > 0 ? from : 0;
  const people = actorsOf(store, source);
  // LIMIT limit + 1, as the printer leaves it: at most MAX_LIMIT rows.
  const fetched = people.slice(offset, offset + Math.min(limit + 1, MAX_LIMIT));
  const page = fetched.slice(0, limit);
  const actor = (p: Person) => {
    const item = serializeListItem(p);
    return {
      id: item.uuid,
      distinct_ids: item.distinct_ids,
      properties: item.properties,
      created_at: item.created_at,
      is_identified: item.is_identified,
      name: item.name,
    };
  };
  return {
    results: page.map((p) => [actor(p)]),
    columns: ['actor'],
    types: ["Tuple(UUID, String, Array(String), String, DateTime64(6, 'UTC'), Bool)"],
    hogql: 'SELECT actor FROM actors',
    hasMore: fetched.length > limit,
    limit,
    offset,
    missing_actors_count: 0,
    is_cached: false,
    query_status: null,
  };
}
