// What every route of PostHog's PersonViewSet shares (posthog/api/person.py): its scope object,
// project, parsers and throttles, and how an action finds the project's persons and the person
// its URL names (`safely_get_object`). The persons routes live in routes/persons.ts,
// routes/person-actions.ts, routes/person-batch.ts, routes/bulk-delete.ts and
// routes/legacy-persons.ts.

import type { Principal } from './auth.js';
import type { RequestContext, Services } from './context.js';
import { notFound, validationError } from './errors.js';
import type { ThrottleClass } from './rate-limit.js';
import type { RouteSpec } from './router.js';
import { valuesAsJsonb } from './jsonb.js';
import { canonicalUuid, type Person, type SandboxStore } from './store.js';

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

/** What every route of the persons viewset shares: scope object, project, parsers, throttles. */
export const personsRouteDefaults = {
  scopeObject: 'person',
  projectParam: 'projectId',
  parsers: 'json',
  throttle: personsThrottle,
  environmentsAlias: true,
} as const satisfies Partial<RouteSpec>;

/**
 * A `$set` event for the person's first distinct id, as `_set_properties` captures it. Ingestion
 * resolves the distinct id when the event is processed, so a person deleted meanwhile stays
 * deleted; a non-object `$set` is dropped, as capture failures are ignored.
 */
export function capturePersonSet(ctx: RequestContext, app: Services, person: Person, set: unknown): void {
  const store = storeFor(ctx, app);
  const distinctId = person.distinctIds[0];
  // The event goes through ingestion like any other: personless when the project opted out of
  // person processing, and stored as jsonb keeps values (capture.ts).
  const personless = ctx.project!.personProcessingOptOut;
  app.later(app.applyDelayMs, () => {
    const target = store.getByDistinctId(distinctId);
    if (target && set !== null && typeof set === 'object' && !Array.isArray(set) && !personless)
      store.setProperties(target.id, valuesAsJsonb(set as Record<string, unknown>));
  });
  app.activity.log({
    teamId: ctx.project!.id,
    itemId: person.id,
    activity: 'updated',
    user: ctx.principal?.user ?? null,
    detail: { changes: [{ type: 'Person', action: 'changed', field: 'properties' }] },
  });
}
