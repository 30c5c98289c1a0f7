// The HogQL query endpoint (docs/server-contract.md §7): POST /api/projects/{id}/query/ with a
// HogQLQuery over the persons and events tables, and GET (poll) and DELETE (cancel) /query/{query_id}/
// for queries run with an async `refresh` mode, within PostHog's time and size limits
// (query-limits.ts). Scope query:read for every action; personal keys count against the query
// limits; OFFSET is refused for personal keys before the query runs, with the server's words.

import { randomUUID } from 'node:crypto';
import type { Handler, RequestContext, Services } from '../context.js';
import { json } from '../context.js';
import { ErrorResponse, fieldError, notFound, validationError } from '../errors.js';
import { HogQLError, type SelectQuery } from '../hogql/types.js';
import { loadHogQLParser, parseSelect } from '../hogql/posthog-grammar.js';
import { runSelect } from '../hogql/execute.js';
import type { RouteSpec, Router } from '../router.js';
import { storeFor } from '../person-viewset.js';
import { runActorsQuery } from '../actors-query.js';
import { querySize, querySizeExceeded, queryTimedOut, simulatedMs } from '../query-limits.js';

export const OFFSET_REFUSED =
  'OFFSET is not supported on queries made with a personal API key. For pagination, use keyset pagination on the `timestamp` column, e.g. `WHERE timestamp > :last_seen_timestamp ORDER BY timestamp LIMIT N`. For bulk data extraction, use batch exports: https://posthog.com/docs/cdp/batch-exports';

const REFRESH_MODES = ['blocking', 'force_blocking', 'async', 'force_async', 'lazy_async', 'force_cache', 'async_except_on_cache_miss'];
const ASYNC_MODES = new Set(['async', 'force_async', 'lazy_async']);

interface QueryRequest {
  kind: string;
  query: string;
  values: Record<string, unknown>;
  refresh: string;
  async: boolean;
  name?: string;
  clientQueryId?: string;
}

function readRequest(data: unknown): QueryRequest {
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw validationError('Invalid data. Expected a dictionary.', 'invalid');
  const body = data as Record<string, unknown>;
  const query = body.query;
  if (query === undefined || query === null) throw fieldError('query', 'required', 'This field is required.');
  if (typeof query !== 'object' || Array.isArray(query))
    throw fieldError('query', 'invalid_input', 'Input should be a valid dictionary or object.');
  const q = query as Record<string, unknown>;
  if (q.kind !== 'HogQLQuery') {
    throw validationError(`Unsupported query kind: ${JSON.stringify(q.kind ?? null)}. The hogctl sandbox runs HogQLQuery only.`);
  }
  if (typeof q.query !== 'string') throw fieldError('query', 'invalid_input', 'query.query: Input should be a valid string');
  const values = q.values ?? {};
  if (typeof values !== 'object' || values === null || Array.isArray(values))
    throw fieldError('query', 'invalid_input', 'query.values: Input should be a valid dictionary');
  const refresh = body.refresh ?? 'blocking';
  if (typeof refresh !== 'string' || !REFRESH_MODES.includes(refresh)) {
    throw fieldError('refresh', 'invalid_input', `Input should be ${REFRESH_MODES.map((m) => `'${m}'`).join(', ')}`);
  }
  if (body.name !== undefined && body.name !== null && (typeof body.name !== 'string' || body.name.length > 128)) {
    throw fieldError('name', 'invalid_input', 'String should have at most 128 characters');
  }
  return {
    kind: q.kind,
    query: q.query,
    values: values as Record<string, unknown>,
    refresh,
    async: body.async === true,
    name: typeof body.name === 'string' ? body.name : undefined,
    clientQueryId: typeof body.client_query_id === 'string' ? body.client_query_id : undefined,
  };
}

/** The query as PostHog's grammar parses it (hogql/posthog-grammar.ts): its syntax errors, and
 * what the sandbox cannot run, are the 400 `validation_error` the server answers a HogQL error with. */
function parse(text: string): SelectQuery {
  try {
    return parseSelect(text);
  } catch (error) {
    if (error instanceof HogQLError) throw validationError(error.message);
    throw error;
  }
}

/** Runs a query within PostHog's limits (query-limits.ts): the size of its SQL text, then, for a
 * blocking query sent with a personal key, the time ceiling. `tookMs` is its simulated time. */
function run(ctx: RequestContext, app: Services, request: QueryRequest, query: SelectQuery, blocking: boolean) {
  const store = storeFor(ctx, app);
  const limits = app.queryLimits;
  if (querySize(request.query, request.values) > limits.maxQuerySize) throw querySizeExceeded();
  try {
    const read = { rows: 0 };
    const result = runSelect({
      query,
      values: request.values,
      store,
      events: app.events.get(ctx.project!.id),
      teamId: ctx.project!.id,
      read,
    });
    const tookMs = simulatedMs(read.rows, limits);
    const ceiling = limits.timeLimitSeconds;
    if (blocking && ceiling !== null && ctx.principal?.kind === 'personal_api_key' && tookMs > ceiling * 1000) throw queryTimedOut(ceiling);
    const now = new Date(app.now()).toISOString();
    return {
      tookMs,
      ...result,
      hogql: request.query,
      timings: [],
      modifiers: {},
      is_cached: false,
      cache_key: `cache_sandbox_${ctx.project!.id}_${Buffer.from(request.query).toString('base64url').slice(0, 24)}`,
      last_refresh: now,
      next_allowed_client_refresh: now,
      query_status: null,
    };
  } catch (error) {
    if (error instanceof HogQLError) throw validationError(error.message);
    throw error;
  }
}

interface QueryStatus {
  id: string;
  team_id: number;
  complete: boolean;
  error: boolean;
  error_message: string | null;
  results: unknown;
  start_time: string;
  end_time: string | null;
  expiration_time: string | null;
  query_async: true;
  query_progress: null;
  dashboard_id: null;
  insight_id: null;
  labels: null;
  pickup_time: string | null;
}

export function registerQueryRoutes(router: Router): void {
  // Queries started with an async refresh mode; each completes applyDelayMs after it started.
  const running = new Map<string, { status: QueryStatus; doneAt: number; result: unknown; failure?: string }>();

  const create: Handler = async (ctx, app) => {
    const data = ctx.data() as { query?: { kind?: unknown } } | null;
    if (data?.query && typeof data.query === 'object' && data.query.kind === 'ActorsQuery') {
      return json(200, runActorsQuery(data.query as Record<string, unknown>, storeFor(ctx, app)));
    }
    const request = readRequest(ctx.data());
    await loadHogQLParser();
    const query = parse(request.query);
    // validate_user_query runs before anything else, and only for personal keys.
    if (ctx.principal?.kind === 'personal_api_key' && query.offset !== undefined) throw validationError(OFFSET_REFUSED);
    const isAsync = ASYNC_MODES.has(request.refresh) || request.async;
    if (!isAsync) {
      const { tookMs: _, ...answer } = run(ctx, app, request, query, true);
      return json(200, answer);
    }
    // Run in the background: a failure shows in the poll (400 with query_status.error and
    // error_message, docs/server-contract.md §7.2), not in this answer.
    let result: Omit<ReturnType<typeof run>, 'tookMs'> | undefined;
    let failure: string | undefined;
    let tookMs = 0;
    try {
      ({ tookMs, ...result } = run(ctx, app, request, query, false));
    } catch (error) {
      if (!(error instanceof ErrorResponse)) throw error;
      failure = (error.body as { detail?: string }).detail ?? 'Query failed';
    }

    const id = request.clientQueryId ?? randomUUID();
    const started = new Date(app.now()).toISOString();
    const status: QueryStatus = {
      id,
      team_id: ctx.project!.id,
      complete: false,
      error: false,
      error_message: null,
      results: null,
      start_time: started,
      end_time: null,
      expiration_time: null,
      query_async: true,
      query_progress: null,
      dashboard_id: null,
      insight_id: null,
      labels: null,
      pickup_time: started,
    };
    // It completes after its simulated time, or the apply delay when that is longer.
    running.set(`${ctx.project!.id}:${id}`, { status, doneAt: app.now() + Math.max(app.applyDelayMs, tookMs), result, failure });
    return json(202, { cache_key: result?.cache_key ?? `cache_sandbox_${ctx.project!.id}_failed`, query_status: status });
  };

  const retrieve: Handler = (ctx, app) => {
    const entry = running.get(`${ctx.project!.id}:${ctx.params.queryId}`);
    if (!entry) throw notFound('Query not found.');
    if (!entry.status.complete && app.now() >= entry.doneAt) {
      const end = new Date(app.now()).toISOString();
      entry.status =
        entry.failure === undefined
          ? { ...entry.status, complete: true, results: entry.result, end_time: end, expiration_time: end }
          : { ...entry.status, complete: true, error: true, error_message: entry.failure, end_time: end, expiration_time: end };
    }
    if (entry.status.error) return json(400, { query_status: entry.status });
    return json(entry.status.complete ? 200 : 202, { query_status: entry.status });
  };

  // QueryViewSet.destroy (posthog/api/query.py): cancel_query revokes the task and forgets the
  // status, answering 200 with a message; a later poll finds no query.
  const destroy: Handler = (ctx, app) => {
    const key = `${ctx.project!.id}:${ctx.params.queryId}`;
    const entry = running.get(key);
    const done = entry !== undefined && (entry.status.complete || app.now() >= entry.doneAt);
    running.delete(key);
    return json(200, { message: done ? 'Query already complete' : 'Query task revoked' });
  };

  const common = {
    scopeObject: 'query',
    projectParam: 'projectId',
    environmentsAlias: true,
    // Query throttles are personal-key throttles; only creating a query counts.
    throttle: (principal, action) => (principal?.kind === 'personal_api_key' && action === 'create' ? 'query' : null),
  } as const satisfies Partial<RouteSpec>;

  router.add({
    ...common,
    pattern: '/api/projects/:projectId/query',
    detail: false,
    methods: { POST: { action: 'create', handler: create, requiredScopes: ['query:read'] } },
  });
  router.add({
    ...common,
    pattern: '/api/projects/:projectId/query/:queryId',
    detail: true,
    methods: {
      GET: { action: 'retrieve', handler: retrieve, requiredScopes: ['query:read'] },
      DELETE: { action: 'destroy', handler: destroy, requiredScopes: ['query:read'] },
    },
  });
}
