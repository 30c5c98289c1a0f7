// What the caller may do (docs/server-contract.md §3.3, §3.4), in the order the server checks it:
// APIScopePermission (action has a scope mapping → key's project/organisation scoping → the
// scope itself), then project membership. Sessions skip the scope checks.

import type { Principal } from './auth.js';
import type { RequestContext, Services } from './context.js';
import { notFound, permissionDenied, UNSUPPORTED_KEY_ACTION } from './errors.js';
import type { ActionSpec, RouteSpec } from './router.js';
import { findProject, isMember, type Project } from './world.js';

const WRITE_ACTIONS = new Set(['create', 'update', 'partial_update', 'patch', 'destroy']);
const READ_ACTIONS = new Set(['list', 'retrieve']);

/** ScopeBasePermission._get_required_scopes; null = the action has no scope mapping. */
export function requiredScopes(route: RouteSpec, spec: ActionSpec | undefined, action: string | null, method: string): string[] | null {
  if (spec?.requiredScopes !== undefined) return spec.requiredScopes && spec.requiredScopes.length ? spec.requiredScopes : null;
  if (action !== null && WRITE_ACTIONS.has(action)) return [`${route.scopeObject}:write`];
  if ((action !== null && READ_ACTIONS.has(action)) || method === 'OPTIONS') return [`${route.scopeObject}:read`];
  return null;
}

/** `@current` is the user's current project; anything that is not an integer is unknown. */
export function resolveProjectId(raw: string, principal: Principal | null): number | null {
  if (raw === '@current') return principal ? principal.user.currentTeamId : null;
  return /^\d+$/.test(raw) ? Number(raw) : null;
}

function lookupProject(ctx: RequestContext, route: RouteSpec, app: Services): Project {
  const raw = ctx.params[route.projectParam!];
  const id = resolveProjectId(raw, ctx.principal);
  const project = id === null ? undefined : findProject(app.world, id);
  if (!project) throw notFound('Project not found.');
  return project;
}

export function authorize(ctx: RequestContext, route: RouteSpec, spec: ActionSpec | undefined, app: Services): void {
  const principal = ctx.principal;
  let project: Project | null = null;

  // AllowAny views (login, verify_email) have no APIScopePermission: a valid key is just ignored.
  if (principal?.kind === 'personal_api_key' && route.requiresAuth !== false) {
    const required = requiredScopes(route, spec, ctx.action, ctx.method);
    if (!required) throw permissionDenied(UNSUPPORTED_KEY_ACTION);

    const key = principal.key;
    // /api/users/@me/ is exempt from project and organisation scoping.
    if (route.scopeObject !== 'user') {
      if (key.scopedTeams) {
        if (!route.projectParam) throw permissionDenied('API keys with scoped projects are only supported on project-based endpoints.');
        project = lookupProject(ctx, route, app);
        if (!key.scopedTeams.includes(project.id))
          throw permissionDenied(`API key does not have access to the requested project: ID ${project.id}.`);
      }
      if (key.scopedOrganizations && route.projectParam) {
        project ??= lookupProject(ctx, route, app);
        if (!key.scopedOrganizations.includes(project.organizationId)) {
          throw permissionDenied(`API key does not have access to the requested organization: ID ${project.organizationId}.`);
        }
      }
    }

    if (!key.scopes.includes('*')) {
      for (const scope of required) {
        const valid = scope.endsWith(':read') ? [scope, scope.replace(/:read$/, ':write')] : [scope];
        if (!valid.some((s) => key.scopes.includes(s))) throw permissionDenied(`API key missing required scope '${scope}'`);
      }
    }
  }

  if (route.projectParam) {
    project ??= lookupProject(ctx, route, app);
    if (principal && !isMember(principal.user, project)) throw permissionDenied("You don't have access to the project.");
    ctx.project = project;
  }
}
