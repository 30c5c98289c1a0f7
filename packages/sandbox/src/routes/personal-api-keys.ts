// `GET /api/personal_api_keys/@current/` (docs/server-contract.md §3.6; PostHog/posthog
// posthog/api/personal_api_key.py, PersonalAPIKeyViewSet.safely_get_object): the key that made
// the request, with its label, scopes and scoped projects and organisations. The view's scope
// object is `personal_api_key`, so a key needs `personal_api_key:read` (or `*`) to see itself;
// `to_representation` shows empty scopes as `["*"]`. Only the calling key is served here: the
// list and other ids need a session the sandbox does not model for keys.

import { json, type Handler } from '../context.js';
import { notFound } from '../errors.js';
import type { Router } from '../router.js';

const retrieveKey: Handler = (ctx) => {
  const principal = ctx.principal;
  // With a session there is no calling key (the real view fails on the missing attribute).
  if (ctx.params.id !== '@current' || principal?.kind !== 'personal_api_key') throw notFound();
  const key = principal.key;
  return json(200, {
    id: key.id,
    label: key.label,
    value: null,
    mask_value: key.mask,
    created_at: key.createdAt,
    last_used_at: null,
    user_id: key.userId,
    scopes: key.scopes.length ? key.scopes : ['*'],
    scoped_teams: key.scopedTeams ?? [],
    scoped_organizations: key.scopedOrganizations ?? [],
  });
};

export function registerPersonalApiKeyRoutes(router: Router): void {
  router.add({
    pattern: '/api/personal_api_keys/:id',
    scopeObject: 'personal_api_key',
    detail: true,
    throttle: () => 'default',
    methods: { GET: { action: 'retrieve', handler: retrieveKey } },
  });
}
