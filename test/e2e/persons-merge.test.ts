// The built binary: `hogctl persons merge` asking on a real 80-column terminal, stopped by Ctrl-C
// and killed (SIGKILL) while sending, then --resume. The rest of merge is tested in this process:
// test/cli/persons/merge.test.ts; so are the runs here before and after the one interrupted (the
// groups found, the merge undone, the resumes), with runCli of test/cli/harness.ts: what the kill
// left is on disk and in the sandbox, not in a process.
import { readFileSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, startWorld, type World } from './harness.js';
import { runCli } from '../cli/harness.js';
import { sdkClient, sendAndIngest, fresh } from './sdk.js';
import { runInTerminal } from './terminal.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  identified as identifiedThroughSdk,
  identifiedPair as identifiedPairThroughSdk,
  MERGE_WORLD,
  seedTwins,
} from '../cli/persons/merge-fixtures.js';

let world: World;
/** hogctl in this process, against the world's sandbox. */
const inProcess = (args: string[]) => runCli(args, { env: world.env });

const identified = (persons: [distinctId: string, properties: Record<string, unknown>][]) => identifiedThroughSdk(world, persons);
const identifiedPair = (name: string) => identifiedPairThroughSdk(world, name);

beforeAll(async () => {
  world = await startWorld(MERGE_WORLD);
  await seedTwins(world);
}, 120_000);
afterAll(async () => {
  await world?.close();
});

describe('persons merge', () => {
  it('on an 80-column terminal the confirmation wraps at spaces and does not call a merge irreversible', async () => {
    const dup = await inProcess(['persons', 'duplicates', '-o', 'json']);
    const file = join(mkdtempSync(join(tmpdir(), 'hogctl-merge-screen-')), 'groups.json');
    writeFileSync(file, dup.stdout);
    const captured = world.sandbox.capture.events;
    const res = await runInTerminal(['persons', 'merge', '--groups', file], world.env, [{ when: 'Go ahead?', send: 'n\r' }], 60_000, {
      columns: 80,
      rows: 24,
    });
    expect(res.code, res.output).toBe(130);
    // hogctl's own lines fit the screen, broken at spaces (the terminal would cut a word).
    const undoLine = res.output.split(/\r?\n/).find((l) => l.includes('merge --undo <receipt>'));
    expect(undoLine, res.output).toBeDefined();
    expect(undoLine!.length, undoLine).toBeLessThanOrEqual(80);
    expect(res.output).not.toContain('cannot be undone');
    expect(world.sandbox.capture.events).toBe(captured);
  });

  it('Ctrl-C while sending stops with 130, a receipt of what was not sent, and --resume finishes', async () => {
    const [a, b] = await identifiedPair('int');
    const journal = join(world.configDir, 'interrupted.ndjson');
    const receipt = join(world.configDir, 'interrupted.json');
    const args = ['persons', 'merge', a, b, '--yes', '--journal', journal, '--receipt', receipt];
    world.sandbox.setFaults('slow=1@5000,path=/batch/');
    const run = spawnCli(args, world.env);
    const sending = () => existsSync(journal) && readFileSync(journal, 'utf8').includes('{"type":"sending"');
    for (let i = 0; i < 3000 && !sending(); i++) await new Promise((r) => setTimeout(r, 10));
    // One run per journal: a second process is refused while the first holds the lock.
    const second = await world.run([...args, '--resume']);
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toContain(`pid ${run.child.pid}`);
    run.child.kill('SIGINT');
    const stopped = await run.exited;
    world.sandbox.setFaults(undefined);
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toContain('--resume');
    expect(JSON.parse(readFileSync(receipt, 'utf8')).groups[0].status).toBe('pending');
    const resumed = await inProcess([...args, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(world.sandbox.store.getByDistinctId(b)!.uuid).toBe(world.sandbox.store.getByDistinctId(a)!.uuid);
    expect(JSON.parse(readFileSync(receipt, 'utf8')).groups[0].status).toBe('merged');
  });

  it("a merge killed (SIGKILL) while sending continues from the bulk engine's journal with --resume", async () => {
    const pairs = Array.from({ length: 3 }, (_, i) => [fresh(`kill-${i}-a`), fresh(`kill-${i}-b`)] as const);
    await identified(
      pairs.flatMap(([a, b]) => [
        [a, { plan: 'a', only_a: a }],
        [b, { plan: 'b', only_b: b }],
      ]),
    );
    const store = world.sandbox.store;
    const person = (id: string) => {
      const p = store.getByDistinctId(id)!;
      return { uuid: p.uuid, distinct_ids: [...p.distinctIds], properties: p.properties, created_at: p.createdAt };
    };
    const groupsFile = join(world.configDir, 'killed-groups.json');
    writeFileSync(groupsFile, JSON.stringify(pairs.map(([a, b]) => ({ project_id: '1', persons: [person(a), person(b)] }))));
    const journal = join(world.configDir, 'killed.ndjson');
    const receipt = join(world.configDir, 'killed.json');
    const args = ['persons', 'merge', '--groups', groupsFile, '--yes', '--journal', journal, '--receipt', receipt];
    // Capture answers slowly: the kill lands while the request is in flight, its answer never journaled.
    world.sandbox.setFaults('slow=1@5000,path=/batch/');
    const run = spawnCli(args, world.env);
    const sending = () => existsSync(journal) && readFileSync(journal, 'utf8').includes('"type":"sending"');
    for (let i = 0; i < 3000 && !sending(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(sending()).toBe(true);
    run.child.kill('SIGKILL');
    expect((await run.exited).signal).toBe('SIGKILL');
    world.sandbox.setFaults(undefined);

    // The engine's journal (0600): its header holds each group as it was, for --resume and --undo.
    expect((statSync(journal).mode & 0o777).toString(8)).toBe('600');
    const lines = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'header', command: 'persons merge', input: { file: groupsFile } });
    expect(lines[0].merge.groups).toHaveLength(3);
    expect(lines[0].merge.groups[0].merge[0].properties).toMatchObject({ plan: expect.any(String) });
    expect(lines.some((l) => l.type === 'answered')).toBe(false);

    const resumed = await inProcess([...args, '--resume', '-o', 'json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ groups: 3, merged: 3, pending: 0, failed: 0, persons_merged_away: 3 });
    for (const [a, b] of pairs) expect(store.getByDistinctId(b)!.uuid).toBe(store.getByDistinctId(a)!.uuid);
    const written = JSON.parse(readFileSync(receipt, 'utf8'));
    expect(written.runs).toHaveLength(2);
    expect(written.groups.map((g: { status: string }) => g.status)).toEqual(['merged', 'merged', 'merged']);
    // The request the kill left without its answer went again with the same events: no duplicate.
    const after = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(after.filter((l) => l.type === 'run')).toHaveLength(2);
    expect(after.filter((l) => l.type === 'answered').length).toBeGreaterThan(0);
  });

  it('an undo killed (SIGKILL) halfway finishes with --resume instead of failing at the split', async () => {
    const posthog = sdkClient(world);
    const pairs = Array.from(
      { length: 3 },
      (_, i) => [fresh(`undo-kill-${i}-a`), fresh(`undo-kill-${i}-b`), fresh(`undo-kill-${i}-c`)] as const,
    );
    for (const [a, b, c] of pairs) {
      posthog.identify({ distinctId: a, properties: { plan: 'a', mine: a } });
      posthog.identify({ distinctId: b, properties: { plan: 'b', mine: b } });
      // A second id of b's person: the undo must join it to b again.
      posthog.alias({ distinctId: b, alias: c });
    }
    await sendAndIngest(world, posthog);
    await posthog.shutdown();
    const store = world.sandbox.store;
    const state = (id: string) => {
      const p = store.getByDistinctId(id)!;
      return { ids: [...p.distinctIds].sort(), properties: JSON.stringify(Object.entries(p.properties).sort()) };
    };
    const before = new Map(pairs.flatMap(([a, b]) => [a, b].map((id) => [id, state(id)] as const)));
    expect(before.get(pairs[0][1])!.ids).toHaveLength(2);
    const person = (id: string) => {
      const p = store.getByDistinctId(id)!;
      return { uuid: p.uuid, distinct_ids: [...p.distinctIds], properties: p.properties, created_at: p.createdAt };
    };
    const groupsFile = join(world.configDir, 'undo-kill-groups.json');
    writeFileSync(groupsFile, JSON.stringify(pairs.map(([a, b]) => ({ project_id: '1', persons: [person(a), person(b)] }))));
    const receipt = join(world.configDir, 'undo-kill.json');
    const merged = await inProcess(['persons', 'merge', '--groups', groupsFile, '--yes', '--receipt', receipt]);
    expect(merged.code, merged.stderr).toBe(0);
    for (const [a, b, c] of pairs) expect(new Set([a, b, c].map((id) => store.getByDistinctId(id)!.uuid)).size).toBe(1);

    // The splits go through; capture (the joins and properties that follow them) answers slowly,
    // and the undo is killed there: split, but neither joined nor restored.
    const journal = join(world.configDir, 'undo-kill.ndjson');
    const args = ['persons', 'merge', '--undo', receipt, '--yes', '--journal', journal];
    const earlier = new Set(world.sandbox.requests);
    const mine = () => world.sandbox.requests.filter((r) => !earlier.has(r));
    const splits = () => mine().filter((r) => r.method === 'POST' && r.path.endsWith('/split/')).length;
    world.sandbox.setFaults('slow=1@8000,path=/batch/');
    const run = spawnCli(args, world.env);
    // Killed once every group is split and the first capture request of the joins is in flight.
    const atCapture = () => mine().some((r) => r.path.endsWith('/batch/'));
    for (let i = 0; i < 3000 && !atCapture(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(atCapture()).toBe(true);
    expect(splits()).toBe(3);
    run.child.kill('SIGKILL');
    expect((await run.exited).signal).toBe('SIGKILL');
    world.sandbox.setFaults(undefined);
    expect(readFileSync(journal, 'utf8')).toContain('"type":"sending"');

    const resumed = await inProcess([...args, '--resume', '-o', 'json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ groups: 3, restored: 3, pending: 0, failed: 0 });
    for (const [id, was] of before) expect(state(id), id).toEqual(was);
    for (const [a, b] of pairs) expect(store.getByDistinctId(a)!.uuid).not.toBe(store.getByDistinctId(b)!.uuid);
  });
});
