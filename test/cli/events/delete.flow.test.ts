// `hogctl events delete` and `events deletion-requests` in this process on virtual time
// (test/cli/virtual-harness.ts), against the sandbox's data_deletion_requests: a submission, a retry
// that makes no second request, a lost answer then --resume, the project's flag off, PostHog's
// five active requests, and the count that remains after the weekly deletion. On the real clock:
// test/cli/events/delete.test.ts (help and a dry run).
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
beforeEach(async () => {
  world = await startVirtualWorld({ persons: 4, eventsPerPerson: 0, applyDelayMs: 0 });
});
afterEach(() => world.close());

function addEvent(distinctId: string): string {
  const uuid = randomUUID();
  const us = world.clock.now() * 1000;
  world.sandbox.events.get(1)!.add({
    uuid,
    event: '$pageview',
    distinctId,
    personId: randomUUID(),
    timestampUs: us,
    createdAtUs: us,
    properties: '{}',
    sessionId: null,
  });
  return uuid;
}

const control = (path: string) => fetch(`${world.sandbox.url}/_sandbox/${path}`, { method: 'POST' }).then((r) => r.json());
const enable = () => control('projects/1/self-service-data-deletion/on');
/** Distinct ids long enough that 3,000 of them need two queries of at most 100,000 bytes. */
const manyIds = (n: number) => Array.from({ length: n }, (_, i) => `visitor-${String(i).padStart(6, '0')}-${'x'.repeat(24)}`);

describe('events delete', () => {
  it('previews, submits one pending request, and a second run makes no second request', async () => {
    await enable();
    addEvent('anon-1');
    addEvent('anon-1');
    const first = await world.run(['events', 'delete', '--distinct-id', 'anon-1', '--yes', '-o', 'json']);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('events selected now: 2');
    const [row] = JSON.parse(first.stdout);
    expect(row).toMatchObject({ request: 1, status: 'pending' });
    const again = await world.run(['events', 'delete', '--distinct-id', 'anon-1', '--yes', '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)[0].id).toBe(row.id);
    expect(world.sandbox.dataDeletions.list(1)).toHaveLength(1);
    // Nothing is sent, so nothing is counted or confirmed: the request covers what arrives before it runs.
    expect(again.stderr).not.toContain('events selected now');
    expect(again.stderr).toMatch(/request was made at \S+ and has not run yet: .* no new request is made/);
  });

  it('run again once its request ran, makes a new request for the events that arrived since', async () => {
    await enable();
    addEvent('anon-1');
    const first = await world.run(['events', 'delete', '--distinct-id', 'anon-1', '--yes', '-o', 'json']);
    expect(first.code).toBe(0);
    await control('projects/1/data-deletion-requests/approve');
    await control('deletions/run');
    expect(world.sandbox.dataDeletions.list(1).map((r) => r.status)).toEqual(['completed']);
    world.clock.advance(30 * 86_400_000);
    for (let i = 0; i < 3; i++) addEvent('anon-1');

    const second = await world.run(['events', 'delete', '--distinct-id', 'anon-1', '--yes', '-o', 'json']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(
      /every request of this selection's earlier run has run \(its journal is kept as \S+\): this run makes new ones/,
    );
    expect(second.stderr).toContain('events selected now: 3');
    const statuses = world.sandbox.dataDeletions.list(1).map((r) => r.status);
    expect(statuses.sort()).toEqual(['completed', 'pending']);
    expect(JSON.parse(second.stdout)).toEqual([expect.objectContaining({ request: 1, status: 'pending' })]);
  });

  it('says the project has the API off (exit 4), and sends no request', async () => {
    const res = await world.run(['events', 'delete', '--distinct-id', 'anon-1', '--yes']);
    expect(res.code).toBe(4);
    expect(res.stderr).toContain('self-service event deletion is not enabled for project 1');
    expect(res.stderr).toContain('ask PostHog support');
    expect(world.sandbox.dataDeletions.list(1)).toHaveLength(0);
  });

  it('after a lost answer, --resume sends the same submission ids: one request a query on the server', async () => {
    await enable();
    const file = `${world.configDir}/ids.txt`;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, manyIds(3000).join('\n'));
    world.sandbox.setFaults('drop-after=1,path=data_deletion_requests,method=POST');
    const lost = await world.run(['events', 'delete', '--distinct-ids', file, '--yes']);
    world.sandbox.setFaults();
    expect(lost.code).toBe(7);
    expect(world.sandbox.dataDeletions.list(1)).toHaveLength(1);
    const resumed = await world.run(['events', 'delete', '--distinct-ids', file, '--resume', '-o', 'json']);
    expect(resumed.code).toBe(0);
    const rows = JSON.parse(resumed.stdout);
    expect(rows).toHaveLength(2);
    expect(
      world.sandbox.dataDeletions
        .list(1)
        .map((r) => r.id)
        .sort(),
    ).toEqual(rows.map((r: { id: string }) => r.id).sort());
  });

  it("stops at PostHog's five active requests (exit 8), and --resume goes on once some completed", async () => {
    await enable();
    for (let i = 0; i < 4; i++) {
      world.sandbox.dataDeletions.add({
        teamId: 1,
        query: 'SELECT uuid FROM events',
        variables: {},
        submissionId: randomUUID(),
        createdById: 1,
        createdByStaff: false,
      });
    }
    const file = `${world.configDir}/ids.txt`;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, manyIds(3000).join('\n'));
    const stopped = await world.run(['events', 'delete', '--distinct-ids', file, '--yes']);
    expect(stopped.code).toBe(8);
    expect(stopped.stderr).toContain('1 of 2 requests made');
    await control('projects/1/data-deletion-requests/approve');
    await control('deletions/run');
    const resumed = await world.run(['events', 'delete', '--distinct-ids', file, '--resume']);
    expect(resumed.code).toBe(0);
    expect(world.sandbox.dataDeletions.list(1)).toHaveLength(6);
  });
});

describe('events deletion-requests', () => {
  it('lists requests, and for a completed one counts what remains: zero when done', async () => {
    await enable();
    addEvent('anon-1');
    const made = await world.run(['events', 'delete', '--distinct-id', 'anon-1', '--yes', '-o', 'json']);
    const id = JSON.parse(made.stdout)[0].id;
    const list = await world.run(['events', 'deletion-requests', '-o', 'json']);
    expect(JSON.parse(list.stdout).map((r: { id: string }) => r.id)).toEqual([id]);
    await control(`data-deletion-requests/${id}/approve`);
    await control('deletions/run');
    const shown = await world.run(['events', 'deletion-requests', id, '-o', 'json']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id, status: 'completed', remaining: 0 });
    expect(shown.stderr).toContain('done');
  });
});
