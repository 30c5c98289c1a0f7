// One request through DRF's order of business: content negotiation, authentication,
// permissions, throttles, and only then the handler or the 405. Keeping this order is what makes
// e.g. an unauthenticated POST a 401 rather than a 405, and an unmapped method with a personal
// key a 403 ("This action does not support personal API key access").

import type { Principal } from './auth.js';
import { json, type RequestContext, type SandboxResponse, type Services } from './context.js';
import { methodNotAllowed, notAuthenticated } from './errors.js';
import { authorize } from './permissions.js';
import { negotiate } from './render.js';
import type { Method, RouteMatch, RouteSpec } from './router.js';

export function throttleIdent(principal: Principal): string {
  return principal.kind === 'personal_api_key' ? `key:${principal.key.hash}` : `user:${principal.user.id}`;
}

function allowedMethods(route: RouteSpec): string[] {
  const methods = Object.keys(route.methods);
  if (methods.includes('GET')) methods.push('HEAD');
  methods.push('OPTIONS');
  return methods;
}

export async function dispatch(ctx: RequestContext, match: RouteMatch, app: Services): Promise<SandboxResponse> {
  const { route } = match;
  ctx.params = match.params;
  // DRF maps HEAD to the GET action.
  const method = (ctx.method === 'HEAD' ? 'GET' : ctx.method) as Method;
  const spec = route.methods[method];
  ctx.action = spec?.action ?? (ctx.method === 'PATCH' && !route.detail ? 'patch' : null);

  ctx.renderer = negotiate(ctx, spec?.renderers ?? route.renderers ?? ['json']);

  const principal = app.authentication.authenticate({ method: ctx.method, headers: ctx.headers, query: ctx.query, data: () => ctx.data() });
  if (!principal && route.requiresAuth !== false) throw notAuthenticated(app.siteUrl());
  ctx.principal = principal;

  authorize(ctx, route, spec, app);

  if (principal) {
    const cls = route.throttle?.(principal, ctx.action);
    if (cls) app.limiter.check(cls, route.throttleIdent?.(ctx, cls) ?? throttleIdent(principal));
  }
  route.gate?.(ctx, app);

  if (ctx.method === 'OPTIONS') {
    // DRF's SimpleMetadata, trimmed.
    return json(
      200,
      {
        name:
          route.pattern
            .split('/')
            .filter((s) => s && !s.startsWith(':'))
            .pop() ?? 'api',
        description: '',
        renders: (route.renderers ?? ['json']).map((r) => (r === 'csv' ? 'text/csv' : 'application/json')),
        parses:
          route.parsers === 'json'
            ? ['application/json']
            : ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
      },
      { Allow: allowedMethods(route).join(', ') },
    );
  }
  if (!spec) throw methodNotAllowed(ctx.method, undefined, allowedMethods(route));
  return spec.handler(ctx, app);
}
