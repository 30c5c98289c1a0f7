// /api/projects/{id}/data_deletion_requests/: preview, create, list and retrieve self-service
// event deletion requests, as PostHog/posthog PR #104278 serves them
// (posthog/api/data_deletion_request.py, `DataDeletionRequestViewSet`; its tests in
// posthog/api/test/test_data_deletion_request.py). No update, cancel or delete:
// `http_method_names = ["get", "post", "head", "options"]`, so any other method is a 405 (after
// the permission checks, as DRF runs them first). Every action is behind the project's feature
// flag `self-service-data-deletion`, checked in the view's `initial()`.

import type { Handler, RequestContext, Services } from '../context.js';
import { json } from '../context.js';
import { MAX_ACTIVE_REQUESTS_PER_TEAM, serializeRequest, type DataDeletionRequest } from '../data-deletion.js';
import { checkPayloadSize, selectEventUuids } from '../data-deletion-query.js';
import { loadHogQLParser } from '../hogql/posthog-grammar.js';
import { fieldError, notFound, permissionDenied, rawError } from '../errors.js';
import { drfLimitOffsetPage } from '../paging.js';
import { storeFor } from '../person-viewset.js';
import type { RouteSpec, Router } from '../router.js';
import { canonicalUuid } from '../store.js';

const FLAG_OFF = 'Self-service data deletion is not enabled for this project.';

/** `initial()`: the flag is evaluated per project; off answers 403 for every action. */
function gate(ctx: RequestContext): void {
  if (!ctx.project!.selfServiceDataDeletion) throw permissionDenied(FLAG_OFF);
}

/** `get_throttles()`: create and preview count against the project (`DataDeletionTeamRateThrottle`:
 * `ident = team_id`), list and retrieve against the caller's default throttles. */
function throttle(_principal: unknown, action: string | null) {
  if (action === 'create') return 'deletion_create' as const;
  if (action === 'preview') return 'deletion_preview' as const;
  return 'default' as const;
}

function throttleIdent(ctx: RequestContext, cls: string): string | null {
  return cls.startsWith('deletion_') && ctx.project ? `team:${ctx.project.id}` : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

interface Input {
  query: string;
  variables: Record<string, unknown>;
}

/** `DataDeletionRequestInputSerializer`: `query` a non-blank string, `variables` an object. */
function readInput(data: Record<string, unknown>): Input {
  if (!('query' in data) || data.query === null) throw fieldError('query', 'required', 'This field is required.');
  if (typeof data.query !== 'string') throw fieldError('query', 'invalid', 'Not a valid string.');
  if (data.query.trim() === '') throw fieldError('query', 'blank', 'This field may not be blank.');
  const variables = data.variables ?? {};
  if (!isObject(variables)) throw fieldError('variables', 'invalid_input', 'Query variables must be a JSON object.');
  return { query: data.query, variables };
}

function body(ctx: RequestContext): Record<string, unknown> {
  const data = ctx.data();
  return isObject(data) ? data : {};
}

function source(ctx: RequestContext, app: Services) {
  return { store: storeFor(ctx, app), events: app.events.get(ctx.project!.id), teamId: ctx.project!.id };
}

/** POST preview/: `SELECT count() FROM (<compiled query>)`, run now; extra fields ignored. */
const preview: Handler = async (ctx, app) => {
  const input = readInput(body(ctx));
  checkPayloadSize(input.query, input.variables);
  await loadHogQLParser();
  return json(200, { count: selectEventUuids(input.query, input.variables, source(ctx, app)).length });
};

const CREATE_FIELDS = new Set(['query', 'variables', 'submission_id']);

/** `DataDeletionRequestCreateSerializer`: the input, a UUID `submission_id`, nothing else. */
function readCreate(data: Record<string, unknown>): Input & { submissionId: string } {
  const input = readInput(data);
  if (!('submission_id' in data) || data.submission_id === null) throw fieldError('submission_id', 'required', 'This field is required.');
  const submissionId = typeof data.submission_id === 'string' ? canonicalUuid(data.submission_id) : null;
  if (submissionId === null) throw fieldError('submission_id', 'invalid', 'Must be a valid UUID.');
  const unexpected = Object.keys(data).find((k) => !CREATE_FIELDS.has(k));
  if (unexpected !== undefined) throw fieldError(unexpected, 'invalid_input', 'This field is not accepted.');
  checkPayloadSize(input.query, input.variables);
  return { ...input, submissionId };
}

/** Variables compared as parsed JSON: the same values, keys in any order. */
function sameJson(a: unknown, b: unknown): boolean {
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  return a === b;
}

function isRetryOf(row: DataDeletionRequest, input: Input, userId: number): boolean {
  return row.query === input.query && sameJson(row.variables, input.variables) && row.createdById === userId;
}

/**
 * POST: under the project's advisory lock (one JavaScript turn here) an existing request of the
 * same submission id is answered (200 when it is this request again, else 409), then the active
 * limit, then the query is parsed (by PostHog's grammar, loaded before that turn) and compiled,
 * and only then is the request saved (201).
 */
const create: Handler = async (ctx, app) => {
  const input = readCreate(body(ctx));
  await loadHogQLParser();
  const teamId = ctx.project!.id;
  const user = ctx.principal!.user;
  const existing = app.dataDeletions.bySubmission(teamId, input.submissionId);
  if (existing) {
    if (isRetryOf(existing, input, user.id)) return json(200, serializeRequest(existing));
    throw rawError(409, { detail: 'This submission ID is already used by a different deletion request.' });
  }
  if (app.dataDeletions.activeCount(teamId) >= MAX_ACTIVE_REQUESTS_PER_TEAM)
    throw rawError(409, { detail: 'This project already has the maximum number of active deletion requests.' });
  selectEventUuids(input.query, input.variables, source(ctx, app));
  const row = app.dataDeletions.add({
    teamId,
    query: input.query,
    variables: input.variables,
    submissionId: input.submissionId,
    createdById: user.id,
    createdByStaff: user.isStaff,
  });
  return json(201, serializeRequest(row));
};

const list: Handler = (ctx, app) => json(200, drfLimitOffsetPage(ctx, app.dataDeletions.list(ctx.project!.id).map(serializeRequest), 100));

const retrieve: Handler = (ctx, app) => {
  const row = app.dataDeletions.get(ctx.project!.id, ctx.params.id);
  if (!row) throw notFound();
  return json(200, serializeRequest(row));
};

const common = {
  scopeObject: 'data_deletion',
  projectParam: 'projectId',
  parsers: 'json',
  throttle,
  throttleIdent,
  gate,
} as const satisfies Partial<RouteSpec>;

export function registerDataDeletionRequestRoutes(router: Router): void {
  const base = '/api/projects/:projectId/data_deletion_requests';
  router.add({
    ...common,
    pattern: base,
    detail: false,
    methods: { GET: { action: 'list', handler: list }, POST: { action: 'create', handler: create } },
  });
  router.add({ ...common, pattern: `${base}/:id`, detail: true, methods: { GET: { action: 'retrieve', handler: retrieve } } });
  // A custom @action without required_scopes: personal keys are refused (null).
  router.add({
    ...common,
    pattern: `${base}/preview`,
    detail: false,
    methods: { POST: { action: 'preview', handler: preview, requiredScopes: null } },
  });
}
