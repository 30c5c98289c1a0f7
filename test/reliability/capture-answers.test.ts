// Reliability, in this process (test/cli/harness.ts): a bulk update through capture whose /batch/
// requests are often answered with a 200 that is no acceptance (the events dropped), resumed until
// it completes. (A billing limit cannot be told this way: capture answers it with its acceptance,
// test/cli/persons/bulk-update.billing-limited.test.ts.) Every person must end changed, each person's change must
// go out with one event uuid and one timestamp however often it is sent, the receipt must equal the
// sandbox, and nobody may be created. (An earlier version took any 200 as success: persons were
// left unchanged behind a "completed" receipt, and --resume never sent them again.)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../cli/harness.js';

let world: World;
let dir: string;
beforeAll(async () => {
  world = await startWorld({ persons: 8000, seed: 41, applyDelayMs: 20 });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-capture-answers-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a bulk update whose capture answers are often refusals', () => {
  it('is resumed until every person is changed, each change always with the same event', async () => {
    const store = world.sandbox.store;
    const chosen = [...store].filter((p) => p.properties.plan === 'free' && p.distinctIds.length > 0);
    expect(chosen.length).toBeGreaterThan(2000);
    const before = store.size;
    const journal = join(dir, 'update.ndjson');
    const receipt = join(dir, 'update.receipt.json');
    const from = world.sandbox.requests.length;
    world.sandbox.setFaults('odd-200=0.4,seed=9,path=/batch/');
    const codes: number[] = [];
    try {
      const args = ['persons', 'bulk-update', '--where', 'plan=free', '--journal', journal, '-y', '--read-rate', '60000'];
      let res = await world.run([...args, '--set', 'plan=paid', '--set', 'meta={"tier": 2, "by": "import"}', '--receipt', receipt]);
      for (let runs = 1; res.code !== 0 && runs < 40; runs++) {
        codes.push(res.code!);
        // A refusal stops the run; what it said must name the cause.
        expect(res.stderr).toMatch(/not an acceptance PostHog's capture gives/);
        res = await world.run([...args, '--resume']);
      }
      expect(res.code, res.stderr.slice(-2000)).toBe(0);
    } finally {
      world.sandbox.setFaults(undefined);
    }
    // Each refusal stopped a run with 7: not capture's acceptance.
    expect(codes.length).toBeGreaterThan(1);
    expect(new Set(codes)).toEqual(new Set([7]));

    for (const p of chosen) expect(store.getById(p.id)!.properties).toMatchObject({ plan: 'paid', meta: { tier: 2, by: 'import' } });
    expect(store.size).toBe(before);
    expect(world.sandbox.capture.personsCreated).toBe(0);

    // One uuid and one timestamp per person, however often its change went out; none shared.
    const batches = world.sandbox.requests.slice(from).filter((r) => r.path === '/batch/');
    const byPerson = new Map<string, Set<string>>();
    const owners = new Map<string, string>();
    for (const b of batches)
      for (const e of JSON.parse(b.body).batch as { uuid: string; distinct_id: string; timestamp: string }[]) {
        byPerson.set(e.distinct_id, (byPerson.get(e.distinct_id) ?? new Set()).add(`${e.uuid} ${e.timestamp}`));
        expect(owners.get(e.uuid) ?? e.distinct_id).toBe(e.distinct_id);
        owners.set(e.uuid, e.distinct_id);
      }
    expect(byPerson.size).toBe(chosen.length);
    for (const stamps of byPerson.values()) expect(stamps.size).toBe(1);
    expect(batches.length).toBeGreaterThan(Math.ceil(chosen.length / 500));

    const r = JSON.parse(readFileSync(receipt, 'utf8'));
    expect(r).toMatchObject({
      status: 'completed',
      update: { verified: true, persons_applied: chosen.length, persons_pending: 0, persons_failed: 0 },
      counts: { sent: chosen.length, failed: 0, not_sent: 0 },
    });
  });
});
