// `hogctl sandbox`: a local, PostHog-compatible HTTP server that copies the newest server's
// behaviour, quirks included (docs/server-contract.md §12), for demos and end-to-end tests.
//
// This module wires the pieces together: the seeded world and its stores, keys and sign-in, the
// services handlers use, the route table (routes/index.ts), and the handle a test holds. The
// socket is socket.ts, one request's way through the emulated server pipeline.ts, the sandbox's
// own /_sandbox/ routes control.ts. Loopback only by default; the data and keys are throwaway.
//
// Adding an endpoint: add a RouteSpec (pattern, scope object, DRF action per method, throttle
// class) to the module of its group under routes/, and register the group in routes/index.ts if
// it is new. Handlers get the RequestContext (ctx.project is already resolved and authorised,
// ctx.data() parses the body with the route's parsers) and Services (stores, world, clock, `later`
// for writes that apply after a 202); they return a SandboxResponse or throw an ErrorResponse
// from errors.ts. Session authentication plugs in with services.authentication.addAuthenticator.

import { Authentication, KeyRing, parseKeySpec, personalApiKeyAuthenticator, randomKeyValue, keyValueForSeed } from './auth.js';
import type { Services } from './context.js';
import { controlRoute } from './control.js';
import { FaultInjector, parseFaultSpec } from './faults.js';
import { parseRateLimitSpec, RateLimiter } from './rate-limit.js';
import { BULK_DELETE_RESPONSES, createRouter, type BulkDeleteResponse } from './routes/index.js';
import { Identity, type SentMail } from './identity.js';
import { sessionAuthenticator } from './session.js';
import { seedDocumentedPerson } from './documented.js';
import { seedDuplicates } from './duplicates.js';
import { SandboxStore } from './store.js';
import { ActivityLog } from './activity-log.js';
import { DeletionQueue } from './deletions.js';
import { DeletionFaults } from './deletion-faults.js';
import { DataDeletionRequests, type DataDeletionRequest } from './data-deletion.js';
import { selectEventUuids } from './data-deletion-query.js';
import { createWorld, type World } from './world.js';
import { Capture, type CaptureStats } from './capture.js';
import { EventStore } from './events.js';
import { seedHistory } from './event-history.js';
import { ProjectIngestion } from './ingestion.js';
import { handleRequest } from './pipeline.js';
import { hash32 } from './prng.js';
import type { RecordedRequest } from './request-log.js';
import { listen } from './socket.js';
import { parseQueryLimitSpec } from './query-limits.js';

export type { RecordedRequest } from './request-log.js';

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
  /** Groups of duplicate persons added to project 1 (the same e-mail in varied case, identified and
   * anonymous, with events: duplicates.ts), for trying `persons duplicates`, merge and undo; default 0. */
  duplicates?: number;
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
  /** Runs `fn` after `ms` on the clock `now` reads: how accepted writes and captured events are
   * applied later. Default: a real timer (cleared by close). A test on a virtual clock passes its
   * own, so that the apply delay passes on that clock too. */
  later?: (ms: number, fn: () => void) => void;
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
   * site (docs/server-contract.md §2.2). */
  linkOrigin?: string;
  /** PostHog's limits on a HogQL query, scaled for tests: 'time=10,rows-per-second=5000,size=262144'
   * (query-limits.ts). Default: no time ceiling, a simulated 1,000,000 rows a second, and
   * ClickHouse's max_query_size of 262,144 bytes. */
  queryLimits?: string;
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
  /** Queued event and recording deletions (deletion_status; `runBatch()` plays the weekly job). */
  deletions: DeletionQueue;
  /** Self-service event deletion requests (`data_deletion_requests`) of every project. */
  dataDeletions: DataDeletionRequests;
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
  /** Replace the query limits at run time (see SandboxOptions.queryLimits; undefined: the defaults). */
  setQueryLimits(spec?: string): void;
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

/** The projects and what each holds: its persons, its events and its person processing. */
function seedProjects(opts: SandboxOptions, seed: number) {
  const perProject = new Map<number, number>([
    [1, nonNegativeInt(opts.persons, 'persons', 250)],
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
  const duplicateEvents = seedDuplicates(stores.get(1)!, nonNegativeInt(opts.duplicates, 'duplicates', 0), seed);
  const eventsPerPerson = nonNegativeInt(opts.eventsPerPerson, 'eventsPerPerson', 3);
  const seedEvents = (id: number, store: SandboxStore, into: EventStore) => {
    seedHistory(store, into, eventsPerPerson, hash32(seed, id));
    if (id === 1) for (const event of duplicateEvents) into.append(event);
  };
  const events = new Map<number, EventStore>([...stores].map(([id, store]) => [id, new EventStore((into) => seedEvents(id, store, into))]));
  const ingestion = new Map<number, ProjectIngestion>(
    [...stores].map(([id, store]) => [
      id,
      new ProjectIngestion(id, store, events.get(id)!, () => world.projects.find((p) => p.id === id)!),
    ]),
  );
  return { world, stores, events, ingestion };
}

/** The keys: the all-scopes default key and any extra ones the options ask for. */
function seedKeys(opts: SandboxOptions, seed: number, world: World) {
  const keys = new KeyRing();
  const defaultKey = opts.keyFromSeed ? keyValueForSeed(seed) : randomKeyValue();
  keys.add(defaultKey, ['*'], world.user.id);
  for (const spec of opts.keys ?? []) {
    const key = parseKeySpec(spec);
    keys.add(key.value, key.scopes, world.user.id, { scopedTeams: key.scopedTeams });
  }
  return { keys, defaultKey };
}

/** Personal API keys, then session cookies. */
function authenticationOf(keys: KeyRing, world: World, identity: Identity, siteUrl: () => string): Authentication {
  const authentication = new Authentication();
  authentication.addAuthenticator(personalApiKeyAuthenticator(keys, (id) => (id === world.user.id ? world.user : undefined), siteUrl));
  authentication.addAuthenticator(sessionAuthenticator(identity.sessions, (id) => identity.user(id)));
  return authentication;
}

/** The capture service, feeding each project's ingestion. */
function captureOf(services: Services, ingestion: Map<number, ProjectIngestion>): Capture {
  const { world } = services;
  return new Capture({
    now: services.now,
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
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const seed = nonNegativeInt(opts.seed, 'seed', 1);
  const port = nonNegativeInt(opts.port, 'port', 0);
  const host = opts.host ?? '127.0.0.1';
  const now = opts.now ?? Date.now;
  const log = opts.quiet !== false ? () => {} : (opts.log ?? ((line: string) => void process.stderr.write(line + '\n')));
  const limiter = new RateLimiter(parseRateLimitSpec(opts.rateLimit), now);
  let faults = new FaultInjector(parseFaultSpec(opts.faults, seed));
  const { world, stores, events, ingestion } = seedProjects(opts, seed);
  const { keys, defaultKey } = seedKeys(opts, seed, world);

  let url = '';
  const siteUrl = () => url;
  const identity = new Identity(world, {
    now,
    siteUrl,
    log,
    password: opts.password,
    loginFailureLimit: opts.loginFailureLimit,
    loginCodes: opts.loginCodes,
  });

  const timers = new Set<NodeJS.Timeout>();
  const services: Services = {
    world,
    stores,
    keys,
    authentication: authenticationOf(keys, world, identity, siteUrl),
    identity,
    limiter,
    now,
    siteUrl,
    applyDelayMs: nonNegativeInt(opts.applyDelayMs, 'applyDelayMs', 50),
    later:
      opts.later ??
      ((ms, fn) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          fn();
        }, ms);
        timers.add(timer);
      }),
    activity: new ActivityLog(now),
    // PostHog's weekly deletion removes events by their stored person_id, each person's up to its
    // request (the squash before it has run: control.ts).
    deletions: new DeletionQueue(now, (teamId, rows) =>
      events.get(teamId)?.deleteByStoredPersonIds(new Map(rows.map((row) => [row.key, row.createdAtMs]))),
    ),
    events,
    deletionFaults: new DeletionFaults(),
    dataDeletions: new DataDeletionRequests(now),
    queryLimits: parseQueryLimitSpec(opts.queryLimits),
  };
  const capture = captureOf(services, ingestion);
  let bulkDeleteResponse = checkBulkDeleteResponse(opts.bulkDeleteResponse ?? 'summary');
  const router = createRouter(() => bulkDeleteResponse);
  const requests: RecordedRequest[] = [];

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

  const setQueryLimits = (spec?: string) => {
    services.queryLimits = parseQueryLimitSpec(spec);
    return services.queryLimits;
  };
  // The pickup recompiles the stored query against the project's events as they are now.
  const selectQueued = (row: DataDeletionRequest) =>
    selectEventUuids(row.query, row.variables, { store: stores.get(row.teamId)!, events: events.get(row.teamId), teamId: row.teamId });
  const control = {
    requests,
    identity,
    deletions: services.deletions,
    world,
    state,
    dataDeletions: services.dataDeletions,
    selectQueued,
    removeEvents: (teamId: number, uuids: ReadonlySet<string>) => void events.get(teamId)?.deleteByUuids(uuids),
    squashOverrides: (teamId?: number) => {
      for (const [id, store] of events) if (teamId === undefined || id === teamId) store.squashOverrides();
    },
    setQueryLimits,
  };
  const pipeline = { router, services, capture, requests, faults: () => faults, linkOrigin: opts.linkOrigin, log };
  const listening = await listen({ host, port, now, log }, async (exchange) => {
    if (exchange.path.startsWith('/_sandbox/')) exchange.send(controlRoute(exchange.method, exchange.path, control));
    else await handleRequest(exchange, pipeline);
  });
  url = listening.url;

  let closing: Promise<void> | undefined;
  return {
    url,
    port: listening.port,
    projectId: 1,
    defaultKey,
    store: stores.get(1)!,
    stores,
    world,
    activity: services.activity,
    deletions: services.deletions,
    dataDeletions: services.dataDeletions,
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
    setQueryLimits(spec) {
      setQueryLimits(spec);
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
      closing ??= (() => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        return listening.close();
      })();
      return closing;
    },
  };
}
