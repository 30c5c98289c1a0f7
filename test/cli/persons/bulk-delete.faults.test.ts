// Reliability, in this process on virtual time (test/cli/virtual-harness.ts): `persons bulk-delete`
// under every fault the sandbox injects (the backoff between attempts is virtual; a slow answer's
// timeout is real). Each run deletes its
// own 1,200 persons in two requests, with one retry each; the seed makes both attempts at the
// first request meet the fault, and leaves the second request to the dice. A run either deletes
// them all (exit 0, and the sandbox no longer has them) or stops with exit 8, naming what failed,
// and the resume command it prints finishes the job.
//
// bulk_delete is marked idempotent (unknown ids are ignored), so the runner retries every fault;
// a slow answer the client gave up on may still have deleted its persons. Against the built
// binary: every fault on bulk_delete in test/reliability/write-faults.test.ts ("persons delete"),
// and erasure-250k.test.ts; a run under mixed faults on the real clock in
// test/cli/persons/bulk-delete.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';
import { errorLine, expectCleanFailure, expectNoKey, FAULT_CASES, seedHittingFirst } from '../../reliability/helpers.js';

const PER_RUN = 1200;

let world: VirtualWorld;
let dir: string;
let uuids: string[];
let cursor = 0;

beforeAll(async () => {
  world = await startVirtualWorld({ persons: PER_RUN * (FAULT_CASES.length + 1) + 50, seed: 21 });
  uuids = [];
  for (let offset = 0; offset < world.sandbox.store.size; offset += 1000) uuids.push(...world.sandbox.store.listUuids(offset, 1000));
  dir = mkdtempSync(join(tmpdir(), 'hogctl-reliability-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

function take(n: number): string[] {
  const out = uuids.slice(cursor, cursor + n);
  cursor += n;
  if (out.length < n) throw new Error('the sandbox ran out of persons for this file');
  return out;
}

const alive = (ids: string[]) => ids.filter((id) => world.sandbox.store.getByUuid(id) !== undefined);
const BULK_PATH = `/api/projects/1/persons/bulk_delete/`;

/** The command the hint says continues the run, as argv (the paths here need no quoting). */
function resumeArgs(stderr: string): string[] {
  const line = /^\s+hogctl (persons bulk-delete .* --resume)$/m.exec(stderr)?.[1];
  expect(line, 'the error says how to resume').toBeDefined();
  return line!.split(' ');
}

describe.each(FAULT_CASES)('under $kind', (c) => {
  it('persons bulk-delete deletes every person, or exits 8 naming the failure and its resume command finishes the job', async () => {
    const ids = take(PER_RUN);
    const name = `ids-${c.kind}`;
    const path = join(dir, `${name}.txt`);
    writeFileSync(path, `${ids.join('\n')}\n`);
    const receipt = join(dir, `${name}.receipt.json`);
    const spec = `${c.entry(0.5)},path=bulk_delete`;
    const seed = seedHittingFirst(spec, c.kind, 'POST', BULK_PATH, 2);
    const args = [
      'persons',
      'bulk-delete',
      '--file',
      path,
      '--yes',
      '-o',
      'json',
      '--receipt',
      receipt,
      '--journal',
      join(dir, `${name}.ndjson`),
    ];
    world.sandbox.setFaults(`${spec},seed=${seed}`);
    let res;
    try {
      res = await world.run([...args, '--timeout', '1', '--retries', '1', '--concurrency', '1', '--rate', '6000']);
    } finally {
      world.sandbox.setFaults();
    }
    expectNoKey(world, res);
    expect(readFileSync(receipt, 'utf8')).not.toContain(world.sandbox.defaultKey);
    // A 429 is waited out (the budget is the key's); anything else uses up the first request's retry.
    // An attempt that lost its answer after the server did the work (a slow answer, a dropped
    // or cut-off one) is settled by checking its ids, so that request needs no retry.
    if (c.kind.startsWith('429')) expect(res.code).toBe(0);
    else if (c.unclear) expect([0, 8]).toContain(res.code);
    else expect(res.code).toBe(8);
    if (res.code === 0) {
      expect(JSON.parse(res.stdout)).toMatchObject({ status: 'completed', unique: PER_RUN, failed: 0 });
    } else {
      expectCleanFailure(world, res);
      expect(errorLine(res)).toMatch(/^error: \d of 2 requests failed after retries \([\d,]+ ids\)/);
      // Each failed request is named with what went wrong.
      expect(res.stderr).toMatch(new RegExp(`chunk \\d \\([\\d,]+ ids\\) failed after 2 attempts: .*${c.says.source}`));
      const partial = JSON.parse(readFileSync(receipt, 'utf8'));
      expect(partial.status).toBe('partial');
      expect(partial.failed_chunks.length).toBeGreaterThan(0);
      const resumed = await world.run([...resumeArgs(res.stderr), '--yes', '-o', 'json']);
      expect(resumed.code).toBe(0);
      const done = JSON.parse(readFileSync(receipt, 'utf8'));
      expect(done).toMatchObject({ status: 'completed', failed_chunks: [] });
    }
    expect(alive(ids)).toEqual([]);
    // Every person is accounted for: those the server reported deleting, and apart from them
    // those found gone when checked after an attempt without an answer (a plain file is not looked
    // up first, so the receipt cannot claim that attempt deleted them rather than that they never
    // existed).
    const final = JSON.parse(readFileSync(receipt, 'utf8'));
    const gone = final.counts.persons_gone_after_lost_answer ?? 0;
    expect(final.counts.persons_deleted + gone).toBe(PER_RUN);
    expect(final.counts.persons_found + gone).toBe(PER_RUN);
    expect(final.counts.unconfirmed).toBe(0);
    expect(final.unclear_requests).toBeNull();
  });
});

describe('integer ids, resolved by GETs that meet faults', () => {
  it('either resolves and deletes them all, or stops before deleting anything with exit 7', async () => {
    const persons = take(6).map((uuid) => world.sandbox.store.getByUuid(uuid)!);
    const path = join(dir, 'integers.txt');
    writeFileSync(path, persons.map((p) => p.id).join('\n'));
    const spec = '500=0.5,method=GET';
    const seed = seedHittingFirst(spec, '500', 'GET', `/api/projects/1/persons/${persons[0].id}/`);
    world.sandbox.setFaults(`${spec},seed=${seed}`);
    let res;
    try {
      res = await world.run([
        'persons',
        'bulk-delete',
        '--file',
        path,
        '--yes',
        '--concurrency',
        '1',
        '--journal',
        join(dir, 'integers.ndjson'),
      ]);
    } finally {
      world.sandbox.setFaults();
    }
    // The first lookup meets a 500, which is not retried: nothing may be deleted after that.
    expect(res.code).toBe(7);
    expectCleanFailure(world, res);
    expect(errorLine(res)).toMatch(/failed with 500/);
    expect(res.stderr).toMatch(/nothing was deleted/);
    expect(alive(persons.map((p) => p.uuid))).toHaveLength(6);
    const again = await world.run(['persons', 'bulk-delete', '--file', path, '--yes', '--journal', join(dir, 'integers.ndjson')]);
    expect(again.code).toBe(0);
    expect(alive(persons.map((p) => p.uuid))).toEqual([]);
  });
});
