// The persons behind an insight, the way PostHog serves them to a personal key today: the query
// endpoint with an actors query (docs/server-contract.md §7.1), since the legacy /persons/funnel/,
// /lifecycle/ and /trends/ lists refuse keys. Shapes from PostHog's schema
// (frontend/src/queries/schema/schema-general.ts): ActorsQuery {source, select, limit, offset}
// over an InsightActorsQuery {source, day, status, series} or a FunnelsActorsQuery
// {source: FunnelsQuery, funnelStep}; the answer {results, columns, hasMore, limit, offset}.
import type { ApiClient } from '../http/client.js';
import type { RetryPolicy } from '../http/retry.js';
import { CliError, UsageError } from '../errors.js';
import { queryPath } from './query.js';
import type { Params } from './person-insights.js';

export type InsightKind = 'funnel' | 'lifecycle' | 'trends';

/** The legacy `events` / `actions` parameters as query series. */
function series(params: Params): Record<string, unknown>[] {
  const list = (name: string): Record<string, unknown>[] => {
    const raw = params[name];
    const value = typeof raw === 'string' ? JSON.parse(raw) : raw;
    return Array.isArray(value) ? value.filter((e): e is Record<string, unknown> => e !== null && typeof e === 'object') : [];
  };
  const entities: Record<string, unknown>[] = [
    ...list('events').map((e) => ({ ...e, type: 'events' })),
    ...list('actions').map((e) => ({ ...e, type: 'actions' })),
  ];
  entities.sort((a, b) => Number(a.order ?? 0) - Number(b.order ?? 0));
  return entities.map((e) =>
    e.type === 'actions'
      ? { kind: 'ActionsNode', id: Number(e.id) }
      : { kind: 'EventsNode', event: e.id ?? null, name: String(e.name ?? e.id ?? 'All events') },
  );
}

/** The actors source for the legacy parameters hogctl's insight commands take. */
export function actorsSource(kind: InsightKind, params: Params): Record<string, unknown> {
  let entities;
  try {
    entities = series(params);
  } catch {
    throw new UsageError('invalid events or actions: not JSON', 'e.g. --events \'[{"id": "$pageview"}, {"id": "signed_up"}]\'');
  }
  const dateRange =
    params.date_from !== undefined || params.date_to !== undefined
      ? { date_from: params.date_from ?? null, date_to: params.date_to ?? null }
      : undefined;
  const base = {
    series: entities,
    ...(dateRange ? { dateRange } : {}),
    ...(params.interval !== undefined ? { interval: params.interval } : {}),
  };
  switch (kind) {
    case 'funnel':
      return {
        kind: 'FunnelsActorsQuery',
        source: { kind: 'FunnelsQuery', ...base },
        funnelStep: params.funnel_step === undefined ? 1 : Number(params.funnel_step),
      };
    case 'lifecycle':
      return {
        kind: 'InsightActorsQuery',
        source: { kind: 'LifecycleQuery', ...base },
        day: params.target_date,
        status: params.lifecycle_type,
      };
    case 'trends':
      return {
        kind: 'InsightActorsQuery',
        source: { kind: 'TrendsQuery', ...base },
        day: params.day,
        series: params.series === undefined ? 0 : Number(params.series),
      };
  }
}

/**
 * The largest actors page that can say more persons follow. PostHog's HogQLHasMorePaginator
 * (posthog/hogql_queries/insights/paginators.py, used by ActorsQueryRunner in
 * posthog/hogql_queries/actors_query_runner.py) clamps `limit` to get_max_limit_for_context,
 * MAX_SELECT_RETURNED_ROWS = 50,000 on the query endpoint (posthog/hogql/constants.py), asks for
 * limit + 1 rows and sets hasMore when more than `limit` come back. The HogQL printer clamps the
 * top-level LIMIT to the same 50,000 (posthog/hogql/printer.py), so a page of 50,000 never has
 * more: 49,999 is the largest page that pages on.
 */
export const MAX_ACTORS_PAGE = 49_999;

export interface ActorsPage {
  persons: Record<string, unknown>[];
  hasMore: boolean;
}

/** One page of the persons behind an insight. */
export async function actorsPage(
  client: ApiClient,
  projectId: string,
  source: Record<string, unknown>,
  page: { limit: number; offset: number; signal?: AbortSignal; retry?: Partial<RetryPolicy> },
): Promise<ActorsPage> {
  const query = { kind: 'ActorsQuery', source, select: ['actor'], limit: page.limit, offset: page.offset };
  const res = await client.post<{ results?: unknown[][]; columns?: unknown[]; hasMore?: boolean }>(
    queryPath(projectId),
    { query, name: 'hogctl-insight-persons', refresh: 'blocking' },
    { idempotent: true, signal: page.signal, retry: page.retry },
  );
  const body = res.body;
  if (!body || !Array.isArray(body.results) || !Array.isArray(body.columns)) {
    throw new CliError(
      "the server's answer to the actors query is not what hogctl expects",
      'run with --debug to see it; --legacy uses the older persons lists (with `hogctl auth login`)',
    );
  }
  const at = Math.max(0, body.columns.indexOf('actor'));
  const persons = body.results
    .map((row) => row[at])
    .filter((p): p is Record<string, unknown> => p !== null && typeof p === 'object')
    .map(withUuid);
  return { persons, hasMore: body.hasMore === true };
}

/**
 * An actor is a person with the UUID as `id` and no `uuid` (posthog/hogql_queries/actor_strategies.py,
 * PersonStrategy.get_actors). hogctl names a person by `uuid` in every view (ARCHITECTURE.md §3), so
 * it adds `uuid`, the same value, as the persons list sends it; `id` stays as the server sent it.
 */
function withUuid(actor: Record<string, unknown>): Record<string, unknown> {
  return 'uuid' in actor ? actor : { id: actor.id, uuid: actor.id, ...actor };
}
