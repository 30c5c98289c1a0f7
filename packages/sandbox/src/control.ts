// The sandbox's own routes under /_sandbox/ (packages/sandbox/README.md, "Inspection and
// control"): what it received and holds, the mail it would have sent, and the switches a test or
// a demo turns (the weekly deletion job, session age, a project's person processing, GeoIP, IP
// anonymisation, the age past which its events are dropped, and the query limits). They are not recorded,
// throttled, faulted or authenticated.

import { json, type SandboxResponse } from './context.js';
import type { DeletionQueue } from './deletions.js';
import { serializeRequest, type DataDeletionRequest, type DataDeletionRequests } from './data-deletion.js';
import { notFound } from './errors.js';
import type { Identity } from './identity.js';
import type { World } from './world.js';

export interface ControlDeps {
  requests: unknown[];
  identity: Identity;
  deletions: DeletionQueue;
  world: World;
  /** The body of GET /_sandbox/state. */
  state: () => unknown;
  dataDeletions: DataDeletionRequests;
  /** Runs a data deletion request's stored query now: the event UUIDs its pickup queues. */
  selectQueued: (row: DataDeletionRequest) => string[];
  /** Rewrites the stored person_id of events through the person overrides (the squash), of one
   * project or of all. */
  squashOverrides: (teamId?: number) => void;
  /** Deletes a project's events by UUID (the weekly job's adhoc arm). */
  removeEvents: (teamId: number, uuids: ReadonlySet<string>) => void;
  /** Sets the query limits from a spec (query-limits.ts) and returns them. */
  setQueryLimits: (spec?: string) => unknown;
}

export function controlRoute(method: string, path: string, deps: ControlDeps): SandboxResponse {
  const { identity, world } = deps;
  const p = path.replace(/\/+$/, '');
  if (method === 'GET' && p === '/_sandbox/requests') return json(200, deps.requests);
  if (method === 'GET' && p === '/_sandbox/state') return json(200, deps.state());
  if (method === 'GET' && p === '/_sandbox/outbox') return json(200, identity.outbox);
  // What PostHog's weekly batch does (Saturday night UTC): the person-overrides squash, then every
  // queued event deletion completes, the person-keyed ones and the queued UUIDs of data deletion
  // requests.
  const run = /^\/_sandbox\/deletions\/run(?:\/(\d+))?$/.exec(p);
  if (method === 'POST' && run) return weeklyJob(deps, run[1] ? Number(run[1]) : undefined);
  const approval = dataDeletionApproval(method, p, deps);
  if (approval) return approval;
  const age = /^\/_sandbox\/sessions\/age\/(\d+)$/.exec(p);
  if (method === 'POST' && age) return json(200, { sessions: identity.sessions.age(Number(age[1]) * 1000) });
  const limits = /^\/_sandbox\/query-limits(?:\/([^/]+))?$/.exec(p);
  if (method === 'POST' && limits) return queryLimits(deps, limits[1] === undefined ? undefined : decodeURIComponent(limits[1]));
  const drop = /^\/_sandbox\/projects\/(\d+)\/drop-events-older-than\/(\d+|off)$/.exec(p);
  if (method === 'POST' && drop) return dropEventsOlderThan(world, Number(drop[1]), drop[2]);
  const setting = /^\/_sandbox\/projects\/(\d+)\/([a-z-]+)\/(on|off)$/.exec(p);
  const project = setting ? world.projects.find((x) => x.id === Number(setting[1])) : undefined;
  const field = setting ? PROJECT_SWITCHES[setting[2]] : undefined;
  if (method === 'POST' && project && field) {
    project[field.key] = setting![3] === 'on';
    return json(200, { project: project.id, [field.name]: project[field.key] });
  }
  const error = notFound();
  return json(error.status, error.body);
}

/**
 * PostHog's deletes_job runs when the squash has succeeded (posthog/dags/deletes.py,
 * `run_deletes_after_squash`; docs/server-contract.md §14.5): the squash gives the events of every
 * overridden distinct id (a merge's, and the tombstones of a deleted person's distinct ids) the
 * override's person, so a person's own personless and pre-merge events go with it. PostHog
 * squashes only overrides older than two days and takes only deletions older than the oldest
 * override left; the sandbox runs "now", as if the request were old enough.
 */
function weeklyJob(deps: ControlDeps, teamId: number | undefined): SandboxResponse {
  deps.squashOverrides(teamId);
  const completed = deps.deletions.runBatch(teamId);
  const requests = deps.dataDeletions.runWeekly(teamId, deps.removeEvents);
  return json(200, { completed, data_deletion_requests_completed: requests });
}

/**
 * What PostHog staff and its pickup sensor do to a pending data deletion request: approve it, run
 * its query once and queue the UUIDs (data-deletion.ts). `POST
 * /_sandbox/data-deletion-requests/<id>/approve` approves one; `POST
 * /_sandbox/projects/<id>/data-deletion-requests/approve` every pending one of a project.
 */
function dataDeletionApproval(method: string, p: string, deps: ControlDeps): SandboxResponse | null {
  if (method !== 'POST') return null;
  const all = /^\/_sandbox\/projects\/(\d+)\/data-deletion-requests\/approve$/.exec(p);
  if (all) return json(200, { approved: deps.dataDeletions.approveAll(Number(all[1]), deps.selectQueued) });
  const one = /^\/_sandbox\/data-deletion-requests\/([^/]+)\/approve$/.exec(p);
  if (!one) return null;
  const row = deps.dataDeletions.byId(one[1]);
  if (!row) {
    const error = notFound();
    return json(error.status, error.body);
  }
  if (!deps.dataDeletions.approve(row, deps.selectQueued)) return json(409, { detail: `The request is ${row.status}, not pending.` });
  return json(200, serializeRequest(row));
}

/** POST /_sandbox/query-limits/<spec> (no spec: the defaults); 400 with the reason for a bad spec. */
function queryLimits(deps: ControlDeps, spec: string | undefined): SandboxResponse {
  try {
    return json(200, deps.setQueryLimits(spec));
  } catch (error) {
    return json(400, { detail: (error as Error).message });
  }
}

/** Team.drop_events_older_than (posthog/models/team/team.py): seconds, at least an hour, or off
 * (null). Only Django admin sets it on PostHog. */
function dropEventsOlderThan(world: World, id: number, value: string): SandboxResponse {
  const project = world.projects.find((x) => x.id === id);
  if (!project) {
    const error = notFound();
    return json(error.status, error.body);
  }
  const seconds = value === 'off' ? null : Number(value);
  if (seconds !== null && seconds < 3600)
    return json(400, { drop_events_older_than: ['Ensure this value is greater than or equal to 1:00:00.'] });
  project.dropEventsOlderThanSeconds = seconds;
  return json(200, { project: project.id, drop_events_older_than_seconds: seconds });
}

/** A project's switches, as its settings pages turn them on and off: the path's word, the field,
 * and the name the answer gives it. */
const PROJECT_SWITCHES: Record<
  string,
  { key: 'personProcessingOptOut' | 'geoipEnabled' | 'anonymizeIps' | 'selfServiceDataDeletion'; name: string }
> = {
  'person-processing-opt-out': { key: 'personProcessingOptOut', name: 'person_processing_opt_out' },
  // The GeoIP transformation (a hog function, not a team field: the name is the sandbox's own).
  geoip: { key: 'geoipEnabled', name: 'geoip' },
  'anonymize-ips': { key: 'anonymizeIps', name: 'anonymize_ips' },
  // The feature flag PostHog turns on per project for data_deletion_requests (data-deletion.ts).
  'self-service-data-deletion': { key: 'selfServiceDataDeletion', name: 'self-service-data-deletion' },
};
