// Persons bulk_delete found but could not delete come back in its 202 as `deletion_errors`,
// which PostHog means as "not deleted, retry these" (PostHog/posthog#103144): bulk-delete sends
// them again within the run (at most --retries rounds, under the same rate budget), and what is
// still left after that goes out again with --resume.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultInjector, parseFaultSpec } from '@hogctl/sandbox';
import { startWorld, type World } from '../harness.js';
import { bulkRequests, isAlive } from './bulk-delete-fixtures.js';

let world: World;
let dir: string;
let uuids: string[];
let cursor = 0;

beforeAll(async () => {
  world = await startWorld({ persons: 3000, seed: 47 });
  uuids = world.sandbox.store.listUuids(0, 3000);
  dir = mkdtempSync(join(tmpdir(), 'hogctl-deletion-errors-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

function idsFile(name: string, count: number): { path: string; ids: string[] } {
  const ids = uuids.slice(cursor, (cursor += count));
  const path = join(dir, `${name}.txt`);
  writeFileSync(path, `${ids.join('\n')}\n`);
  return { path, ids };
}

const alive = (ids: string[]) => ids.filter((id) => isAlive(world, id));
const bodies = (since: number) => bulkRequests(world, since).map((r) => JSON.parse(r.body) as { ids: string[] });

describe('deletion_errors: persons the server could not delete', () => {
  it('are sent again in the same run, and the run ends with every person deleted (exit 0)', async () => {
    const { path, ids } = idsFile('retried', 1500);
    const failing = [ids[3], ids[700], ids[1200]];
    world.sandbox.failDeletions(failing);
    const receiptPath = join(dir, 'retried.receipt.json');
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'bulk-delete', '--file', path, '--receipt', receiptPath, '-y']);
    expect(res.code, res.stderr).toBe(0);
    expect(alive(ids)).toEqual([]);
    const sent = bodies(before);
    // Two requests of the file, then one with exactly the three persons.
    expect(sent).toHaveLength(3);
    expect(new Set(sent[2].ids)).toEqual(new Set(failing));
    expect(res.stderr).toMatch(/sending 3 persons again that the server could not delete/);
    const receipt = JSON.parse(readFileSync(receiptPath, 'utf8'));
    expect(receipt.status).toBe('completed');
    expect(receipt.counts).toMatchObject({ persons_found: 1500, persons_deleted: 1500, deletion_errors: 0 });
    expect(receipt.deletion_errors).toEqual([]);
  });

  it('still failing after --retries rounds: exit 8 with the resume command, which sends only them again', async () => {
    const { path, ids } = idsFile('left', 1200);
    const failing = [ids[10], ids[1100]];
    world.sandbox.failDeletions(failing, 100);
    const receiptPath = join(dir, 'left.receipt.json');
    const res = await world.run(['persons', 'bulk-delete', '--file', path, '--receipt', receiptPath, '--retries', '2', '-y']);
    expect(res.code, res.stderr).toBe(8);
    expect(res.stderr).toMatch(/2 persons could not be deleted: the server reported an error deleting them .*each time it was asked/);
    expect(res.stderr).toMatch(/--resume/);
    const receipt = JSON.parse(readFileSync(receiptPath, 'utf8'));
    expect(receipt.status).toBe('partial');
    expect(receipt.counts.deletion_errors).toBe(2);
    expect(receipt.deletion_errors.map((e: { person_uuid: string }) => e.person_uuid).sort()).toEqual([...failing].sort());
    expect(alive(ids).sort()).toEqual([...failing].sort());

    // The server recovers; the resume sends those two and nothing else.
    world.sandbox.failDeletions(failing, 0);
    const before = world.sandbox.requests.length;
    const resumed = await world.run(['persons', 'bulk-delete', '--file', path, '--resume', '-y']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const sent = bodies(before);
    expect(sent).toHaveLength(1);
    expect(new Set(sent[0].ids)).toEqual(new Set(failing));
    expect(alive(ids)).toEqual([]);
    const after = JSON.parse(readFileSync(receiptPath, 'utf8'));
    expect(after.status).toBe('completed');
    // Each person found once: the resume sent the two as resends, as the first run did.
    expect(after.counts).toMatchObject({ persons_found: 1200, persons_deleted: 1200, deletion_errors: 0 });
  });

  it('a resend whose answer was lost after the server deleted the person is checked, found gone, and not sent again', async () => {
    const { path, ids } = idsFile('resend-lost', 10);
    const b = ids[5];
    world.sandbox.failDeletions([b], 1);
    const receiptPath = join(dir, 'resend-lost.receipt.json');
    const before = world.sandbox.requests.length;
    // The file's request is answered (b in deletion_errors); the resend's answer is lost after the server deleted b.
    const res = await world.withFaults(`504-after=0.5,path=bulk_delete,method=POST,seed=${seedFor([undefined, '504-after'])}`, () =>
      world.run(['persons', 'bulk-delete', '--file', path, '--receipt', receiptPath, '--retries', '1', '--concurrency', '1', '-y']),
    );
    expect(res.code, res.stderr).toBe(0);
    expect(alive(ids)).toEqual([]);
    const sent = bodies(before);
    expect(sent.map((s) => s.ids.includes(b))).toEqual([true, true]);
    const receipt = JSON.parse(readFileSync(receiptPath, 'utf8'));
    expect(receipt.status).toBe('completed');
    expect(receipt.counts).toMatchObject({ persons_found: 10, persons_deleted: 9, persons_gone_after_lost_answer: 1, deletion_errors: 0 });
    expect(receipt.deletion_errors).toEqual([]);
  });
});

/** A fault seed under which bulk_delete's POSTs meet these faults, in order. */
function seedFor(faults: (string | undefined)[]): number {
  const target = `/api/projects/${world.sandbox.projectId}/persons/bulk_delete/`;
  for (let seed = 1; ; seed++) {
    const injector = new FaultInjector(parseFaultSpec(`504-after=0.5,path=bulk_delete,method=POST,seed=${seed}`, 0));
    if (faults.every((kind) => injector.decide('POST', target)?.kind === kind)) return seed;
  }
}
