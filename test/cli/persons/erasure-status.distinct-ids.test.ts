// An erasure by distinct id (`persons bulk-delete --distinct-ids`): the persons are looked up
// first (batch_by_distinct_ids) and deleted by UUID, so the receipt names them by UUID and
// `persons erasure-status` can follow their event deletions (deletion_status knows persons by
// UUID only), never asking it about a distinct id.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';

let world: World;
let dir: string;

beforeAll(async () => {
  world = await startWorld({ persons: 600, seed: 59 });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-erasure-distinct-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

const status = (receipt: string) => world.run(['persons', 'erasure-status', '--receipt', receipt, '--read-rate', '6000', '-o', 'json']);
const badStatusReads = () => world.sandbox.requests.filter((r) => r.path.endsWith('/deletion_status/') && r.status === 400).length;

describe('erasure-status of an erasure by distinct id', () => {
  const receiptPath = () => join(dir, 'by-distinct-id.receipt.json');
  let persons: { uuid: string; distinctId: string }[];

  it('bulk-delete looks the persons up and records their UUIDs; erasure-status follows their event deletions', async () => {
    persons = world.sandbox.store
      .list({}, 0, 300)
      .map((p) => ({ uuid: p.uuid, distinctId: p.distinctIds[0] }))
      .filter((p) => p.distinctId);
    const path = join(dir, 'distinct.txt');
    writeFileSync(path, `${persons.map((p) => p.distinctId).join('\n')}\n`);
    const res = await world.run([
      'persons',
      'bulk-delete',
      '--file',
      path,
      '--distinct-ids',
      '--delete-events',
      '--receipt',
      receiptPath(),
      '-y',
    ]);
    expect(res.code, res.stderr).toBe(0);
    const receipt = JSON.parse(readFileSync(receiptPath(), 'utf8'));
    expect(receipt.sent_id_kind).toBe('person_uuids');
    expect(new Set(receipt.projects[0].ids_sent)).toEqual(new Set(persons.map((p) => p.uuid)));

    const pending = await status(receiptPath());
    expect(pending.code, pending.stderr).toBe(8);
    expect(JSON.parse(pending.stdout)[0]).toMatchObject({ status: 'pending', events_pending: persons.length });
    world.sandbox.deletions.runBatch();
    const done = await status(receiptPath());
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)[0]).toMatchObject({ status: 'complete', events_completed: persons.length });
    expect(badStatusReads()).toBe(0);
  });
});
