// POST /persons/bulk_delete/ (docs/server-contract.md §6.6): PersonViewSet.bulk_delete, quirks included.
// Person `ids` are matched as UUIDs only (an integer matches nothing), unknown ids are skipped
// silently, the flags are Python-truthy (`"false"` is true), and the answer is a 202 with a
// summary. The answer can also take the shapes the CLI must tolerate (docs/server-contract.md §13): the empty 202 of
// older servers, or the newest deployments' `persons_queued_for_deletion` with the deletion
// applied a little later.

import type { Handler, RequestContext, Services } from '../context.js';
import { empty, json } from '../context.js';
import { methodNotAllowed, serverError, validationError } from '../errors.js';
import { deletePersons } from '../person-deletion.js';
import type { RouteSpec, Router } from '../router.js';
import { canonicalUuid, type Person } from '../store.js';
import { personsThrottle, storeFor } from '../person-viewset.js';

export const BULK_DELETE_RESPONSES = ['summary', 'queued', 'empty', 'absent'] as const;
export type BulkDeleteResponse = (typeof BULK_DELETE_RESPONSES)[number];

const MAX_IDS = 1000;

/** Python's bool(): empty containers, 0, '', None and False are false; everything else is true. */
function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/** What `len()` and iteration see: a list as it is, a string as its characters; anything else
 * has no len() and is an unhandled TypeError on the server. */
function asSequence(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return Array.from(value);
  throw serverError();
}

/**
 * `uuid__in=ids`: Django's UUIDField turns each value into a UUID first. An integer becomes
 * UUID(int=n), which names no person; a string that is not a UUID raises a Django
 * ValidationError that DRF does not handle, hence a 500.
 */
function uuidsOf(ids: unknown[]): string[] {
  const out: string[] = [];
  for (const id of ids) {
    if (typeof id === 'number' && Number.isInteger(id) && id >= 0) continue;
    const uuid = typeof id === 'string' ? canonicalUuid(id) : null;
    if (!uuid) throw serverError();
    out.push(uuid);
  }
  return out;
}

function findPersons(ctx: RequestContext, app: Services, data: Record<string, unknown>): Person[] {
  const store = storeFor(ctx, app);
  const distinctIds = data.distinct_ids;
  const ids = data.ids;
  if (truthy(distinctIds) && truthy(ids)) throw validationError('You must provide either distinct_ids or ids, not both');
  const found = new Map<number, Person>();
  if (truthy(distinctIds)) {
    const list = asSequence(distinctIds);
    if (list.length > MAX_IDS) throw validationError(`You can only pass ${MAX_IDS} distinct_ids in one call`);
    for (const d of list) {
      const person = typeof d === 'string' ? store.getByDistinctId(d) : undefined;
      if (person) found.set(person.id, person);
    }
  } else if (truthy(ids)) {
    const list = asSequence(ids);
    if (list.length > MAX_IDS) throw validationError(`You can only pass ${MAX_IDS} ids in one call`);
    for (const uuid of uuidsOf(list)) {
      const person = store.getByUuid(uuid);
      if (person) found.set(person.id, person);
    }
  } else {
    throw validationError('You need to specify either distinct_ids or ids');
  }
  return [...found.values()];
}

function bulkDeleteHandler(mode: () => BulkDeleteResponse): Handler {
  return (ctx, app) => {
    // A server from before bulk_delete: the path is the detail route of a person called
    // "bulk_delete", which takes no POST.
    if (mode() === 'absent') throw methodNotAllowed('POST', undefined, ['GET', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
    const data = ctx.data();
    // request.data.get() on a JSON list or scalar is an AttributeError: a 500.
    if (data === null || typeof data !== 'object' || Array.isArray(data)) throw serverError();
    const body = data as Record<string, unknown>;
    const persons = findPersons(ctx, app, body);
    const flags = {
      deleteEvents: truthy(body.delete_events),
      deleteRecordings: truthy(body.delete_recordings),
      keepPerson: truthy(body.keep_person),
    };
    const teamId = ctx.project!.id;
    const store = storeFor(ctx, app);
    const actor = ctx.principal?.user ?? null;
    const answer = mode();
    if (answer === 'queued') {
      // A Celery task does the work after the answer; reads right after it may still see them.
      app.later(app.applyDelayMs, () => deletePersons(app, teamId, store, persons, flags, actor));
      return json(202, {
        persons_found: persons.length,
        persons_deleted: 0,
        persons_queued_for_deletion: flags.keepPerson ? 0 : persons.length,
        events_queued_for_deletion: flags.deleteEvents && persons.length > 0,
        recordings_queued_for_deletion: flags.deleteRecordings && persons.length > 0,
        deletion_errors: [],
      });
    }
    const summary = deletePersons(app, teamId, store, persons, flags, actor);
    return answer === 'empty' ? empty(202) : json(202, summary);
  };
}

function bulkDeleteRoute(mode: () => BulkDeleteResponse): RouteSpec {
  return {
    pattern: '/api/projects/:projectId/persons/bulk_delete',
    scopeObject: 'person',
    projectParam: 'projectId',
    // parser_classes = [JSONParser]: anything else is a 415.
    parsers: 'json',
    throttle: personsThrottle,
    environmentsAlias: true,
    detail: false,
    methods: { POST: { action: 'bulk_delete', handler: bulkDeleteHandler(mode), requiredScopes: ['person:write'] } },
  };
}

/** `mode` is read on every call, so a test can switch the answer's shape while the server runs. */
export function registerBulkDeleteRoutes(router: Router, mode: () => BulkDeleteResponse): void {
  router.add(bulkDeleteRoute(mode));
}
