// `hogctl sandbox`: a local, PostHog-compatible HTTP server that copies the newest server's
// behaviour, quirks included (docs/server-contract.md §12), for demos and end-to-end tests.
//
// This module wires the pieces together and owns the socket: it reads the body, records the
// request, applies the /api/environments/ alias and injected faults, and hands everything else
// to the router and dispatcher. Loopback only by default; the data and keys are throwaway.
//
// Adding an endpoint: add a RouteSpec (pattern, scope object, DRF action per method, throttle
// class) to the module of its group under routes/, and register the group below if it is new.
// Handlers get the RequestContext (ctx.project is already resolved and authorised, ctx.data()
// parses the body with the route's parsers) and Services (stores, world, clock, `later` for
// writes that apply after a 202); they return a SandboxResponse or throw an ErrorResponse from
// errors.ts. Session authentication plugs in with services.authentication.addAuthenticator.

import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { Authentication, KeyRing, parseKeySpec, personalApiKeyAuthenticator, randomKeyValue, keyValueForSeed } from './auth.js';
import { parseRequestData, type ParserSet } from './body.js';
import { empty, json, type RequestContext, type SandboxResponse, type Services } from './context.js';
import { dispatch } from './dispatch.js';
import { ErrorResponse, notFound, serverError } from './errors.js';
import { FaultInjector, faultResponse, parseFaultSpec, truncateBody } from './faults.js';
import { parseRateLimitSpec, RateLimiter } from './rate-limit.js';
import { Router } from './router.js';
import { registerPersonRoutes } from './routes/persons.js';
import { BULK_DELETE_RESPONSES, registerBulkDeleteRoutes, type BulkDeleteResponse } from './routes/bulk-delete.js';
import { registerPersonActionRoutes } from './routes/person-actions.js';
import { registerPersonBatchRoutes } from './routes/person-batch.js';
import { registerLegacyPersonRoutes } from './routes/legacy-persons.js';
import { registerSubjectDataRoutes } from './routes/subject-data.js';
import { registerProjectRoutes } from './routes/projects.js';
import { registerCohortRoutes } from './routes/cohorts.js';
import { registerPersonalApiKeyRoutes } from './routes/personal-api-keys.js';
import { registerQueryRoutes } from './routes/query.js';
import { registerUserRoutes } from './routes/users.js';
import { registerLoginRoutes } from './routes/login.js';
import { registerUserSecurityRoutes } from './routes/user-security.js';
import { Identity, type SentMail } from './identity.js';
import { sessionAuthenticator } from './session.js';
import { seedDocumentedPerson } from './documented.js';
import { SandboxStore } from './store.js';
import { ActivityLog } from './activity-log.js';
import { DeletionQueue } from './deletions.js';
import { DeletionFaults } from './deletion-faults.js';
import { createWorld, type World } from './world.js';
import { Capture, CAPTURE_PATH, MAX_CAPTURE_BYTES, type CaptureStats } from './capture.js';
import { EventStore } from './events.js';
import { seedHistory } from './event-history.js';
import { ProjectIngestion } from './ingestion.js';
import { hash32 } from './prng.js';

export interface SandboxOptions {
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Persons seeded into project 1; default 250. */
  persons?: number;
  /** Persons of other projects by id (default: 20 in project 2, 5 in project 3). An id above 3
   * adds a project of that id to the user's organisation. Persons with the same integer id in
   * two projects share their e-mail address (user<id>@example.com) and their `user-<id>`
   * distinct id, as the same people tracked by two projects do. */
  projectPersons?: Record<number, number>;
  /** Events of each seeded person's history, laid down when the project's events are first used;
   * default 3. */
  eventsPerPerson?: number;
  /** Default 1; the same seed gives identical persons (ids, uuids, emails, created_at). */
  seed?: number;
  /** undefined/'off': no throttling; 'cloud'; '600'; 'delete=600,read=1200,query=240'. See rate-limit.ts. */
  rateLimit?: string;
  /** e.g. '429=0.2,500=0.05,drop=0.02,slow=0.1@1500,seed=7,path=bulk_delete'. See faults.ts. */
  faults?: string;
  /** Extra keys: 'phx_name:scope1,scope2' or 'phx_x:person:read@42'. See auth.ts parseKeySpec. */
  keys?: string[];
  /** The all-scopes key is derived from the seed (the same on every start), so a saved profile
   * keeps working across restarts; default false: a random key each start. */
  keyFromSeed?: boolean;
  /** Request log lines are written (to `log`, else stderr) only when quiet is explicitly false. */
  quiet?: boolean;
  /** Where log lines go when not quiet; default process.stderr. */
  log?: (line: string) => void;
  /** Injectable clock (ms) for rate limits and recorded timestamps. */
  now?: () => number;
  /** Delay before accepted (202) writes apply; default 50. */
  applyDelayMs?: number;
  /** How bulk_delete answers: 'summary' (newest, default), 'queued' (persons_queued_for_deletion,
   * applied after applyDelayMs), 'empty' (older servers' empty 202) or 'absent' (servers from
   * before bulk_delete: POST answers 405). */
  bulkDeleteResponse?: BulkDeleteResponse;
  /** Password of sandbox@example.com; random when not given. */
  password?: string;
  /** Failed logins before an e-mail is locked out for 15 minutes; default 30 (AXES_FAILURE_LIMIT). */
  loginFailureLimit?: number;
  /** Accounts without TOTP confirm a password sign-in with a code mailed to the outbox, as on
   * PostHog Cloud; default off (an instance that cannot send e-mail). Per account:
   * `identity.byEmail(e).codeVerification`. */
  loginCodes?: boolean;
  /** Build absolute links (`next`, `previous`) with this origin instead of the request's, as a
   * PostHog behind a TLS proxy without IS_BEHIND_PROXY hands out http:// links for its https://
   * site (docs/server-contract.md §0). */
  linkOrigin?: string;
}

export interface RecordedRequest {
  method: string;
  /** The path as received (an /api/environments/ path stays as it was sent). */
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The status sent; 0 when the connection was dropped (or the answer is still pending). */
  status: number;
  at: number;
}

export interface Sandbox {
  url: string;
  port: number;
  /** 1; project 2 is in the same organisation, project 3 in one the user is not a member of. */
  projectId: number;
  /** A key with scopes ['*']. */
  defaultKey: string;
  /** Persons of project 1. */
  store: SandboxStore;
  /** Persons per project id (1, 2, 3 and any added with `projectPersons`). */
  stores: Map<number, SandboxStore>;
  world: World;
  /** Activity-log entries written by the person endpoints. */
  activity: ActivityLog;
  /** Queued event and recording deletions (deletion_status; `runBatch()` plays the Sunday job). */
  deletions: DeletionQueue;
  /** Every /api/ (and other non-/_sandbox/) request received, oldest first, capped. */
  requests: RecordedRequest[];
  /** What the capture endpoints (`/batch/`, `/i/v0/e/`) accepted and dropped. */
  capture: CaptureStats;
  /** Events per project id (HogQL's `events` table). */
  events: Map<number, EventStore>;
  /** Person processing per project id: its counts and ingestion warnings. */
  ingestion: Map<number, ProjectIngestion>;
  addKey(scopes: string[], opts?: { scopedTeams?: number[] }): string;
  /** Replace the fault plan at run time (undefined: none). */
  setFaults(spec?: string): void;
  /** Replace the rate limits at run time (undefined: off); counts start afresh. */
  setRateLimit(spec?: string): void;
  /** Switch how bulk_delete answers (see SandboxOptions.bulkDeleteResponse). */
  setBulkDeleteResponse(mode: BulkDeleteResponse): void;
  /** The next `times` (default 1) attempts at deleting each of these persons fail as on PostHog:
   * bulk_delete lists them in `deletion_errors`, the single DELETE answers 503
   * `person_deletion_failed` (deletion-faults.ts). */
  failDeletions(uuids: Iterable<string>, times?: number): void;
  /** Signing in as the sandbox user (`hogctl auth login`); the password is random per start. */
  login: { email: string; password: string };
  /** A second user with 2FA already on: its TOTP secret and its five backup codes at start. */
  twoFactorUser: { email: string; password: string; uuid: string; totpSecret: string; backupCodes: string[] };
  /** Passwords, 2FA devices, pending e-mails and sessions, for tests to inspect. */
  identity: Identity;
  /** The mail a real server would have sent (verification links, 2FA notices), oldest first. */
  outbox: SentMail[];
  /** Makes every session `seconds` older (the 2-hour re-auth window, the 10-minute 2FA setup). */
  ageSessions(seconds: number): void;
  close(): Promise<void>;
}

const REQUEST_LOG_CAP = 200_000;
/** DATA_UPLOAD_MAX_MEMORY_SIZE */
const MAX_BODY_BYTES = 20 * 1024 * 1024;
const ENVIRONMENTS_SUNSET = 'Fri, 31 Jul 2026 00:00:00 GMT';

function readBody(req: http.IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function readableCapture(body: Buffer): string {
  if (body.length < 2 || body[0] !== 0x1f || body[1] !== 0x8b) return body.toString('utf8');
  try {
    return gunzipSync(body, { maxOutputLength: MAX_CAPTURE_BYTES }).toString('utf8');
  } catch {
    return body.toString('utf8');
  }
}

function queryRecord(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of params) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

function nonNegativeInt(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw new Error(`invalid sandbox option ${name}: ${value} (expected a non-negative integer)`);
  return value;
}

function checkBulkDeleteResponse(mode: string): BulkDeleteResponse {
  if (!(BULK_DELETE_RESPONSES as readonly string[]).includes(mode)) {
    throw new Error(`invalid sandbox option bulkDeleteResponse: ${mode} (expected ${BULK_DELETE_RESPONSES.join(', ')})`);
  }
  return mode as BulkDeleteResponse;
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const seed = nonNegativeInt(opts.seed, 'seed', 1);
  const personCount = nonNegativeInt(opts.persons, 'persons', 250);
  const port = nonNegativeInt(opts.port, 'port', 0);
  const host = opts.host ?? '127.0.0.1';
  const now = opts.now ?? Date.now;
  const log = opts.quiet !== false ? () => {} : (opts.log ?? ((line: string) => void process.stderr.write(line + '\n')));
  const limiter = new RateLimiter(parseRateLimitSpec(opts.rateLimit), now);
  let faults = new FaultInjector(parseFaultSpec(opts.faults, seed));

  const perProject = new Map<number, number>([
    [1, personCount],
    [2, 20],
    [3, 5],
  ]);
  for (const [id, count] of Object.entries(opts.projectPersons ?? {})) {
    const projectId = Number(id);
    if (!Number.isInteger(projectId) || projectId < 1) throw new Error(`invalid sandbox option projectPersons: project id ${id}`);
    perProject.set(projectId, nonNegativeInt(count, `projectPersons[${id}]`, 0));
  }
  const world = createWorld(
    seed,
    [...perProject.keys()].filter((id) => id > 3).sort((a, b) => a - b),
  );
  const stores = new Map<number, SandboxStore>(
    [...perProject].map(([id, count]) => [id, new SandboxStore({ persons: count, seed, salt: id })]),
  );
  seedDocumentedPerson(stores.get(1)!);
  const eventsPerPerson = nonNegativeInt(opts.eventsPerPerson, 'eventsPerPerson', 3);
  const events = new Map<number, EventStore>(
    [...stores].map(([id, store]) => [id, new EventStore((into) => seedHistory(store, into, eventsPerPerson, hash32(seed, id)))]),
  );
  const ingestion = new Map<number, ProjectIngestion>(
    [...stores].map(([id, store]) => [
      id,
      new ProjectIngestion(id, store, events.get(id)!, () => world.projects.find((p) => p.id === id)?.personProcessingOptOut ?? false),
    ]),
  );

  const keys = new KeyRing();
  const defaultKey = opts.keyFromSeed ? keyValueForSeed(seed) : randomKeyValue();
  keys.add(defaultKey, ['*'], world.user.id);
  for (const spec of opts.keys ?? []) {
    const key = parseKeySpec(spec);
    keys.add(key.value, key.scopes, world.user.id, { scopedTeams: key.scopedTeams });
  }

  let url = '';
  const authentication = new Authentication();
  authentication.addAuthenticator(
    personalApiKeyAuthenticator(
      keys,
      (id) => (id === world.user.id ? world.user : undefined),
      () => url,
    ),
  );
  const identity = new Identity(world, {
    now,
    siteUrl: () => url,
    log,
    password: opts.password,
    loginFailureLimit: opts.loginFailureLimit,
    loginCodes: opts.loginCodes,
  });
  authentication.addAuthenticator(sessionAuthenticator(identity.sessions, (id) => identity.user(id)));

  const timers = new Set<NodeJS.Timeout>();
  const services: Services = {
    world,
    stores,
    keys,
    authentication,
    identity,
    limiter,
    now,
    siteUrl: () => url,
    applyDelayMs: nonNegativeInt(opts.applyDelayMs, 'applyDelayMs', 50),
    later(ms, fn) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        fn();
      }, ms);
      timers.add(timer);
    },
    activity: new ActivityLog(now),
    // PostHog's event deletion job removes events by their stored person_id.
    deletions: new DeletionQueue(now, (row) => events.get(row.teamId)?.deleteByStoredPersonIds([row.key])),
    events,
    deletionFaults: new DeletionFaults(),
  };

  const capture = new Capture({
    now,
    later: services.later,
    applyDelayMs: services.applyDelayMs,
    knows: (token) => world.projects.some((p) => p.apiToken === token),
    ingest: (batch) => {
      const project = world.projects.find((p) => p.apiToken === batch.token);
      const target = project && ingestion.get(project.id);
      if (!target) return { personsCreated: 0, optedOut: 0 };
      const { personsCreated, optedOut } = target.stats;
      for (const event of batch.events) target.ingest(event);
      return { personsCreated: target.stats.personsCreated - personsCreated, optedOut: target.stats.optedOut - optedOut };
    },
  });

  const router = new Router();
  registerProjectRoutes(router);
  registerCohortRoutes(router);
  registerPersonalApiKeyRoutes(router);
  registerPersonRoutes(router);
  let bulkDeleteResponse = checkBulkDeleteResponse(opts.bulkDeleteResponse ?? 'summary');
  registerBulkDeleteRoutes(router, () => bulkDeleteResponse);
  registerPersonActionRoutes(router);
  registerPersonBatchRoutes(router);
  registerUserRoutes(router);
  registerLoginRoutes(router);
  registerUserSecurityRoutes(router);
  registerQueryRoutes(router);
  registerLegacyPersonRoutes(router);
  registerSubjectDataRoutes(router);

  const requests: RecordedRequest[] = [];
  const record = (entry: RecordedRequest) => {
    requests.push(entry);
    // Drop a tenth at once so trimming stays amortised O(1).
    if (requests.length > REQUEST_LOG_CAP) requests.splice(0, requests.length - REQUEST_LOG_CAP + REQUEST_LOG_CAP / 10);
  };

  function state() {
    const projects: Record<string, { persons: number; deleted: number }> = {};
    for (const [id, store] of stores) projects[id] = { persons: store.size, deleted: store.deletedCount, ...ingestion.get(id)!.stats };
    const main = stores.get(1)!;
    return {
      persons: main.size,
      persons_deleted: main.deletedCount,
      projects,
      requests: requests.length,
      capture: capture.stats,
      rate_limit: limiter.enabled,
      faults: faults.plan !== null,
    };
  }

  function internal(method: string, path: string): SandboxResponse {
    const p = path.replace(/\/+$/, '');
    if (method === 'GET' && p === '/_sandbox/requests') return json(200, requests);
    if (method === 'GET' && p === '/_sandbox/state') return json(200, state());
    if (method === 'GET' && p === '/_sandbox/outbox') return json(200, identity.outbox);
    // What PostHog's weekly batch does (Sundays 05:00 UTC): every queued event deletion completes.
    const run = /^\/_sandbox\/deletions\/run(?:\/(\d+))?$/.exec(p);
    if (method === 'POST' && run) return json(200, { completed: services.deletions.runBatch(run[1] ? Number(run[1]) : undefined) });
    const age = /^\/_sandbox\/sessions\/age\/(\d+)$/.exec(p);
    if (method === 'POST' && age) return json(200, { sessions: identity.sessions.age(Number(age[1]) * 1000) });
    // A project's person_processing_opt_out, as its settings page turns it on and off.
    const optOut = /^\/_sandbox\/projects\/(\d+)\/person-processing-opt-out\/(on|off)$/.exec(p);
    const project = optOut ? world.projects.find((x) => x.id === Number(optOut[1])) : undefined;
    if (method === 'POST' && project) {
      project.personProcessingOptOut = optOut![2] === 'on';
      return json(200, { project: project.id, person_processing_opt_out: project.personProcessingOptOut });
    }
    const error = notFound();
    return json(error.status, error.body);
  }

  /** Routing and dispatch; every failure becomes the server's JSON error body. */
  async function runApi(ctx: RequestContext, path: string): Promise<SandboxResponse> {
    try {
      const match = router.match(path);
      if (!match) throw notFound();
      return await dispatch(ctx, match, services);
    } catch (error) {
      if (error instanceof ErrorResponse) return json(error.status, error.body, error.headers);
      log(`sandbox: unhandled error: ${error instanceof Error ? error.stack : String(error)}`);
      const failure = serverError();
      return json(failure.status, failure.body);
    }
  }

  function send(res: http.ServerResponse, response: SandboxResponse, extraHeaders: Record<string, string>): void {
    if (res.destroyed) return;
    const body = response.body ?? '';
    const buffer = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    res.statusCode = response.status;
    for (const [name, value] of Object.entries({ ...response.headers, ...extraHeaders })) res.setHeader(name, value);
    res.setHeader('Content-Length', buffer.length);
    res.end(buffer);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const at = now();
    const started = performance.now();
    const method = (req.method ?? 'GET').toUpperCase();
    let rawUrl = req.url ?? '/';
    if (/^https?:\/\//i.test(rawUrl)) {
      const parsed = new URL(rawUrl);
      rawUrl = parsed.pathname + parsed.search;
    }
    const q = rawUrl.indexOf('?');
    const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
    const rawQuery = q === -1 ? '' : rawUrl.slice(q + 1);

    let body: Buffer | 'too-large';
    try {
      body = await readBody(req);
    } catch {
      return; // the client went away mid-body
    }

    if (path.startsWith('/_sandbox/')) {
      send(res, internal(method, path), {});
      return;
    }

    const entry: RecordedRequest = {
      method,
      path,
      query: queryRecord(new URLSearchParams(rawQuery)),
      headers: { ...req.headers },
      // A gzipped capture body is kept decoded, so that tests can read the events sent.
      body: body === 'too-large' ? '' : CAPTURE_PATH.test(path) ? readableCapture(body) : body.toString('utf8'),
      status: 0,
      at,
    };
    record(entry);
    const finish = (response: SandboxResponse, extraHeaders: Record<string, string> = {}) => {
      entry.status = response.status;
      send(res, response, extraHeaders);
      log(`${method} ${rawUrl} ${response.status} ${Math.round(performance.now() - started)}ms`);
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

    const fault = faults.decide(method, path);
    if (fault?.kind === 'drop') {
      log(`${method} ${rawUrl} dropped (fault)`);
      req.socket.destroy();
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
      else finish(capture.handle(method, path, body, req.headers, new URLSearchParams(rawQuery)));
      return;
    }

    // /api/environments/{id}/... is served by the /api/projects/ handler when one exists, on the
    // same URL, with deprecation headers (EnvironmentsRewriteMiddleware).
    let routedPath = path;
    let aliasHeaders: Record<string, string> = {};
    const env = /^\/api\/environments\/([^/]+)(\/.*)?$/.exec(path);
    if (env) {
      const candidate = `/api/projects/${env[1]}${env[2] ?? ''}`;
      if (router.match(candidate)?.route.environmentsAlias) {
        routedPath = candidate;
        aliasHeaders = {
          Deprecation: 'true',
          Link: `<${candidate}${rawQuery ? `?${rawQuery}` : ''}>; rel="successor-version"`,
          Sunset: ENVIRONMENTS_SUNSET,
        };
      }
    }

    const rawBody = body;
    let parsed: { value?: unknown; error?: unknown } | undefined;
    let parsers: ParserSet = 'default';
    const ctx: RequestContext = {
      method,
      path: routedPath,
      rawQuery,
      query: new URLSearchParams(rawQuery),
      headers: req.headers,
      rawBody,
      origin: opts.linkOrigin ?? `http://${req.headers.host ?? url.replace(/^http:\/\//, '')}`,
      params: {},
      principal: null,
      project: null,
      action: null,
      renderer: 'json',
      data() {
        if (!parsed) {
          try {
            parsed = { value: parseRequestData(rawBody, req.headers['content-type'], parsers) };
          } catch (error) {
            parsed = { error };
          }
        }
        if (parsed.error !== undefined) throw parsed.error;
        return parsed.value;
      },
    };
    parsers = router.match(routedPath)?.route.parsers ?? 'default';

    if (fault?.kind === 'truncate') {
      // Reads run for real and are cut; writes are never run (see faults.ts).
      const safe = method === 'GET' || method === 'HEAD';
      const full = safe ? await runApi(ctx, routedPath) : undefined;
      finish({ status: 200, headers: { 'Content-Type': 'application/json' }, body: truncateBody(full?.body) }, aliasHeaders);
      return;
    }

    const response = await runApi(ctx, routedPath);
    // The request was carried out; its answer is lost on the way back (see faults.ts).
    if (fault?.kind === 'drop-after') {
      entry.status = response.status;
      log(`${method} ${rawUrl} ${response.status}, answer dropped (fault)`);
      req.socket.destroy();
      return;
    }
    if (fault?.kind === '504-after') {
      entry.status = response.status;
      send(res, faultResponse('504'), {});
      log(`${method} ${rawUrl} ${response.status}, answered 504 (fault)`);
      return;
    }
    finish(response, aliasHeaders);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      log(`sandbox: ${error instanceof Error ? error.stack : String(error)}`);
      if (!res.headersSent) send(res, empty(500), {});
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  url = `http://${urlHost}:${address.port}`;

  let closing: Promise<void> | undefined;
  return {
    url,
    port: address.port,
    projectId: 1,
    defaultKey,
    store: stores.get(1)!,
    stores,
    world,
    activity: services.activity,
    deletions: services.deletions,
    requests,
    capture: capture.stats,
    events,
    ingestion,
    addKey(scopes, addOpts = {}) {
      const value = randomKeyValue();
      keys.add(value, scopes, world.user.id, { scopedTeams: addOpts.scopedTeams ?? null });
      return value;
    },
    setFaults(spec) {
      faults = new FaultInjector(parseFaultSpec(spec, seed));
    },
    setBulkDeleteResponse(mode) {
      bulkDeleteResponse = checkBulkDeleteResponse(mode);
    },
    failDeletions(uuids, times = 1) {
      services.deletionFaults.fail(uuids, times);
    },
    setRateLimit(spec) {
      limiter.configure(parseRateLimitSpec(spec));
    },
    login: { email: world.user.email, password: identity.password },
    twoFactorUser: identity.twoFactorUser,
    identity,
    outbox: identity.outbox,
    ageSessions(seconds) {
      identity.sessions.age(seconds * 1000);
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
