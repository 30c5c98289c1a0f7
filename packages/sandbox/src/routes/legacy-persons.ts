// The persons actions behind insights (docs/server-contract.md §3.3, §6.7): cohorts (person:read +
// cohort:read), and properties_timeline, funnel and lifecycle, which have no scope mapping: the
// dispatcher refuses personal keys with 403 "This action does not support personal API key
// access" before these handlers run, and a signed-in session reaches them.
//
// /persons/funnel/correlation/ is deliberately absent: the newest server removed it, so the
// sandbox answers 404 like it does (the CLI says the server no longer offers it).
//
// The answers are plausible rather than computed from events: who is in a funnel step or a
// lifecycle bucket is insight-people.ts's deterministic function of the person.

import { absoluteUrl, json, lastParam, type Handler, type RequestContext } from '../context.js';
import { cohortCount, cohortsOf } from '../cohorts.js';
import { rawError, serverError, validationError } from '../errors.js';
import { formatQueryParamsAbsoluteUrl } from '../paging.js';
import { serializeListItem } from '../person-format.js';
import { hash32 } from '../prng.js';
import { funnelPeople, lifecyclePeople } from '../insight-people.js';
import type { Router } from '../router.js';
import { formatTimestampUs, type Person } from '../store.js';
import { findProject } from '../world.js';
import { getPersonOr404, personsRouteDefaults, storeFor } from '../person-viewset.js';

const PAGE = 100;
const DAY_US = 86_400e6;

/** Request parameters as the legacy Filter reads them: the query string, then the JSON body. */
function filterParams(ctx: RequestContext): Map<string, unknown> {
  const params = new Map<string, unknown>();
  for (const key of new Set(ctx.query.keys())) params.set(key, lastParam(ctx.query, key));
  if (ctx.method === 'POST') {
    const data = ctx.data();
    if (data && typeof data === 'object' && !Array.isArray(data)) for (const [k, v] of Object.entries(data)) params.set(k, v);
  }
  return params;
}

function intParam(params: Map<string, unknown>, name: string, fallback: number): number {
  const raw = params.get(name);
  if (raw === undefined || raw === null || raw === '') return fallback;
  const n = typeof raw === 'number' ? raw : Number(String(raw).trim());
  if (!Number.isInteger(n)) throw validationError(`${name} must be an integer.`);
  return n;
}

/** `events` or `actions` as a JSON array (a string in the query, a list in a body). */
function entityList(params: Map<string, unknown>, name: string): unknown[] {
  const raw = params.get(name);
  if (raw === undefined || raw === null || raw === '') return [];
  if (Array.isArray(raw)) return raw;
  try {
    const parsed = JSON.parse(String(raw));
    if (Array.isArray(parsed)) return parsed;
  } catch {
    // fall through
  }
  throw validationError(`${name} must be a JSON list.`);
}

/** A page of people in the legacy envelope, with `next` when the page was full (paginated_result). */
function peoplePage(ctx: RequestContext, people: Person[], offset: number, limit: number) {
  const page = people.slice(offset, offset + limit).map(serializeListItem);
  return {
    results: [{ people: page, count: page.length }],
    next: page.length >= limit ? formatQueryParamsAbsoluteUrl(absoluteUrl(ctx), offset + limit) : null,
  };
}

/** GET /persons/cohorts/?person_id= — the cohorts of the user's *current* team that hold the person. */
const cohorts: Handler = (ctx, app) => {
  const user = ctx.principal!.user;
  const team = findProject(app.world, user.currentTeamId);
  if (!team) {
    throw rawError(400, { message: 'Could not retrieve team', detail: 'Could not validate team associated with user' });
  }
  const personId = lastParam(ctx.query, 'person_id');
  // request.GET["person_id"] raises KeyError, and get_pk_or_uuid(...).get() Person.DoesNotExist:
  // neither is an API exception, so both are plain 500s on the server.
  if (personId === null) throw serverError();
  const person = storeFor(ctx, app).getByIdOrUuid(personId.trim());
  if (!person) throw serverError();
  // Membership is looked up by uuid in the current team, whatever project the URL names.
  const teamStore = app.stores.get(team.id);
  const member = teamStore?.getByUuid(person.uuid);
  const results = member
    ? cohortsOf(team.id)
        .filter((c) => !c.deleted && c.matches(member))
        .map((c) => ({ id: c.id, name: c.name, count: cohortCount(teamStore!, c) }))
    : [];
  return json(200, { results });
};

/** GET /persons/{id}/properties_timeline/ — how the person's properties changed over time. */
const propertiesTimeline: Handler = (ctx, app) => {
  const person = getPersonOr404(ctx, app);
  const params = filterParams(ctx);
  const breakdown = params.get('breakdown');
  const keys =
    breakdown === undefined || breakdown === null || breakdown === ''
      ? []
      : Array.isArray(breakdown)
        ? breakdown.map(String)
        : [String(breakdown)];
  const events = 1 + (hash32(person.id, 0x71) % 40);
  const points = [];
  // A paying person started on the free plan; the upgrade is the second point.
  if (person.properties.plan !== undefined && person.properties.plan !== 'free') {
    const upgradedUs = person.createdAtUs + (1 + (hash32(person.id, 0x72) % 30)) * DAY_US;
    points.push({
      timestamp: person.createdAt,
      properties: { ...person.properties, plan: 'free' },
      relevant_event_count: Math.ceil(events / 3),
    });
    points.push({
      timestamp: formatTimestampUs(upgradedUs),
      properties: person.properties,
      relevant_event_count: events - Math.ceil(events / 3),
    });
  } else {
    points.push({ timestamp: person.createdAt, properties: person.properties, relevant_event_count: events });
  }
  const dateFrom = params.get('date_from');
  const dateTo = params.get('date_to');
  return json(200, {
    points,
    crucial_property_keys: keys,
    effective_date_from: typeof dateFrom === 'string' && dateFrom ? dateFrom : person.createdAt,
    effective_date_to: typeof dateTo === 'string' && dateTo ? dateTo : new Date(app.now()).toISOString(),
  });
};

/** GET/POST /persons/funnel/ — who completed (funnel_step > 0) or dropped off at (< 0) a step. */
const funnel: Handler = (ctx, app) => {
  const params = filterParams(ctx);
  const steps = entityList(params, 'events').length + entityList(params, 'actions').length;
  if (steps < 2) throw validationError('Funnels require at least two steps before calculating.');
  const step = intParam(params, 'funnel_step', 1);
  if (step === 0 || Math.abs(step) > steps)
    throw validationError(`funnel_step must be between 1 and ${steps}, or between -${steps} and -1 for drop-offs.`);
  const offset = Math.max(0, intParam(params, 'offset', 0));
  const limit = Math.max(1, intParam(params, 'limit', PAGE));
  const page = peoplePage(ctx, funnelPeople(storeFor(ctx, app), steps, step), offset, limit);
  const now = new Date(app.now()).toISOString();
  return json(200, { ...page, initial: absoluteUrl(ctx), missing_persons: 0, is_cached: false, last_refresh: now });
};

/** GET /persons/lifecycle/ — the people of one lifecycle bucket on one date. */
const lifecycle: Handler = (ctx, app) => {
  const params = filterParams(ctx);
  const target = params.get('target_date');
  if (target === undefined || target === null || target === '') {
    throw rawError(400, { message: 'Missing parameter', detail: 'Must include specified date' });
  }
  const type = params.get('lifecycle_type');
  if (type === undefined || type === null || type === '') {
    throw rawError(400, { message: 'Missing parameter', detail: 'Must include lifecycle type' });
  }
  const offset = Math.max(0, intParam(params, 'offset', 0));
  return json(200, peoplePage(ctx, lifecyclePeople(storeFor(ctx, app), String(target).slice(0, 10), String(type)), offset, PAGE));
};

const common = personsRouteDefaults;

export function registerLegacyPersonRoutes(router: Router): void {
  router.add({
    ...common,
    pattern: '/api/projects/:projectId/persons/cohorts',
    detail: false,
    methods: { GET: { action: 'cohorts', handler: cohorts, requiredScopes: ['person:read', 'cohort:read'] } },
  });
  router.add({
    ...common,
    pattern: '/api/projects/:projectId/persons/:id/properties_timeline',
    detail: true,
    methods: { GET: { action: 'properties_timeline', handler: propertiesTimeline, requiredScopes: null } },
  });
  router.add({
    ...common,
    pattern: '/api/projects/:projectId/persons/funnel',
    detail: false,
    methods: {
      GET: { action: 'funnel', handler: funnel, requiredScopes: null },
      POST: { action: 'funnel', handler: funnel, requiredScopes: null },
    },
  });
  router.add({
    ...common,
    pattern: '/api/projects/:projectId/persons/lifecycle',
    detail: false,
    methods: { GET: { action: 'lifecycle', handler: lifecycle, requiredScopes: null } },
  });
}
