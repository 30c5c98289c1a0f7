// One request to the emulated PostHog, from the socket to the answer: it is recorded, then the
// body limits, injected faults, capture (a service of its own), the /api/environments/ alias,
// and last the router and DRF's dispatch (dispatch.ts). Every failure becomes the server's JSON
// error body.

import { parseRequestData, type ParserSet } from './body.js';
import type { Capture } from './capture.js';
import { CAPTURE_PATH } from './capture.js';
import { json, type RequestContext, type SandboxResponse, type Services } from './context.js';
import { dispatch } from './dispatch.js';
import { ErrorResponse, notFound, serverError } from './errors.js';
import { faultResponse, truncateBody, type FaultInjector } from './faults.js';
import { recordRequest, type RecordedRequest } from './request-log.js';
import type { Router } from './router.js';
import type { Exchange } from './socket.js';

const ENVIRONMENTS_SUNSET = 'Fri, 31 Jul 2026 00:00:00 GMT';

export interface PipelineDeps {
  router: Router;
  services: Services;
  capture: Capture;
  requests: RecordedRequest[];
  /** The fault plan in force (a test may replace it while the server runs). */
  faults: () => FaultInjector;
  /** The origin of absolute links, when not the request's (SandboxOptions.linkOrigin). */
  linkOrigin: string | undefined;
  log: (line: string) => void;
}

/** Routing and dispatch; every failure becomes the server's JSON error body. */
async function runApi(ctx: RequestContext, deps: PipelineDeps): Promise<SandboxResponse> {
  try {
    const match = deps.router.match(ctx.path);
    if (!match) throw notFound();
    return await dispatch(ctx, match, deps.services);
  } catch (error) {
    if (error instanceof ErrorResponse) return json(error.status, error.body, error.headers);
    deps.log(`sandbox: unhandled error: ${error instanceof Error ? error.stack : String(error)}`);
    const failure = serverError();
    return json(failure.status, failure.body);
  }
}

/**
 * /api/environments/{id}/... is served by the /api/projects/ handler when one exists, on the
 * same URL, with deprecation headers (EnvironmentsRewriteMiddleware).
 */
function environmentsAlias(path: string, rawQuery: string, router: Router): { routedPath: string; aliasHeaders: Record<string, string> } {
  const env = /^\/api\/environments\/([^/]+)(\/.*)?$/.exec(path);
  if (env) {
    const candidate = `/api/projects/${env[1]}${env[2] ?? ''}`;
    if (router.match(candidate)?.route.environmentsAlias) {
      return {
        routedPath: candidate,
        aliasHeaders: {
          Deprecation: 'true',
          Link: `<${candidate}${rawQuery ? `?${rawQuery}` : ''}>; rel="successor-version"`,
          Sunset: ENVIRONMENTS_SUNSET,
        },
      };
    }
  }
  return { routedPath: path, aliasHeaders: {} };
}

/** The RequestContext of a routed request; its body is parsed on first use, with the route's parsers. */
function requestContext(exchange: Exchange, routedPath: string, rawBody: Buffer, deps: PipelineDeps): RequestContext {
  const { method, rawQuery, headers } = exchange;
  const parsers: ParserSet = deps.router.match(routedPath)?.route.parsers ?? 'default';
  let parsed: { value?: unknown; error?: unknown } | undefined;
  return {
    method,
    path: routedPath,
    rawQuery,
    query: new URLSearchParams(rawQuery),
    headers,
    rawBody,
    origin: deps.linkOrigin ?? `http://${headers.host ?? deps.services.siteUrl().replace(/^http:\/\//, '')}`,
    params: {},
    principal: null,
    project: null,
    action: null,
    renderer: 'json',
    data() {
      if (!parsed) {
        try {
          parsed = { value: parseRequestData(rawBody, headers['content-type'], parsers) };
        } catch (error) {
          parsed = { error };
        }
      }
      if (parsed.error !== undefined) throw parsed.error;
      return parsed.value;
    },
  };
}

export async function handleRequest(exchange: Exchange, deps: PipelineDeps): Promise<void> {
  const { method, rawUrl, path, rawQuery, body } = exchange;
  const { log } = deps;
  const entry = recordRequest(deps.requests, exchange);
  const finish = (response: SandboxResponse, extraHeaders: Record<string, string> = {}) => {
    entry.status = response.status;
    exchange.send(response, extraHeaders);
    log(`${method} ${rawUrl} ${response.status} ${Math.round(performance.now() - exchange.started)}ms`);
  };

  const isCapture = CAPTURE_PATH.test(path);
  if (body === 'too-large' && isCapture) {
    // axum's DefaultBodyLimit (rust/capture/src/router.rs).
    finish({
      status: 413,
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
      body: 'Failed to buffer the request body: length limit exceeded',
    });
    return;
  }
  if (body === 'too-large') {
    // Django's RequestDataTooBig is a SuspiciousOperation: a bare HTML 400.
    finish({ status: 400, headers: { 'Content-Type': 'text/html' }, body: '<h1>Bad Request (400)</h1>' });
    return;
  }

  const fault = deps.faults().decide(method, path);
  if (fault?.kind === 'drop') {
    log(`${method} ${rawUrl} dropped (fault)`);
    exchange.drop();
    return;
  }
  if (fault && fault.kind !== 'slow' && fault.kind !== 'truncate' && fault.kind !== 'drop-after' && fault.kind !== '504-after') {
    finish(faultResponse(fault.kind));
    return;
  }
  if (fault?.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, fault.delayMs ?? 1000));

  // Capture is a service of its own: no REST routing, authentication or throttles.
  if (isCapture) {
    if (fault?.kind === 'truncate')
      finish({ status: 200, headers: { 'Content-Type': 'application/json' }, body: truncateBody('{"status":"Ok"}') });
    else finish(deps.capture.handle(method, path, body, exchange.headers, new URLSearchParams(rawQuery), exchange.remoteAddress));
    return;
  }

  const { routedPath, aliasHeaders } = environmentsAlias(path, rawQuery, deps.router);
  const ctx = requestContext(exchange, routedPath, body, deps);

  if (fault?.kind === 'truncate') {
    // Reads run for real and are cut; writes are never run (see faults.ts).
    const safe = method === 'GET' || method === 'HEAD';
    const full = safe ? await runApi(ctx, deps) : undefined;
    finish({ status: 200, headers: { 'Content-Type': 'application/json' }, body: truncateBody(full?.body) }, aliasHeaders);
    return;
  }

  const response = await runApi(ctx, deps);
  // The request was carried out; its answer is lost on the way back (see faults.ts).
  if (fault?.kind === 'drop-after') {
    entry.status = response.status;
    log(`${method} ${rawUrl} ${response.status}, answer dropped (fault)`);
    exchange.drop();
    return;
  }
  if (fault?.kind === '504-after') {
    entry.status = response.status;
    exchange.send(faultResponse('504'));
    log(`${method} ${rawUrl} ${response.status}, answered 504 (fault)`);
    return;
  }
  finish(response, aliasHeaders);
}
