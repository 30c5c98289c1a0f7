// A SIGKILL between submitting a data deletion request and its answer, then `--resume`: the
// built binary is killed while the sandbox holds the create (a `slow` fault, which carries the
// request out once its delay is over, as a server does with a request whose client went away).
// The journal kept the submission id before the request went, so the resumed run sends the same
// one and PostHog answers with the request it already made (posthog/data_deletion.py,
// docs/server-contract.md §14.5): one request on the server, not two.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, startWorld, until, type World } from '../e2e/harness.js';

let world: World;

beforeAll(async () => {
  world = await startWorld({ persons: 4, eventsPerPerson: 0 });
  await fetch(`${world.sandbox.url}/_sandbox/projects/1/self-service-data-deletion/on`, { method: 'POST' });
});
afterAll(() => world.close());

function addEvent(distinctId: string): void {
  const us = Date.now() * 1000;
  world.sandbox.events.get(1)!.add({
    uuid: randomUUID(),
    event: '$pageview',
    distinctId,
    personId: randomUUID(),
    timestampUs: us,
    createdAtUs: us,
    properties: '{}',
    sessionId: null,
  });
}

/** The journal of `events delete`, once written. */
function journal(): { requests: { submission_id: string; sent_at?: string; id?: string }[] } | undefined {
  const dir = join(world.configDir, 'journals');
  const name = existsSync(dir) ? readdirSync(dir).find((f) => /^events-delete-[0-9a-f]+\.json$/.test(f)) : undefined;
  return name ? JSON.parse(readFileSync(join(dir, name), 'utf8')) : undefined;
}

const creates = () =>
  world.sandbox.requests.filter((r) => r.method === 'POST' && /\/data_deletion_requests\/?$/.test(r.path.split('?')[0]));

describe('events delete killed while its request is on the way', () => {
  it('--resume after a SIGKILL sends the same submission id: one request on the server', async () => {
    addEvent('killed-visitor');
    const args = ['events', 'delete', '--distinct-id', 'killed-visitor', '--yes'];
    // Every POST under data_deletion_requests waits 3 s, then is carried out.
    world.sandbox.setFaults('slow=1@3000,path=data_deletion_requests,method=POST');
    try {
      const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(world.env), stdio: ['ignore', 'pipe', 'pipe'] });
      const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
      await until(() => journal()?.requests[0]?.sent_at !== undefined, 'the request journaled as sent');
      // Journaled before it goes: the kill waits until the sandbox has it (its log records a
      // request as it arrives, before the fault holds it), or it could come before it left.
      await until(() => creates().length === 1, 'the request at the sandbox');
      // The create is held by the sandbox now: no answer has come.
      expect(journal()!.requests[0].id).toBeUndefined();
      child.kill('SIGKILL');
      expect(await exited).toEqual({ code: null, signal: 'SIGKILL' });
      // The server carries it out all the same, once its delay is over.
      await until(() => world.sandbox.dataDeletions.list(1).length === 1, 'the held request carried out', 10_000);
    } finally {
      world.sandbox.setFaults();
    }
    const submission = journal()!.requests[0].submission_id;
    expect(world.sandbox.dataDeletions.list(1)[0].submissionId).toBe(submission);

    const resumed = await world.run([...args, '--resume', '-o', 'json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const [row] = JSON.parse(resumed.stdout);
    expect(row).toMatchObject({ id: world.sandbox.dataDeletions.list(1)[0].id, status: 'pending' });
    // One request on the server; the resumed run's create, with the same submission id, got it.
    expect(world.sandbox.dataDeletions.list(1)).toHaveLength(1);
    const sent = creates().map((r) => JSON.parse(r.body).submission_id);
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(new Set(sent)).toEqual(new Set([submission]));
    expect(journal()!.requests[0].id).toBe(row.id);
  });
});
