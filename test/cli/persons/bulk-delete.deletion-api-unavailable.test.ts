// Where PostHog's self-service event deletion (data_deletion_requests, PostHog/posthog PR
// #104278) is not there for the caller, in this process on virtual time: a server without the
// routes (404, here a proxy that sends them to a path the sandbox does not serve), a key without
// the data_deletion scopes, and preview, which PostHog refuses to every personal key (a custom
// action with no scope: posthog/api/data_deletion_request.py `preview`, posthog/permissions.py).
// Each says which, what remains undeleted and what to do; the person-keyed erasure still
// completes; nothing is reported as swept that was not.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAnswerProxy, type AnswerProxy } from '../answer-proxy.js';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
let proxy: AnswerProxy | undefined;
beforeEach(async () => {
  world = await startVirtualWorld({ persons: 3, eventsPerPerson: 0, applyDelayMs: 0 });
  await control('projects/1/self-service-data-deletion/on');
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await world.close();
});

const ADDRESS = 'sam@example.net';
const control = (path: string) => fetch(`${world.sandbox.url}/_sandbox/${path}`, { method: 'POST' }).then((r) => r.json());
const receiptPath = () => `${world.configDir}/erasure.json`;
const receipt = () => JSON.parse(readFileSync(receiptPath(), 'utf8'));

/** Sam signed up (one person, with the address) and a form posted the address personless. */
async function subject(): Promise<void> {
  const token = world.sandbox.world.projects.find((p) => p.id === 1)!.apiToken;
  const at = (minutesAgo: number) => new Date(world.clock.now() - minutesAgo * 60_000).toISOString();
  const batch = [
    { event: '$identify', distinct_id: 'sam-user', timestamp: at(20), properties: { $set: { email: ADDRESS } } },
    { event: 'form_posted', distinct_id: ADDRESS, timestamp: at(5), properties: { $process_person_profile: false } },
  ].map((e) => ({ ...e, properties: { $geoip_disable: true, ...e.properties } }));
  const res = await fetch(`${world.sandbox.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: token, batch }),
  });
  expect(res.status).toBe(200);
  const stored = () => [...world.sandbox.ingestion.values()].reduce((k, x) => k + x.stats.events, 0);
  for (let i = 0; i < 500 && stored() < world.sandbox.capture.events; i++) await new Promise((r) => setTimeout(r, 10));
}

const erase = (env: Record<string, string> = {}) =>
  world.run(['persons', 'bulk-delete', '--email', ADDRESS, '--delete-events', '--sweep-events', '--yes', '--receipt', receiptPath()], {
    env,
  });
const status = (env: Record<string, string> = {}) =>
  world.run(['persons', 'erasure-status', '--receipt', receiptPath(), '-o', 'json'], { env });
const sweepOf = () => receipt().projects[0].verification.sweep;

/** The erasure ran, the person is gone and its events deleted by the weekly job; the sweep was
 * not made and is recorded as not made; erasure-status says so, with `why`. */
async function expectPersonsDoneSweepNot(env: Record<string, string>, why: RegExp): Promise<void> {
  const run = await erase(env);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toMatch(/1 person deleted|persons? deleted/);
  expect(run.stderr).toContain('were NOT swept');
  expect(run.stderr).toMatch(why);
  expect(run.stderr).toMatch(/They remain until deleted otherwise: /);
  expect(world.sandbox.store.getByDistinctId('sam-user')).toBeUndefined();
  expect(sweepOf().status).toBe('unavailable');
  expect(sweepOf().requests.map((r: { id: unknown }) => r.id)).toEqual([null, null]);
  expect(sweepOf().unavailable.reason).toMatch(why);
  expect(world.sandbox.dataDeletions.list(1)).toEqual([]);
  await control('deletions/run');
  const after = await status(env);
  expect(after.code).toBe(8);
  const [row] = JSON.parse(after.stdout);
  // The persons and their events are gone; the sweep is reported as not made, never as done.
  expect(row).toMatchObject({ status: 'not_swept', persons_present: 0, sweep_requests_completed: 0 });
  expect(after.stderr).toMatch(why);
  expect(after.stderr).toMatch(/the events of 2 erased distinct ids collected up to .* remain/);
}

describe('bulk-delete --sweep-events where the deletion API is not there', () => {
  it('a server without data_deletion_requests (404): says so, the persons go, the events of the distinct ids remain', async () => {
    await subject();
    proxy = await startAnswerProxy(world.sandbox.url, { path: (p) => p.replace('/data_deletion_requests/', '/no_such_route/') });
    await expectPersonsDoneSweepNot(
      { HOGCTL_BASE_URL: proxy.url },
      /no self-service event deletion \(data_deletion_requests answered 404\)/,
    );
    expect(receipt().projects[0].verification.sweep.unavailable.what_to_do).toMatch(/ask PostHog support/);
  });

  it('a key without data_deletion:write: names the scope and the key to use; the persons go', async () => {
    await subject();
    const key = world.sandbox.addKey(['person:read', 'person:write', 'query:read', 'project:read', 'organization:read']);
    await expectPersonsDoneSweepNot({ HOGCTL_API_KEY: key }, /your API key lacks the scope data_deletion:write/);
    expect(sweepOf().unavailable.what_to_do).toMatch(/use a key with data_deletion:write .* run this erasure again with --resume/);
  });
});

describe('events delete with a personal key: preview is for a session only', () => {
  it('counts with HogQL instead, says why, and the request is still made with the key', async () => {
    await subject();
    const run = await world.run(['events', 'delete', '--distinct-id', ADDRESS, '--yes', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'PostHog previews deletions for a signed-in session only (`hogctl auth login`): counting with a HogQL query instead.',
    );
    expect(run.stderr).toContain('events selected now: 1 (counted by a HogQL query over events)');
    // The sandbox refused the key's preview as PostHog does, and took its create.
    const previews = world.sandbox.requests.filter((r) => r.path.endsWith('/data_deletion_requests/preview/'));
    expect(previews.map((r) => r.status)).toEqual([403]);
    expect(world.sandbox.dataDeletions.list(1)).toHaveLength(1);
  });
});
