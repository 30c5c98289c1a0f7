// `hogctl persons merge`, in this process, merges the groups `persons duplicates` found through
// capture's `$merge_dangerously`, as the sandbox's ingestion applies it (PostHog's rules: the kept
// person's properties win, the earliest created_at stays), reads back until each group is one
// person, and writes a receipt equal to the sandbox's state. The confirmation on a real terminal,
// Ctrl-C and kills are test/e2e/persons-merge.test.ts.
import { readFileSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { PostHog } from 'posthog-node';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';
import { fresh } from '../../e2e/sdk.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  identified as identifiedThroughSdk,
  identifiedPair as identifiedPairThroughSdk,
  MERGE_WORLD,
  seedTwins,
  type Twins,
} from './merge-fixtures.js';

let world: World;
let groups: Twins['groups'];
let firstTwin: Twins['firstTwin'];
/** The merge's receipt, and every person as it was before it. */
let mergeReceipt = '';
let beforeMerge = new Map<string, string>();

function snapshot(): Map<string, string> {
  return new Map([...world.sandbox.store].map((p) => [p.uuid, JSON.stringify([[...p.distinctIds].sort(), p.properties, p.createdAtUs])]));
}

const identified = (persons: [distinctId: string, properties: Record<string, unknown>][]) => identifiedThroughSdk(world, persons);
const identifiedPair = (name: string) => identifiedPairThroughSdk(world, name);

beforeAll(async () => {
  world = await startWorld(MERGE_WORLD);
  ({ groups, firstTwin } = await seedTwins(world));
}, 120_000);
afterAll(async () => {
  await world?.close();
});

describe('persons merge', () => {
  it('bad groups: exit 2 naming the line, and nothing sent', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'merge', '--groups', '-', '--yes'], { stdin: '{"project_id": "1", "persons": []}\n' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('standard input line 1: a group needs "persons", two or more');
    const alone = await world.run(['persons', 'merge', 'user-1', '--yes']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('one person is not a group');
    expect(world.sandbox.requests.length).toBe(before);
  });

  it('refuses off a terminal without --yes, and --dry-run sends nothing', async () => {
    const dup = await world.run(['persons', 'duplicates', '-o', 'json']);
    expect(dup.code, dup.stderr).toBe(0);
    const captured = world.sandbox.capture.events;
    const refused = await world.run(['persons', 'merge', '--groups', '-'], { stdin: dup.stdout });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refusing without confirmation/);
    const dry = await world.run(['persons', 'merge', '--groups', '-', '--dry-run'], { stdin: dup.stdout });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(`groups    ${groups.size} (`);
    expect(dry.stderr).toContain("the kept person's properties win");
    expect(dry.stderr).toMatch(/has a distinct id PostHog refuses to merge \("null"\)/);
    expect(world.sandbox.capture.events).toBe(captured);
  });

  it('merges every group into its oldest person, with every distinct id, PostHog property rule, and a receipt equal to the state', async () => {
    const before = snapshot();
    const dup = await world.run(['persons', 'duplicates', '-o', 'ndjson']);
    expect(dup.code, dup.stderr).toBe(0);
    const receipt = join(world.configDir, 'merge-receipt.json');
    mergeReceipt = receipt;
    beforeMerge = before;
    // --keep oldest: the checks below start from the seeded person of each group, the oldest.
    const res = await world.run(['persons', 'merge', '--groups', '-', '--yes', '--keep', 'oldest', '--receipt', receipt, '-o', 'json'], {
      stdin: dup.stdout,
    });
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ groups: groups.size, merged: groups.size, pending: 0, failed: 0 });
    const store = world.sandbox.store;
    const touched = new Set<string>();
    const written = JSON.parse(readFileSync(receipt, 'utf8'));
    expect((statSync(receipt).mode & 0o777).toString(8)).toBe('600');
    for (const [email, ids] of groups) {
      const persons = ids.map((id) => before.get([...before.keys()].find((u) => JSON.parse(before.get(u)!)[0].includes(id))!));
      expect(persons.every(Boolean)).toBe(true);
      const kept = store.getByDistinctId(ids[0])!;
      // One person holds every id: the seeded one, the oldest.
      for (const id of ids) expect(store.getByDistinctId(id)?.uuid).toBe(kept.uuid);
      expect([...kept.distinctIds].sort()).toEqual([...ids].sort());
      // Its own values win (plan, email); keys only a merged person had are added.
      const [, keptBefore] = JSON.parse(before.get(kept.uuid)!);
      expect(kept.properties.email).toBe(email);
      expect(kept.properties.plan).toBe(keptBefore.plan);
      expect(kept.properties.only_0).toBe(firstTwin.get(email));
      // The receipt says what the sandbox holds.
      const entry = written.groups.find((g: { keep: string }) => g.keep === kept.uuid);
      expect(entry.status).toBe('merged');
      expect(entry.distinct_ids).toEqual([...kept.distinctIds].sort());
      for (const id of ids) touched.add([...before.keys()].find((u) => JSON.parse(before.get(u)!)[0].includes(id))!);
    }
    // No other person changed, the "null" person included.
    const after = snapshot();
    for (const [uuid, state] of before) if (!touched.has(uuid)) expect(after.get(uuid)).toBe(state);
    expect(store.getByDistinctId('null')?.distinctIds).toEqual(['null']);
    expect(written.left_out.map((l: { reason: string }) => l.reason).join()).toMatch(/refuses to merge/);
  });

  it('--undo gives every former person its own distinct ids and properties again', async () => {
    const res = await world.run(['persons', 'merge', '--undo', mergeReceipt, '--yes', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ groups: groups.size, restored: groups.size, pending: 0 });
    const store = world.sandbox.store;
    const sorted = (value: unknown): unknown =>
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
          )
        : value;
    for (const ids of groups.values()) {
      for (const [uuid, state] of beforeMerge) {
        const [formerIds, properties] = JSON.parse(state) as [string[], Record<string, unknown>];
        if (!formerIds.some((id) => ids.includes(id))) continue;
        const now = store.getByDistinctId(formerIds[0])!;
        expect([...now.distinctIds].sort(), uuid).toEqual(formerIds);
        expect(sorted(now.properties)).toEqual(sorted(properties));
      }
    }
  });

  it('--undo reports a group whose kept person was deleted since, and undoes the others (exit 8)', async () => {
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((x) => fresh(`undo-${x}`));
    await identified([a, b, c, d].map((id) => [id, { mine: id }]));
    const store = world.sandbox.store;
    const groupsFile = join(world.configDir, 'two-groups.json');
    const person = (id: string) => {
      const p = store.getByDistinctId(id)!;
      return { uuid: p.uuid, distinct_ids: [...p.distinctIds], properties: p.properties, created_at: p.createdAt };
    };
    writeFileSync(
      groupsFile,
      JSON.stringify([
        { project_id: '1', persons: [person(a), person(b)] },
        { project_id: '1', persons: [person(c), person(d)] },
      ]),
    );
    const receipt = join(world.configDir, 'two-groups.receipt.json');
    const merged = await world.run(['persons', 'merge', '--groups', groupsFile, '--yes', '--receipt', receipt]);
    expect(merged.code, merged.stderr).toBe(0);
    const erased = store.getByDistinctId(a)!.uuid;
    const deleted = await world.run(['persons', 'delete', erased, '--yes']);
    expect(deleted.code, deleted.stderr).toBe(0);
    const undo = await world.run(['persons', 'merge', '--undo', receipt, '--yes', '-o', 'json']);
    expect(undo.code, undo.stderr).toBe(8);
    expect(undo.stderr).toContain(`the kept person ${erased} no longer exists`);
    expect(JSON.parse(undo.stdout)).toMatchObject({ groups: 2, restored: 1, failed: 1, pending: 0 });
    expect(store.getByDistinctId(c)!.uuid).not.toBe(store.getByDistinctId(d)!.uuid);
    expect(store.getByDistinctId(d)!.properties.mine).toBe(d);
  });

  it('merge <keep> <other> merges one group into the first person named; --resume of a finished merge sends nothing more', async () => {
    const [a, b] = [fresh('one-a'), fresh('one-b')];
    await identified([
      [a, { plan: 'a', only_a: 1 }],
      [b, { plan: 'b', only_b: 1 }],
    ]);
    const keepUuid = world.sandbox.store.getByDistinctId(b)!.uuid;
    const res = await world.run(['persons', 'merge', b, a, '--yes']);
    expect(res.code, res.stderr).toBe(0);
    const kept = world.sandbox.store.getByDistinctId(a)!;
    expect(kept.uuid).toBe(keepUuid);
    expect(kept.properties).toMatchObject({ plan: 'b', only_a: 1, only_b: 1 });
    const captured = world.sandbox.capture.events;
    const again = await world.run(['persons', 'merge', b, a, '--yes', '--resume']);
    expect(again.code, again.stderr).toBe(0);
    expect(world.sandbox.capture.events).toBe(captured);
    const journals = join(world.configDir, 'journals');
    expect(existsSync(journals)).toBe(true);
  });

  it('merged, undone, then started again without --resume: refused (exit 2), not groups "pending" that nothing will merge', async () => {
    const [a, b] = await identifiedPair('again');
    const receipt = join(mkdtempSync(join(tmpdir(), 'hogctl-merge-again-')), 'merged.json');
    expect((await world.run(['persons', 'merge', a, b, '--yes', '--receipt', receipt])).code).toBe(0);
    const undone = await world.run(['persons', 'merge', '--undo', receipt, '--yes']);
    expect(undone.code, undone.stderr).toBe(0);
    const captured = world.sandbox.capture.events;
    const restarted = await world.run(['persons', 'merge', a, b, '--yes']);
    expect(restarted.code, restarted.stderr).toBe(2);
    expect(restarted.stderr).toContain('this merge already completed at');
    expect(restarted.stderr).toContain('--journal <new path>');
    expect(world.sandbox.capture.events).toBe(captured);
    // The receipt the undo needs is as the merge wrote it.
    expect(JSON.parse(readFileSync(receipt, 'utf8')).groups.map((g: { status: string }) => g.status)).toEqual(['merged']);
  });

  it('--undo of a receipt that calls no group merged says there is nothing to undo (exit 2), not an unexpected failure', async () => {
    const [a, b] = await identifiedPair('pending');
    const receipt = join(mkdtempSync(join(tmpdir(), 'hogctl-merge-pending-')), 'pending.receipt.json');
    expect((await world.run(['persons', 'merge', a, b, '--yes', '--receipt', receipt])).code).toBe(0);
    // As a merge read back too early writes it: its group still pending.
    const written = JSON.parse(readFileSync(receipt, 'utf8'));
    for (const g of written.groups) g.status = 'pending';
    writeFileSync(receipt, JSON.stringify(written));
    const res = await world.run(['persons', 'merge', '--undo', receipt, '--yes']);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain('calls no group merged (1 pending): there is nothing to undo');
    expect(res.stderr).toContain('--resume');
  });

  it('sends its events to HOGCTL_CAPTURE_URL when set, with the project key only (the personal key never goes there)', async () => {
    const [a, b] = await identifiedPair('routed');
    const from = world.sandbox.requests.length;
    const other = world.sandbox.url.replace('127.0.0.1', 'localhost');
    const res = await world.run(['persons', 'merge', a, b, '--yes'], { env: { HOGCTL_CAPTURE_URL: other } });
    expect(res.code, res.stderr).toBe(0);
    // The plan names where the events go before anything is sent.
    expect(res.stderr).toContain(`POST ${other}/batch/`);
    const batches = world.sandbox.requests.slice(from).filter((r) => r.path === '/batch/');
    expect(batches.length).toBeGreaterThan(0);
    for (const batch of batches) {
      expect(batch.headers.host).toBe(new URL(other).host);
      expect(batch.headers.authorization).toBeUndefined();
    }
    expect(world.sandbox.store.getByDistinctId(a)!.uuid).toBe(world.sandbox.store.getByDistinctId(b)!.uuid);
  });

  it('warns when a group keeps an address with spaces around it over a clean one: lookups would find it only as a near-match', async () => {
    const [a, b] = [fresh('spaced-a'), fresh('spaced-b')];
    await identified([
      [a, { email: ` ${a}@example.com` }],
      [b, { email: `${a.toUpperCase()}@EXAMPLE.COM` }],
    ]);
    const res = await world.run(['persons', 'merge', a, b, '--dry-run']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('1 group keeps an e-mail address with spaces around it or a trailing dot');
    expect(res.stderr).toContain(`keeps " ${a}@example.com"`);
    // Kept the other way round, nothing to warn of.
    const other = await world.run(['persons', 'merge', b, a, '--dry-run']);
    expect(other.stderr).not.toContain('near-match');
  });

  it('--rate sets the budget where the server is not PostHog Cloud, and a bad one is refused before anything is read', async () => {
    const [a, b] = await identifiedPair('rated');
    const dry = await world.run(['persons', 'merge', a, b, '--dry-run', '--rate', '1200/min']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain('budget    1,200/min requests');
    const bad = await world.run(['persons', 'merge', a, b, '--dry-run', '--rate', 'fast']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid --rate "fast"');
  });

  it('a person that does not exist is not found (exit 3), as persons get says it, and nothing is sent', async () => {
    const [a] = [fresh('lonely-a')];
    await identified([[a, { plan: 'a' }]]);
    const from = world.sandbox.requests.length;
    const res = await world.run(['persons', 'merge', a, fresh('nobody'), '--yes']);
    expect(res.code, res.stderr).toBe(3);
    expect(res.stderr).toContain('nothing was merged');
    expect(world.sandbox.requests.slice(from).filter((r) => r.path === '/batch/')).toEqual([]);
  });

  it('--resume sends the rest of the events where the first went: the journal records the host', async () => {
    const [a, b] = await identifiedPair('resumed');
    const other = world.sandbox.url.replace('127.0.0.1', 'localhost');
    const stopped = await world.withFaults('odd-200=1,path=/batch/', () =>
      world.run(['persons', 'merge', a, b, '--yes'], { env: { HOGCTL_CAPTURE_URL: other } }),
    );
    expect(stopped.code, stopped.stderr).toBe(7);
    const from = world.sandbox.requests.length;
    // Without the variable: had the settings chosen, the events would go to the site itself.
    const resumed = await world.run(['persons', 'merge', a, b, '--yes', '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`POST ${other}/batch/`);
    const batches = world.sandbox.requests.slice(from).filter((r) => r.path === '/batch/');
    expect(batches.map((r) => r.headers.host)).toEqual([new URL(other).host]);
    expect(world.sandbox.store.getByDistinctId(a)!.uuid).toBe(world.sandbox.store.getByDistinctId(b)!.uuid);
  });

  it('--capture-url beats HOGCTL_CAPTURE_URL, and one that is not a URL is refused before anything is sent', async () => {
    const [a, b] = await identifiedPair('flagged');
    const before = world.sandbox.requests.length;
    const bad = await world.run(['persons', 'merge', a, b, '--yes', '--capture-url', 'eu.i.posthog.com']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid capture URL "eu.i.posthog.com"');
    expect(world.sandbox.requests.length).toBe(before);
    const other = world.sandbox.url.replace('127.0.0.1', 'localhost');
    // Nothing listens on port 9: had the variable won, the run would fail.
    const res = await world.run(['persons', 'merge', a, b, '--yes', '--capture-url', other], {
      env: { HOGCTL_CAPTURE_URL: 'http://127.0.0.1:9' },
    });
    expect(res.code, res.stderr).toBe(0);
    const batches = world.sandbox.requests.slice(before).filter((r) => r.path === '/batch/');
    expect(batches.map((r) => r.headers.host)).toEqual(batches.map(() => new URL(other).host));
    expect(batches.length).toBeGreaterThan(0);
    expect(world.sandbox.store.getByDistinctId(a)!.uuid).toBe(world.sandbox.store.getByDistinctId(b)!.uuid);
  });

  // Last: the sdk helper counts project 1's ingestion against every capture.
  it('merges in another project with that project’s key, never across projects', async () => {
    const staging = world.sandbox.world.projects[1];
    const other = new PostHog(staging.apiToken, { host: world.sandbox.url, flushAt: 1000, flushInterval: 60_000 });
    const [a, b] = [fresh('p2-a'), fresh('p2-b')];
    other.identify({ distinctId: a, properties: { email: `${a}@example.com` } });
    other.identify({ distinctId: b, properties: { email: `${a.toUpperCase()}@EXAMPLE.COM` } });
    await other.flush();
    const store2 = world.sandbox.stores.get(2)!;
    for (let i = 0; i < 400 && !(store2.getByDistinctId(a) && store2.getByDistinctId(b)); i++) await new Promise((r) => setTimeout(r, 10));
    await other.shutdown();
    const dup = await world.run(['persons', 'duplicates', '--projects', '2', '-o', 'json']);
    expect(dup.code, dup.stderr).toBe(0);
    const res = await world.run(['persons', 'merge', '--groups', '-', '--yes'], { stdin: dup.stdout });
    expect(res.code, res.stderr).toBe(0);
    expect(store2.getByDistinctId(a)!.uuid).toBe(store2.getByDistinctId(b)!.uuid);
    // Project 1 has neither id.
    expect(world.sandbox.store.getByDistinctId(a)).toBeUndefined();
  });
});
