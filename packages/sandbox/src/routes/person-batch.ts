// POST /persons/batch_by_uuids/ and /persons/batch_by_distinct_ids/ (docs/server-contract.md §6.7):
// PersonViewSet.batch_by_uuids and batch_by_distinct_ids in PostHog/posthog
// posthog/api/person.py. Each reads the first 200 values of its list; anything but a non-empty
// list is an empty answer, not an error. Persons are MinimalPerson records: the full record with
// at most 10 distinct ids.
import type { Handler, RequestContext } from '../context.js';
import { json } from '../context.js';
import { validationError } from '../errors.js';
import { serializeRecord } from '../person-format.js';
import type { RouteSpec, Router } from '../router.js';
import { canonicalUuid, type Person } from '../store.js';
import { personsRouteDefaults, storeFor } from '../person-viewset.js';

const MAX_BATCH_SIZE = 200;

function minimalPerson(person: Person) {
  const record = serializeRecord(person);
  return { ...record, distinct_ids: record.distinct_ids.slice(0, 10) };
}

function listField(ctx: RequestContext, name: string): unknown[] | null {
  const data = ctx.data();
  const value = data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>)[name] : undefined;
  return Array.isArray(value) && value.length > 0 ? value.slice(0, MAX_BATCH_SIZE) : null;
}

export const batchByUuids: Handler = (ctx, app) => {
  const values = listField(ctx, 'uuids');
  if (!values) return json(200, { results: {} });
  // `str(uuid.UUID(u))` for each: one value that is not a UUID (or not a string) refuses them all.
  const uuids = values.map((v) => (typeof v === 'string' ? canonicalUuid(v) : null));
  if (uuids.some((u) => u === null)) throw validationError('One or more UUIDs are invalid.', 'invalid');
  const store = storeFor(ctx, app);
  const results: Record<string, unknown> = {};
  for (const uuid of uuids) {
    const person = store.getByUuid(uuid!);
    if (person) results[person.uuid] = minimalPerson(person);
  }
  return json(200, { results });
};

export const batchByDistinctIds: Handler = (ctx, app) => {
  const values = listField(ctx, 'distinct_ids');
  if (!values) return json(200, { results: {} });
  const store = storeFor(ctx, app);
  const results: Record<string, unknown> = {};
  for (const value of values) {
    const person = typeof value === 'string' ? store.getByDistinctId(value) : undefined;
    if (person) results[value as string] = minimalPerson(person);
  }
  return json(200, { results });
};

function batchRoute(name: string, handler: Handler): RouteSpec {
  return {
    ...personsRouteDefaults,
    renderers: ['json', 'csv'],
    pattern: `/api/projects/:projectId/persons/${name}`,
    detail: false,
    methods: { POST: { action: name, handler, requiredScopes: ['person:read'] } },
  };
}

export function registerPersonBatchRoutes(router: Router): void {
  router.add(batchRoute('batch_by_uuids', batchByUuids));
  router.add(batchRoute('batch_by_distinct_ids', batchByDistinctIds));
}
