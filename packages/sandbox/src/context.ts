// The request/response shapes shared by the dispatcher and the route modules. Handlers return a
// plain SandboxResponse instead of writing to the socket, so the server can still post-process
// it in one place (environments alias headers, truncation faults, request recording).

import type { IncomingHttpHeaders } from 'node:http';
import type { Principal, KeyRing, Authentication } from './auth.js';
import type { Identity } from './identity.js';
import type { RateLimiter } from './rate-limit.js';
import type { ActivityLog } from './activity-log.js';
import type { DeletionQueue } from './deletions.js';
import type { DataDeletionRequests } from './data-deletion.js';
import type { DeletionFaults } from './deletion-faults.js';
import type { SandboxStore } from './store.js';
import type { EventStore } from './events.js';
import type { Project, World } from './world.js';
import type { QueryLimits } from './query-limits.js';

export interface SandboxResponse {
  status: number;
  /** An array sends the header once per value (several Set-Cookie). */
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export function json(status: number, data: unknown, headers: Record<string, string | string[]> = {}): SandboxResponse {
  return { status, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(data) };
}

export function empty(status: number, headers: Record<string, string> = {}): SandboxResponse {
  return { status, headers, body: '' };
}

export type Renderer = 'json' | 'csv';

export interface RequestContext {
  readonly method: string;
  /** The path the router saw (after the /api/environments/ rewrite), undecoded. */
  readonly path: string;
  /** The query string without the leading `?`, exactly as received. */
  readonly rawQuery: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Buffer;
  /** `http://<Host header>`: absolute URLs (`next`) are built from it, as Django does. */
  readonly origin: string;
  params: Record<string, string>;
  principal: Principal | null;
  /** The project of a project-nested route, once permissions resolved it. */
  project: Project | null;
  /** The DRF action name (`list`, `retrieve`, ...), null when the method is not mapped. */
  action: string | null;
  renderer: Renderer;
  /** The request data parsed with the route's parsers; throws 415/400 like `request.data`. */
  data(): unknown;
}

/** Django's QueryDict.get: the LAST value of a repeated parameter. */
export function lastParam(query: URLSearchParams, name: string): string | null {
  const all = query.getAll(name);
  return all.length ? all[all.length - 1] : null;
}

/** `request.build_absolute_uri()`: origin + path + the raw query string. */
export function absoluteUrl(ctx: RequestContext): string {
  return ctx.origin + ctx.path + (ctx.rawQuery ? `?${ctx.rawQuery}` : '');
}

/** Everything a handler may use besides the request. */
export interface Services {
  world: World;
  /** Persons per project id. */
  stores: Map<number, SandboxStore>;
  keys: KeyRing;
  authentication: Authentication;
  limiter: RateLimiter;
  now: () => number;
  /** The sandbox's own base URL (SITE_URL). */
  siteUrl: () => string;
  /** Delay before accepted (202) writes become visible. */
  applyDelayMs: number;
  /** Passwords, 2FA devices, sessions and the outbox (session sign-in, docs/server-contract.md §11). */
  identity: Identity;
  /** Schedules work after the response, tracked so close() can cancel it. */
  later: (ms: number, fn: () => void) => void;
  /** Activity-log entries of every project (log_activity / load_activity). */
  activity: ActivityLog;
  /** Queued event (AsyncDeletion) and recording deletions of every project. */
  deletions: DeletionQueue;
  /** Events per project id. */
  events: Map<number, EventStore>;
  /** Persons whose deletion a test made fail. */
  deletionFaults: DeletionFaults;
  /** Self-service event deletion requests of every project (data-deletion.ts). */
  dataDeletions: DataDeletionRequests;
  /** PostHog's time and size limits on a HogQL query, as configured (query-limits.ts). */
  queryLimits: QueryLimits;
}

export type Handler = (ctx: RequestContext, app: Services) => SandboxResponse | Promise<SandboxResponse>;
