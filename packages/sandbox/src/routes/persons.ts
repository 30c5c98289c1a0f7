// Persons endpoints (docs/server-contract.md §6). Later work adds update, destroy, bulk_delete and the
// other actions here; each is one entry in `methods` plus a handler.

import type { Principal } from '../auth.js';
import type { Handler, RequestContext, Services } from '../context.js';
import { methodNotAllowed, notFound, validationError } from '../errors.js';
import { formatQueryParamsAbsoluteUrl } from '../paging.js';
import { serializeListItem, serializeRecord } from '../person-format.js';
import { compilePropertiesParam } from '../property-filter.js';
import type { ThrottleClass } from '../rate-limit.js';
import { render } from '../render.js';
import type { RouteSpec, Router } from '../router.js';
import { canonicalUuid, type PersonFilter, type SandboxStore } from '../store.js';
import { absoluteUrl, lastParam } from '../context.js';

const DEFAULT_PAGE_LIMIT = 100;
/** The HogQL paginator clamps to MAX_SELECT_RETURNED_ROWS; `next` still uses the asked limit. */
const MAX_SELECT_RETURNED_ROWS = 50_000;
/** CSV_EXPORT_LIMIT is 300,000 on newest servers, but the ActorsQueryRunner's paginator clamps
 * to MAX_SELECT_RETURNED_ROWS first, so a CSV body holds at most 50,000 rows (docs/server-contract.md §0). */
const CSV_EXPORT_LIMIT = MAX_SELECT_RETURNED_ROWS;
const DELETE_ACTIONS = new Set(['destroy', 'bulk_delete', 'delete_events', 'delete_recordings']);

/** PersonViewSet.get_throttles: keys get delete or ClickHouse limits, sessions the web limits. */
export function personsThrottle(principal: Principal | null, action: string | null): ThrottleClass {
  if (principal?.kind === 'personal_api_key') return action !== null && DELETE_ACTIONS.has(action) ? 'delete' : 'read';
  return 'web';
}

export function storeFor(ctx: RequestContext, app: Services): SandboxStore {
  const store = ctx.project && app.stores.get(ctx.project.id);
  if (!store) throw notFound('Project not found.');
  return store;
}

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

/** PersonViewSet.safely_get_object's id check: a UUID or something Python's int() accepts. */
function looksLikePersonId(id: string): boolean {
  return canonicalUuid(id) !== null || /^\s*[+-]?\d+(_\d+)*\s*$/.test(id);
}

export function getPersonOr404(ctx: RequestContext, app: Services) {
  const id = ctx.params.id;
  if (!looksLikePersonId(id)) {
    throw validationError(
      `The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=${id} instead.`,
    );
  }
  const person = storeFor(ctx, app).getByIdOrUuid(canonicalUuid(id) ?? id.replace(/_/g, ''));
  if (!person) throw notFound();
  return person;
}

/** GET /persons/{id}/ — integer id or UUID. */
export const retrievePerson: Handler = (ctx, app) => render(ctx, 200, serializeRecord(getPersonOr404(ctx, app)));

/** POST /persons/ — creating persons is refused with a pointer to $identify. */
export const createPerson: Handler = () => {
  throw methodNotAllowed(
    'POST',
    'Creating persons via this API is not allowed. Please create persons by sending an $identify event. See https://posthog.com/docs/product-analytics/identify for details.',
  );
};

/** What every route of the persons viewset shares: scope object, project, parsers, throttles. */
export const personsRouteDefaults = {
  scopeObject: 'person',
  projectParam: 'projectId',
  parsers: 'json',
  throttle: personsThrottle,
  environmentsAlias: true,
} as const satisfies Partial<RouteSpec>;

const common = personsRouteDefaults;

export const personsListRoute: RouteSpec = {
  ...common,
  renderers: ['json', 'csv'],
  pattern: '/api/projects/:projectId/persons',
  detail: false,
  methods: {
    GET: { action: 'list', handler: listPersons },
    POST: { action: 'create', handler: createPerson },
  },
};

export const personDetailRoute: RouteSpec = {
  ...common,
  renderers: ['json', 'csv'],
  pattern: '/api/projects/:projectId/persons/:id',
  detail: true,
  methods: {
    GET: { action: 'retrieve', handler: retrievePerson },
  },
};

export function registerPersonRoutes(router: Router): void {
  router.add(personsListRoute);
  router.add(personDetailRoute);
}
