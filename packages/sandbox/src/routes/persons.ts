// The persons endpoints of PostHog's PersonViewSet without a custom action (docs/server-contract.md §6):
// list and create, retrieve, update and destroy. The custom actions are in person-actions.ts,
// person-batch.ts, bulk-delete.ts and legacy-persons.ts; what they share is in person-viewset.ts.

import type { Handler, RequestContext } from '../context.js';
import { empty } from '../context.js';
import { methodNotAllowed, personDeletionFailed, swappedRequiredError, validationError } from '../errors.js';
import { formatQueryParamsAbsoluteUrl } from '../paging.js';
import { deletePersons } from '../person-deletion.js';
import { serializeListItem, serializeRecord } from '../person-format.js';
import { capturePersonSet, getPersonOr404, personsRouteDefaults, storeFor } from '../person-viewset.js';
import { compilePropertiesParam } from '../property-filter.js';
import { render } from '../render.js';
import type { RouteSpec, Router } from '../router.js';
import type { PersonFilter } from '../store.js';
import { absoluteUrl, lastParam } from '../context.js';

const DEFAULT_PAGE_LIMIT = 100;
/** The HogQL paginator clamps to MAX_SELECT_RETURNED_ROWS; `next` still uses the asked limit. */
const MAX_SELECT_RETURNED_ROWS = 50_000;
/** CSV_EXPORT_LIMIT is 300,000 on newest servers, but the ActorsQueryRunner's paginator clamps
 * to MAX_SELECT_RETURNED_ROWS first, so a CSV body holds at most 50,000 rows (docs/server-contract.md §2.1). */
const CSV_EXPORT_LIMIT = MAX_SELECT_RETURNED_ROWS;
function intParam(ctx: RequestContext, name: string): number | undefined {
  const raw = lastParam(ctx.query, name);
  if (raw === null || raw === '') return undefined;
  if (!/^\s*[+-]?\d+\s*$/.test(raw)) throw validationError('A valid integer is required.', 'invalid_input', name);
  return Number(raw);
}

/** GET /persons/ — PersonViewSet.list. */
export const listPersons: Handler = (ctx, app) => {
  const store = storeFor(ctx, app);
  // Filter(request=...) parses `properties` before anything else looks at the request.
  const properties = compilePropertiesParam(lastParam(ctx.query, 'properties'), ctx.project!.id);
  const csv = ctx.renderer === 'csv';
  let limit = intParam(ctx, 'limit') || DEFAULT_PAGE_LIMIT;
  let offset = intParam(ctx, 'offset') ?? 0;
  if (csv) {
    limit = CSV_EXPORT_LIMIT;
    offset = 0;
  }
  if (limit < 0 || offset < 0) throw validationError('limit and offset must not be negative.');

  const filter: PersonFilter = {};
  const email = lastParam(ctx.query, 'email');
  if (email) filter.email = email;
  const distinctId = lastParam(ctx.query, 'distinct_id');
  if (distinctId) filter.distinctId = distinctId;
  const search = lastParam(ctx.query, 'search');
  if (search) filter.search = search;
  if (properties) {
    filter.match = properties.match;
    filter.matchKey = properties.key;
  }

  const fetchLimit = csv ? CSV_EXPORT_LIMIT : Math.min(limit, MAX_SELECT_RETURNED_ROWS);
  const results = store.list(filter, offset, fetchLimit).map(serializeListItem);
  if (csv) return render(ctx, 200, { results });

  // A full page always links onwards, even when it is the last one (the next page is empty).
  const shouldPaginate = results.length >= limit;
  const url = absoluteUrl(ctx);
  const body: Record<string, unknown> = {
    results,
    next: shouldPaginate ? formatQueryParamsAbsoluteUrl(url, offset + limit) : null,
    // offset - limit == 0 leaves the URL as it is (the server's falsy-offset quirk).
    previous: offset - limit >= 0 ? formatQueryParamsAbsoluteUrl(url, offset - limit) : null,
  };
  if (ctx.query.has('include_total')) body.count = store.count(filter);
  return render(ctx, 200, body);
};

/** GET /persons/{id}/ — integer id or UUID. */
export const retrievePerson: Handler = (ctx, app) => render(ctx, 200, serializeRecord(getPersonOr404(ctx, app)));

/** POST /persons/ — creating persons is refused with a pointer to $identify. */
export const createPerson: Handler = () => {
  throw methodNotAllowed(
    'POST',
    'Creating persons via this API is not allowed. Please create persons by sending an $identify event. See https://posthog.com/docs/product-analytics/identify for details.',
  );
};

/** PATCH and PUT /persons/{id}/ — `update()` only ever $sets `properties`. */
const updatePerson: Handler = (ctx, app) => {
  const data = ctx.data();
  const properties =
    data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>).properties : undefined;
  if (properties === undefined || properties === null) throw swappedRequiredError('properties');
  capturePersonSet(ctx, app, getPersonOr404(ctx, app), properties);
  return empty(202);
};

/**
 * DELETE /persons/{id}/ — flags count when present, whatever their value (docs/server-contract.md §6.5).
 * A person that could not be deleted is a 503 `person_deletion_failed` (PostHog/posthog#103144).
 */
const destroyPerson: Handler = (ctx, app) => {
  const person = getPersonOr404(ctx, app);
  const summary = deletePersons(
    app,
    ctx.project!.id,
    storeFor(ctx, app),
    [person],
    {
      deleteEvents: ctx.query.has('delete_events'),
      deleteRecordings: ctx.query.has('delete_recordings'),
      keepPerson: ctx.query.has('keep_person'),
    },
    ctx.principal?.user ?? null,
  );
  if (summary.deletion_errors.length) throw personDeletionFailed('delete_postgres');
  return empty(202);
};

const common = personsRouteDefaults;

const personsListRoute: RouteSpec = {
  ...common,
  renderers: ['json', 'csv'],
  pattern: '/api/projects/:projectId/persons',
  detail: false,
  methods: {
    GET: { action: 'list', handler: listPersons },
    POST: { action: 'create', handler: createPerson },
  },
};

const personDetailRoute: RouteSpec = {
  ...common,
  renderers: ['json', 'csv'],
  pattern: '/api/projects/:projectId/persons/:id',
  detail: true,
  methods: {
    GET: { action: 'retrieve', handler: retrievePerson },
    PATCH: { action: 'partial_update', handler: updatePerson },
    PUT: { action: 'update', handler: updatePerson },
    DELETE: { action: 'destroy', handler: destroyPerson },
  },
};

export function registerPersonRoutes(router: Router): void {
  router.add(personsListRoute);
  router.add(personDetailRoute);
}
