// The custom actions of the persons viewset that write, and their read-backs
// (docs/server-contract.md §4 and §6.4–§6.7): update_property, delete_property, split, delete_events,
// delete_recordings, reset_person_distinct_id, activity and deletion_status. Writes that the real
// server routes through ingestion (`$set`, `$delete_person_property`, the split task) answer at
// once and change the store after `applyDelayMs`, so reads right after them are stale, as in
// PostHog.

import type { Handler, RequestContext, Services } from '../context.js';
import { empty, lastParam } from '../context.js';
import { fieldError, rawError, serverError, swappedRequiredError, validationError } from '../errors.js';
import { serializeEntry } from '../activity-log.js';
import { drfLimitOffsetPage, formatQueryParamsAbsoluteUrl } from '../paging.js';
import { render } from '../render.js';
import type { RouteSpec, Router } from '../router.js';
import { canonicalUuid, formatTimestampUs } from '../store.js';
import { uuidFromDistinctId } from '../person-uuid.js';
import { capturePersonSet, getPersonOr404, personsRouteDefaults, storeFor } from '../person-viewset.js';
import { absoluteUrl } from '../context.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function teamOf(ctx: RequestContext): number {
  return ctx.project!.id;
}

function actorOf(ctx: RequestContext) {
  return ctx.principal?.user ?? null;
}

/** POST /persons/{id}/update_property/ — `value` may be null, but must be present. */
export const updateProperty: Handler = (ctx, app) => {
  const data = ctx.data();
  if (!isObject(data) || !('value' in data)) throw swappedRequiredError('value');
  if (data.key === undefined || data.key === null) throw swappedRequiredError('key');
  capturePersonSet(ctx, app, getPersonOr404(ctx, app), { [String(data.key)]: data.value });
  return empty(202);
};

/**
 * POST /persons/{id}/delete_property/ — `{"$unset": key}`. The view looks the person up without
 * get_object, so an unknown person is an unhandled DoesNotExist (500), as is a missing `$unset`
 * (KeyError). A key that is not a string stands in for the capture failures that answer
 * `{"success": false, "detail": "Unable to delete property"}`.
 */
export const deleteProperty: Handler = (ctx, app) => {
  const store = storeFor(ctx, app);
  const person = store.getByIdOrUuid(canonicalUuid(ctx.params.id) ?? ctx.params.id);
  if (!person) throw serverError();
  const data = ctx.data();
  if (!isObject(data) || !('$unset' in data)) throw serverError();
  const key = data.$unset;
  if (typeof key !== 'string') throw rawError(400, { success: false, detail: 'Unable to delete property' });
  const distinctId = person.distinctIds[0];
  const personless = ctx.project!.personProcessingOptOut;
  app.later(app.applyDelayMs, () => {
    const target = store.getByDistinctId(distinctId);
    if (target && !personless) store.unsetProperties(target.id, [key]);
  });
  app.activity.log({
    teamId: teamOf(ctx),
    itemId: person.id,
    activity: 'delete_property',
    user: actorOf(ctx),
    detail: { name: person.uuid, changes: [{ type: 'Person', action: 'changed' }] },
  });
  return render(ctx, 201, { success: true });
};

/** Python's repr() of a list of strings, as the split error message shows it. */
function pyListRepr(values: string[]): string {
  const repr = (s: string) => (s.includes("'") && !s.includes('"') ? `"${s}"` : `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`);
  return `[${values.map(repr).join(', ')}]`;
}

/** POST /persons/{id}/split/ — validates, answers 201, and the split task runs afterwards. */
export const splitPerson: Handler = (ctx, app) => {
  const store = storeFor(ctx, app);
  const person = getPersonOr404(ctx, app);
  const data = ctx.data();
  const body = isObject(data) ? data : {};
  const main = body.main_distinct_id ?? null;
  const toSplit = body.distinct_ids_to_split ?? null;
  const distinctIds = [...person.distinctIds];

  if (toSplit !== null) {
    if (!Array.isArray(toSplit) || !toSplit.every((d) => typeof d === 'string')) {
      throw fieldError('distinct_ids_to_split', 'invalid_input', 'must be a list of strings');
    }
    if (toSplit.length === 0) throw fieldError('distinct_ids_to_split', 'invalid_input', 'must not be empty');
    if (main !== null) throw validationError('main_distinct_id cannot be combined with distinct_ids_to_split');
    const unknown = [...new Set(toSplit.filter((d) => !distinctIds.includes(d)))].sort();
    if (unknown.length > 0) throw fieldError('distinct_ids_to_split', 'invalid_input', `not on this person: ${pyListRepr(unknown)}`);
  }

  const teamId = teamOf(ctx);
  // Person.split_person: without a list, everything but the main distinct id (default: the first)
  // moves off, each onto its own person; the original keeps its properties.
  const keep = typeof main === 'string' ? main : distinctIds[0];
  const moving = toSplit !== null ? [...new Set(toSplit as string[])] : distinctIds.filter((d) => d !== keep);
  app.later(app.applyDelayMs, () => {
    for (const distinctId of moving) {
      // Gone meanwhile (the person was deleted): nothing left to split.
      if (!store.getByDistinctId(distinctId)) continue;
      const uuid = uuidFromDistinctId(teamId, distinctId);
      const target = store.getByUuid(uuid) ?? store.addPerson({ uuid, createdAtUs: Math.round(app.now() * 1000), distinctIds: [] });
      store.moveDistinctId(distinctId, target.id);
    }
  });

  const after: Record<string, unknown> = { distinct_ids: distinctIds };
  if (toSplit !== null) after.distinct_ids_to_split = [...(toSplit as string[])];
  app.activity.log({
    teamId,
    itemId: person.id,
    activity: 'split_person',
    user: actorOf(ctx),
    detail: { name: person.uuid, changes: [{ type: 'Person', action: 'split', after }] },
  });
  return render(ctx, 201, { success: true });
};

/** POST /persons/{id}/delete_events/ (deprecated): queues the AsyncDeletion only. */
export const deleteEvents: Handler = (ctx, app) => {
  const person = getPersonOr404(ctx, app);
  app.deletions.queueEvents(teamOf(ctx), person.uuid, actorOf(ctx));
  return empty(202);
};

/** POST /persons/{id}/delete_recordings/ (deprecated): starts the recordings workflow only. */
export const deleteRecordings: Handler = (ctx, app) => {
  const person = getPersonOr404(ctx, app);
  app.deletions.queueRecordings(teamOf(ctx), person.uuid, person.distinctIds);
  return empty(202);
};

/**
 * POST /persons/reset_person_distinct_id/ — posthog/models/person/deletion.py
 * reset_deleted_person_distinct_ids: raises the id's version above its deleted rows for the person
 * that holds it now, which makes a person created for it since the deletion visible. An id that
 * no person holds yet is left as it is (the server logs "hasn't been re-used yet and can cause
 * problems in the future"), so a later event still makes a hidden person.
 */
export const resetPersonDistinctId: Handler = (ctx, app) => {
  const data = ctx.data();
  const distinctId = isObject(data) ? data.distinct_id : undefined;
  if (typeof distinctId !== 'string' || distinctId === '') throw validationError('distinct_id is required');
  const store = storeFor(ctx, app);
  if (store.getByDistinctId(distinctId)) store.unblockDistinctId(distinctId);
  return empty(202);
};

/** int(request.query_params.get(name, default)): anything else is an unhandled ValueError. */
function pyIntParam(ctx: RequestContext, name: string, fallback: number): number {
  const raw = lastParam(ctx.query, name);
  if (raw === null) return fallback;
  if (!/^\s*[+-]?\d+\s*$/.test(raw)) throw serverError();
  return Number(raw);
}

/** load_activity + activity_page_response: page-numbered, `next`/`previous` via `page=`. */
function activityPage(ctx: RequestContext, app: Services, itemIds?: string[]) {
  const limit = pyIntParam(ctx, 'limit', 10);
  const page = pyIntParam(ctx, 'page', 1);
  // Django's Paginator refuses a page below 1 and a page size below 1.
  if (limit < 1 || page < 1) throw serverError();
  const entries = app.activity.find(teamOf(ctx), 'Person', itemIds);
  const start = (page - 1) * limit;
  const url = absoluteUrl(ctx);
  return render(ctx, 200, {
    results: entries.slice(start, start + limit).map(serializeEntry),
    next: entries.length > page * limit ? formatQueryParamsAbsoluteUrl(url, page + 1, limit, 'page') : null,
    previous: page > 1 ? formatQueryParamsAbsoluteUrl(url, page - 1, limit, 'page') : null,
    total_count: entries.length,
  });
}

/** GET /persons/activity/ — the whole project. */
export const allActivity: Handler = (ctx, app) => activityPage(ctx, app);

/** GET /persons/{id}/activity/ — one person, found like any detail action (so 404 once deleted). */
export const personActivity: Handler = (ctx, app) => activityPage(ctx, app, [String(getPersonOr404(ctx, app).id)]);

const STATUS_CHOICES = ['pending', 'completed', 'all'];

/** GET /persons/deletion_status/ — the project's queued event deletions, limit/offset paged. */
export const deletionStatus: Handler = (ctx, app) => {
  const status = lastParam(ctx.query, 'status') ?? 'all';
  if (!STATUS_CHOICES.includes(status)) throw fieldError('status', 'invalid_choice', `"${status}" is not a valid choice.`);
  const rawUuid = lastParam(ctx.query, 'person_uuid');
  const personUuid = rawUuid === null ? null : canonicalUuid(rawUuid);
  if (rawUuid !== null && personUuid === null) throw fieldError('person_uuid', 'invalid_input', 'Must be a valid UUID.');
  const rows = app.deletions
    .eventDeletions(teamOf(ctx))
    .filter((d) => status === 'all' || (status === 'pending') === (d.deleteVerifiedAtMs === null))
    .filter((d) => personUuid === null || d.key === personUuid);
  // Only the page's rows are rendered: a client pages through thousands of them 100 at a time.
  const page = drfLimitOffsetPage(ctx, rows, 100);
  return render(ctx, 200, {
    ...page,
    results: page.results.map((d) => ({
      person_uuid: d.key,
      created_at: formatTimestampUs(d.createdAtMs * 1000),
      status: d.deleteVerifiedAtMs === null ? 'pending' : 'completed',
      delete_verified_at: d.deleteVerifiedAtMs === null ? null : formatTimestampUs(d.deleteVerifiedAtMs * 1000),
    })),
  });
};

const common = {
  ...personsRouteDefaults,
  // The viewset's renderers (JSON and PaginatedCSVRenderer) apply to every action.
  renderers: ['json', 'csv'],
} as const satisfies Partial<RouteSpec>;

const WRITE = ['person:write'];

function detailAction(name: string, method: 'GET' | 'POST', handler: Handler, requiredScopes: string[]): RouteSpec {
  return {
    ...common,
    renderers: [...common.renderers],
    pattern: `/api/projects/:projectId/persons/:id/${name}`,
    detail: true,
    methods: { [method]: { action: name, handler, requiredScopes } },
  };
}

function listAction(name: string, method: 'GET' | 'POST', handler: Handler, requiredScopes: string[], action = name): RouteSpec {
  return {
    ...common,
    renderers: [...common.renderers],
    pattern: `/api/projects/:projectId/persons/${name}`,
    detail: false,
    methods: { [method]: { action, handler, requiredScopes } },
  };
}

export function registerPersonActionRoutes(router: Router): void {
  router.add(detailAction('update_property', 'POST', updateProperty, WRITE));
  router.add(detailAction('delete_property', 'POST', deleteProperty, WRITE));
  router.add(detailAction('split', 'POST', splitPerson, WRITE));
  router.add(detailAction('delete_events', 'POST', deleteEvents, WRITE));
  router.add(detailAction('delete_recordings', 'POST', deleteRecordings, WRITE));
  router.add(detailAction('activity', 'GET', personActivity, ['activity_log:read']));
  router.add(listAction('activity', 'GET', allActivity, ['activity_log:read'], 'all_activity'));
  router.add(listAction('deletion_status', 'GET', deletionStatus, ['person:read']));
  router.add(listAction('reset_person_distinct_id', 'POST', resetPersonDistinctId, WRITE));
}
