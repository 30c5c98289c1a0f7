// `persons bulk-delete --sweep-events` and `persons erasure-status` in this process on virtual
// time (test/cli/virtual-harness.ts), against the sandbox: a subject whose person was merged from an
// anonymous id, an address used only as a personless distinct id, and events sent after the
// erasure; the same with the project's self-service deletion off; a sweep whose requests cannot be
// read; and a lost answer to a sweep request, then --resume.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
beforeEach(async () => {
  world = await startVirtualWorld({ persons: 3, eventsPerPerson: 0, applyDelayMs: 0 });
});
afterEach(() => world.close());

const ADDRESS = 'lee@example.net';
const control = (path: string) => fetch(`${world.sandbox.url}/_sandbox/${path}`, { method: 'POST' }).then((r) => r.json());

/** Captures events into project 1 through the sandbox's /batch/ and waits until they are stored. */
async function capture(events: Record<string, unknown>[]): Promise<void> {
  const token = world.sandbox.world.projects.find((p) => p.id === 1)!.apiToken;
  const batch = events.map((e) => ({ ...e, properties: { $geoip_disable: true, ...(e.properties as object) } }));
  const res = await fetch(`${world.sandbox.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: token, batch }),
  });
  expect(res.status).toBe(200);
  const stored = () => [...world.sandbox.ingestion.values()].reduce((k, x) => k + x.stats.events, 0);
  for (let i = 0; i < 500 && stored() < world.sandbox.capture.events; i++) await new Promise((r) => setTimeout(r, 10));
}

const at = (minutesAgo: number) => new Date(world.clock.now() - minutesAgo * 60_000).toISOString();

/** Lee browsed anonymously, signed up (merged from anon-lee), and a form posted her address as a
 * personless distinct id. */
async function subject(): Promise<void> {
  await capture([
    { event: '$pageview', distinct_id: 'anon-lee', timestamp: at(30) },
    {
      event: '$identify',
      distinct_id: 'lee-user',
      timestamp: at(20),
      properties: { $anon_distinct_id: 'anon-lee', $set: { email: ADDRESS } },
    },
    { event: '$pageview', distinct_id: 'lee-user', timestamp: at(10) },
    { event: 'form_posted', distinct_id: ADDRESS, timestamp: at(5), properties: { $process_person_profile: false } },
  ]);
}

const erase = (extra: string[] = []) =>
  world.run([
    'persons',
    'bulk-delete',
    '--email',
    ADDRESS,
    '--delete-events',
    '--sweep-events',
    '--yes',
    '--receipt',
    `${world.configDir}/erasure.json`,
    ...extra,
  ]);

const status = () => world.run(['persons', 'erasure-status', '--receipt', `${world.configDir}/erasure.json`, '-o', 'json']);
const receipt = () => JSON.parse(readFileSync(`${world.configDir}/erasure.json`, 'utf8'));

describe('bulk-delete --sweep-events', () => {
  it('sweeps the merged and the personless ids, and erasure-status counts zero up to the erasure', async () => {
    await control('projects/1/self-service-data-deletion/on');
    await subject();
    const run = await erase();
    expect(run.code, run.stderr).toBe(0);
    const [sweep] = receipt().projects.map((p: { verification: { sweep: unknown } }) => p.verification.sweep);
    // One request for the anonymous and the user's ids, one for the address in any case.
    expect(sweep).toMatchObject({ status: 'submitted', distinct_ids: 3, requests: [{ status: 'pending' }, { status: 'pending' }] });
    expect(world.sandbox.dataDeletions.list(1)).toHaveLength(2);
    // After the erasure, the form posts the address again.
    world.clock.advance(60 * 60_000);
    await capture([{ event: 'form_posted', distinct_id: ADDRESS, timestamp: at(0), properties: { $process_person_profile: false } }]);
    const before = await status();
    expect(before.code).toBe(8);
    expect(before.stderr).toContain('the erasure is not done yet');
    await control('projects/1/data-deletion-requests/approve');
    await control('deletions/run');
    const after = await status();
    expect(after.code, after.stderr).toBe(0);
    const [row] = JSON.parse(after.stdout);
    expect(row).toMatchObject({ status: 'complete', events_remaining: 0, events_after_erasure: 1, sweep_requests_completed: 2 });
    expect(after.stderr).toContain('1 event collected after the erasure');
    expect(after.stderr).toContain('What PostHog keeps after a person deletion');
    expect(receipt().what_posthog_keeps).toContainEqual(
      expect.objectContaining({ source: expect.stringContaining('posthog/dags/deletes.py') }),
    );
  });

  it('whose requests cannot be read (a 500) leaves the status unknown, not "nothing was swept"', async () => {
    await control('projects/1/self-service-data-deletion/on');
    await subject();
    expect((await erase()).code).toBe(0);
    await control('projects/1/data-deletion-requests/approve');
    await control('deletions/run');
    world.sandbox.setFaults('500=1,path=data_deletion_requests,method=GET');
    const res = await status().finally(() => world.sandbox.setFaults());
    expect(res.stderr).not.toContain('nothing was swept');
    expect(res.stderr).toMatch(/the server could not say: the sweep its requests cannot be read/);
    expect(JSON.parse(res.stdout)).toEqual([expect.objectContaining({ status: 'unknown' })]);
  });

  it('with the flag off, the persons go, and the status says the events of 3 distinct ids were not swept, and why', async () => {
    await subject();
    const run = await erase();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('were NOT swept');
    const [sweep] = receipt().projects.map((p: { verification: { sweep: unknown } }) => p.verification.sweep);
    expect(sweep).toMatchObject({ status: 'unavailable', distinct_ids: 3, requests: [{ id: null }, { id: null }] });
    await control('deletions/run');
    const after = await status();
    expect(after.code).toBe(8);
    const [row] = JSON.parse(after.stdout);
    expect(row).toMatchObject({ status: 'not_swept', persons_present: 0 });
    expect(after.stderr).toContain('self-service event deletion is not enabled for project 1');
    expect(after.stderr).toContain('ask PostHog support');
    expect(after.stderr).toMatch(/the events of 3 erased distinct ids collected up to 2026-11-22T10:00:00Z .* remain/);
  });

  it('after a lost answer to a sweep request, --resume makes no second request', async () => {
    await control('projects/1/self-service-data-deletion/on');
    await subject();
    world.sandbox.setFaults('drop-after=1,path=data_deletion_requests,method=POST');
    const lost = await erase();
    world.sandbox.setFaults();
    expect(lost.code).not.toBe(0);
    expect(world.sandbox.dataDeletions.list(1)).toHaveLength(1);
    const resumed = await erase(['--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    // The lost one once, and the address's, which the first run never reached.
    expect(world.sandbox.dataDeletions.list(1)).toHaveLength(2);
    const [sweep] = receipt().projects.map((p: { verification: { sweep: { requests: { id: string }[] } } }) => p.verification.sweep);
    // The list is newest first; the sweep's requests in the order they were made.
    expect(sweep.requests.map((r: { id: string }) => r.id)).toEqual(
      world.sandbox.dataDeletions
        .list(1)
        .map((r) => r.id)
        .reverse(),
    );
  });

  it('an address that names no person but carries events is counted by the plan and swept beside a person', async () => {
    await control('projects/1/self-service-data-deletion/on');
    const ghost = 'ghost@example.net';
    await capture([{ event: 'form_posted', distinct_id: ghost, timestamp: at(5), properties: { $process_person_profile: false } }]);
    await subject();
    const args = ['persons', 'bulk-delete', '--email', ADDRESS, '--email', ghost, '--delete-events', '--sweep-events', '--yes'];
    const plan = await world.run([...args, '--dry-run']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toContain(`2 events carry the given identifiers as distinct ids`);
    expect(plan.stderr).toContain(`${ghost}: 1`);
    const run = await world.run(args);
    expect(run.code, run.stderr).toBe(0);
    expect(world.sandbox.dataDeletions.list(1).map((r) => r.query)).toContainEqual(expect.stringContaining(`'${ghost}'`));
  });
});

describe('bulk-delete --sweep-events of a subject who is no person', () => {
  it('sweeps the events of an address that names no one, though no person is deleted', async () => {
    await control('projects/1/self-service-data-deletion/on');
    const ghost = 'ghost@example.net';
    await capture([{ event: 'form_posted', distinct_id: ghost, timestamp: at(5), properties: { $process_person_profile: false } }]);
    const run = await world.run(['persons', 'bulk-delete', '--email', ghost, '--delete-events', '--sweep-events', '--yes']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`1 event carries the given identifiers as distinct ids (${ghost}: 1)`);
    expect(world.sandbox.dataDeletions.list(1).map((r) => r.query)).toEqual([expect.stringContaining(`'${ghost}'`)]);
  });
});
