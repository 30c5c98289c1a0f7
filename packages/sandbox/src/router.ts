// A tiny router with just enough DRF semantics: routes are path patterns (`:name` segments,
// trailing slash optional) whose HTTP methods map to named actions. A path that matches but
// whose method is not mapped still resolves to the route with action null, because DRF runs
// authentication, permissions and throttles before it answers 405.

import type { Principal } from './auth.js';
import type { ParserSet } from './body.js';
import type { Handler, Renderer, RequestContext, Services } from './context.js';
import type { ThrottleClass } from './rate-limit.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The `scope_object` of a view; null for views that take no personal-key scopes at all. */
export type ScopeObject =
  | 'person'
  | 'project'
  | 'user'
  | 'query'
  | 'activity_log'
  | 'cohort'
  | 'personal_api_key'
  | 'session_recording'
  | 'feature_flag'
  | 'data_deletion';

export interface ActionSpec {
  /** DRF action name: list, retrieve, create, update, partial_update, destroy, or a custom one. */
  action: string;
  handler: Handler;
  /**
   * `required_scopes` of a custom action. Leave undefined to derive from the action name
   * (list/retrieve → read, create/update/partial_update/destroy → write); null marks an action
   * with no scope mapping, which personal keys may not call.
   */
  requiredScopes?: string[] | null;
  /** Renderers beyond JSON this action offers (persons list: csv). Defaults to the route's. */
  renderers?: Renderer[];
}

export interface RouteSpec {
  /** e.g. `/api/projects/:projectId/persons/:id` (no trailing slash; it is optional). */
  pattern: string;
  scopeObject: ScopeObject;
  /** Detail routes have an object id; PATCH on a non-detail route is DRF's `patch` action. */
  detail: boolean;
  /** Name of the param holding a project id, for project-nested routes. */
  projectParam?: string;
  /** Views that accept no credentials at all (AllowAny, e.g. verify_email) set this false. */
  requiresAuth?: boolean;
  parsers?: ParserSet;
  renderers?: Renderer[];
  /** Which rate-limit class applies to a call (null: unthrottled). */
  throttle?: (principal: Principal | null, action: string | null) => ThrottleClass | null;
  /** The throttle bucket of a call when it is not the caller's (a project's budget shared by
   * every key and session); null: the caller's. */
  throttleIdent?: (ctx: RequestContext, cls: ThrottleClass) => string | null;
  /** A view's own `initial()` check after DRF's (a feature flag): it runs for every method, mapped
   * or not, so it answers before a 405. Throws an ErrorResponse to refuse. */
  gate?: (ctx: RequestContext, app: Services) => void;
  /** Registered under /api/environments/ too (persons, query). */
  environmentsAlias?: boolean;
  methods: Partial<Record<Method, ActionSpec>>;
}

export interface RouteMatch {
  route: RouteSpec;
  params: Record<string, string>;
}

interface CompiledRoute {
  spec: RouteSpec;
  segments: string[];
  staticCount: number;
}

function splitPath(path: string): string[] {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' ? [] : trimmed.slice(1).split('/');
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export class Router {
  private readonly routes: CompiledRoute[] = [];

  add(spec: RouteSpec): void {
    const segments = splitPath(spec.pattern);
    this.routes.push({ spec, segments, staticCount: segments.filter((s) => !s.startsWith(':')).length });
    // Most specific first, so `/persons/bulk_delete` wins over `/persons/:id`.
    this.routes.sort((a, b) => b.staticCount - a.staticCount);
  }

  match(path: string): RouteMatch | null {
    const parts = splitPath(path);
    // `//` inside a path never matches, as with Django's URL patterns.
    if (parts.some((p) => p === '')) return null;
    for (const route of this.routes) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length; i++) {
        const seg = route.segments[i];
        if (seg.startsWith(':')) params[seg.slice(1)] = decode(parts[i]);
        else if (seg !== parts[i]) {
          ok = false;
          break;
        }
      }
      if (ok) return { route: route.spec, params };
    }
    return null;
  }
}
