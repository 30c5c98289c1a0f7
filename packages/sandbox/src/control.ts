// The sandbox's own routes under /_sandbox/ (packages/sandbox/README.md, "Inspection and
// control"): what it received and holds, the mail it would have sent, and the switches a test or
// a demo turns (the weekly deletion job, session age, a project's person processing). They are not
// recorded, throttled, faulted or authenticated.

import { json, type SandboxResponse } from './context.js';
import type { DeletionQueue } from './deletions.js';
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
}

export function controlRoute(method: string, path: string, deps: ControlDeps): SandboxResponse {
  const { identity, world } = deps;
  const p = path.replace(/\/+$/, '');
  if (method === 'GET' && p === '/_sandbox/requests') return json(200, deps.requests);
  if (method === 'GET' && p === '/_sandbox/state') return json(200, deps.state());
  if (method === 'GET' && p === '/_sandbox/outbox') return json(200, identity.outbox);
  // What PostHog's weekly batch does (Sundays 05:00 UTC): every queued event deletion completes.
  const run = /^\/_sandbox\/deletions\/run(?:\/(\d+))?$/.exec(p);
  if (method === 'POST' && run) return json(200, { completed: deps.deletions.runBatch(run[1] ? Number(run[1]) : undefined) });
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
