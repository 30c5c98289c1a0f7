// At scale (issue: duplicate persons), in this process (test/cli/harness.ts) but for the SIGKILLs,
// which are the built binary's: 20,000 persons, of which 1,500 groups of 2 to 5 share an e-mail
// address in varied letter case, sent through capture as posthog-node sends them.
// `persons duplicates` finds them in a bounded number of queries; `persons merge` merges them,
// killed (SIGKILL) partway and continued with --resume; every group ends as one person with all
// its distinct ids, properties as PostHog's rule says, no other person touched, and a receipt
// equal to the sandbox's state. An erasure by e-mail of 100 of them then removes every former
// person's distinct ids, and the undo of a merge of 200 further groups restores ids and properties.
import { closeSync, fstatSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidFromDistinctId } from '@hogctl/sandbox';
import { startWorld, type World } from '../harness.js';
import { spawnCli } from '../../e2e/harness.js';
import { sdkClient, sendAndIngest, fresh } from '../../e2e/sdk.js';

const TOTAL = 20_000;
const GROUPS = 1_500;
/** Group i has 2 + i % 4 persons: one seeded, the others its duplicates sent through capture. */
const twinsOf = (i: number) => 1 + (i % 4);
const TWINS = Array.from({ length: GROUPS }, (_, i) => twinsOf(i)).reduce((a, b) => a + b, 0);

let world: World;
/** Per group: the address, and the distinct ids of all its persons. */
const groups: { email: string; ids: string[] }[] = [];
let before = new Map<string, { ids: string[]; properties: Record<string, unknown> }>();

const variant = (email: string, k: number) =>
  [email.toUpperCase(), `  ${email}`, email.charAt(0).toUpperCase() + email.slice(1), `${email} `][k % 4];

/**
 * `hogctl <args>` with the sandbox slowed by `faults` until `answers` of its requests are
 * answered, killed there (SIGKILL), then the same with --resume at full speed: its summary must
 * match `summary`; returns the receipt it wrote.
 */
async function killedOnceThenResumed(
  args: string[],
  o: { journal: string; receipt: string; faults: string; answers: number; summary: Record<string, number> },
) {
  world.sandbox.setFaults(o.faults);
  const run = spawnCli([...args, '--journal', o.journal], world.env);
  const answered = answeredLines(o.journal);
  for (let i = 0; i < 6000 && answered() < o.answers; i++) await new Promise((r) => setTimeout(r, 10));
  expect(answered()).toBeGreaterThanOrEqual(o.answers);
  run.child.kill('SIGKILL');
  expect((await run.exited).signal).toBe('SIGKILL');
  world.sandbox.setFaults(undefined);
  const resumed = await world.run([...args, '--journal', o.journal, '--resume', '-o', 'json'], { timeoutMs: 300_000 });
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(JSON.parse(resumed.stdout)).toMatchObject(o.summary);
  return JSON.parse(readFileSync(o.receipt, 'utf8'));
}

function snapshot() {
  return new Map([...world.sandbox.store].map((p) => [p.uuid, { ids: [...p.distinctIds].sort(), properties: p.properties }]));
}

/** The persons of a snapshot that held any of `ids`: looked up by distinct id, not by a scan of
 * every person for every group (20,000 persons times 1,500 groups). */
function holdersOf(snap: ReturnType<typeof snapshot>) {
  const byId = new Map<string, string>();
  for (const [uuid, p] of snap) for (const id of p.ids) byId.set(id, uuid);
  return (ids: string[]) => [...new Set(ids.flatMap((id) => byId.get(id) ?? []))].map((uuid) => [uuid, snap.get(uuid)!] as const);
}

/** Counts the journal's answered lines as they are appended, reading each byte once: its header
 * alone is more than a mebibyte, and it is polled every 10 ms. */
function answeredLines(path: string) {
  let offset = 0;
  let count = 0;
  let rest = '';
  return () => {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return count;
    }
    try {
      const size = fstatSync(fd).size;
      if (size > offset) {
        const chunk = Buffer.alloc(size - offset);
        offset += readSync(fd, chunk, 0, chunk.length, offset);
        const lines = (rest + chunk.toString('latin1')).split('\n');
        rest = lines.pop()!;
        count += lines.filter((l) => l.startsWith('{"type":"answered"')).length;
      }
    } finally {
      closeSync(fd);
    }
    return count;
  };
}

/** JSON with sorted keys: the sandbox's properties are jsonb. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

async function seedGroups(from: number, count: number, into: { email: string; ids: string[] }[], tag: string) {
  const seeded = [...world.sandbox.store].filter((p) => typeof p.properties.email === 'string');
  const posthog = sdkClient(world);
  for (let i = 0; i < count; i++) {
    const person = seeded[from + i * 2];
    const email = String(person.properties.email);
    const ids = [...person.distinctIds];
    for (let k = 0; k < twinsOf(i); k++) {
      const id = fresh(tag);
      ids.push(id);
      posthog.identify({ distinctId: id, properties: { email: variant(email, k), plan: `${tag}-${k}`, [`${tag}_only_${k}`]: k } });
    }
    into.push({ email, ids });
  }
  await sendAndIngest(world, posthog);
  await posthog.shutdown();
}

beforeAll(async () => {
  world = await startWorld({ persons: TOTAL - TWINS, seed: 43 });
  await seedGroups(0, GROUPS, groups, 'twin');
  before = snapshot();
}, 300_000);
afterAll(async () => {
  await world?.close();
});

describe(`merging ${GROUPS.toLocaleString('en-US')} groups of duplicates among ${TOTAL.toLocaleString('en-US')} persons`, () => {
  let groupsFile = '';
  let receipt = '';

  it('finds every group in a bounded number of queries', async () => {
    expect(world.sandbox.store.size).toBeGreaterThanOrEqual(TOTAL);
    const queriesBefore = world.sandbox.requests.filter((r) => r.path.endsWith('/query/')).length;
    const res = await world.run(['persons', 'duplicates', '-o', 'ndjson'], { timeoutMs: 120_000 });
    expect(res.code, res.stderr).toBe(0);
    const queries = world.sandbox.requests.filter((r) => r.path.endsWith('/query/')).length - queriesBefore;
    const found = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { key: { email: string }; size: number });
    expect(found).toHaveLength(GROUPS);
    const sizes = new Map(groups.map((g) => [g.email, g.ids.length]));
    for (const g of found) expect(g.size).toBe(1 + twinsOf(groups.findIndex((x) => x.email === g.key.email)));
    expect(found.map((g) => g.key.email).sort()).toEqual([...sizes.keys()].sort());
    // The shared values, then persons, distinct ids and events 10,000 rows at most a query.
    expect(queries).toBeLessThanOrEqual(8);
    groupsFile = join(world.configDir, 'groups.ndjson');
    writeFileSync(groupsFile, res.stdout);
    console.log(`bench: persons duplicates: ${GROUPS} groups among ${TOTAL} persons in ${queries} HogQL queries`);
  }, 300_000);

  it('merges them, killed partway and continued with --resume: one person a group, nobody else touched, receipt = state', async () => {
    const journal = join(world.configDir, 'merge.ndjson');
    receipt = join(world.configDir, 'merge-receipt.json');
    const requestsBefore = world.sandbox.requests.length;
    const captureBefore = world.sandbox.capture.requests;
    const started = Date.now();
    // Capture answers slowly, so the kill lands between batches.
    world.sandbox.setFaults('slow=1@300,path=/batch/');
    // --keep oldest: the seeded person of each group, whose properties the checks below start from.
    const args = ['persons', 'merge', '--groups', groupsFile, '--keep', 'oldest', '--yes', '--journal', journal, '--receipt', receipt];
    const run = spawnCli(args, world.env);
    const accepted = answeredLines(journal);
    for (let i = 0; i < 6000 && accepted() < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(accepted()).toBeGreaterThanOrEqual(2);
    run.child.kill('SIGKILL');
    const killed = await run.exited;
    expect(killed.signal).toBe('SIGKILL');
    world.sandbox.setFaults(undefined);
    // Continued without --receipt: the journal remembers it, though its header (every group as it
    // was) is larger than a mebibyte.
    const resumeArgs = args.filter((a, i) => a !== '--receipt' && args[i - 1] !== '--receipt');
    const resumed = await world.run([...resumeArgs, '--resume', '-o', 'json'], { timeoutMs: 300_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    const minutes = (Date.now() - started) / 60_000;
    expect(JSON.parse(resumed.stdout)).toMatchObject({ groups: GROUPS, merged: GROUPS, pending: 0, failed: 0, persons_merged_away: TWINS });

    const store = world.sandbox.store;
    const written = JSON.parse(readFileSync(receipt, 'utf8')) as { groups: { keep: string; status: string; distinct_ids: string[] }[] };
    const byKeep = new Map(written.groups.map((g) => [g.keep, g]));
    const grouped = new Set<string>();
    const holdersBefore = holdersOf(before);
    for (const g of groups) {
      const kept = store.getByDistinctId(g.ids[0])!;
      for (const id of g.ids) expect(store.getByDistinctId(id)?.uuid).toBe(kept.uuid);
      expect([...kept.distinctIds].sort()).toEqual([...g.ids].sort());
      // The oldest (the seeded person) kept; {...last merged, ..., ...first merged, ...kept}.
      const formers = holdersBefore(g.ids);
      formers.forEach(([uuid]) => grouped.add(uuid));
      const keptBefore = before.get(kept.uuid)!;
      let expected = { ...keptBefore.properties };
      const others = formers.filter(([uuid]) => uuid !== kept.uuid).map(([, p]) => p);
      // The plan merges the others oldest first (their order in the group).
      for (const other of others.sort((a, b) => (a.ids[0] < b.ids[0] ? -1 : 1))) expected = { ...other.properties, ...expected };
      expect(Object.keys(kept.properties).sort()).toEqual(Object.keys(expected).sort());
      expect(kept.properties.email).toBe(g.email);
      expect(kept.properties.plan).toBe(keptBefore.properties.plan);
      const entry = byKeep.get(kept.uuid)!;
      expect(entry.status).toBe('merged');
      expect(entry.distinct_ids).toEqual([...kept.distinctIds].sort());
    }
    const after = snapshot();
    let untouched = 0;
    // Every other person compared, the differences gathered and checked once: an expect() a
    // person was a fifth of this file's CPU.
    const changed: string[] = [];
    for (const [uuid, p] of before) {
      if (grouped.has(uuid)) continue;
      if (canonical(after.get(uuid)) !== canonical(p)) changed.push(`${uuid}: ${canonical(after.get(uuid))} was ${canonical(p)}`);
      untouched++;
    }
    expect(changed).toEqual([]);
    expect(untouched).toBe(before.size - GROUPS - TWINS);
    const requests = world.sandbox.requests.length - requestsBefore + (world.sandbox.capture.requests - captureBefore);
    console.log(
      `bench: persons merge: ${GROUPS} groups (${TWINS} persons merged away), killed once and resumed: ${(requests / GROUPS).toFixed(3)} requests a merged group, ${Math.round(GROUPS / minutes)} groups a minute (capture slowed to 300 ms a request until the kill)`,
    );
  }, 300_000);

  it('an erasure by e-mail of 100 of them removes every former person’s distinct ids', async () => {
    const subjects = groups.slice(0, 100);
    const file = join(world.configDir, 'erasure.txt');
    writeFileSync(file, `${subjects.map((g) => g.email).join('\n')}\n`);
    const res = await world.run(['persons', 'bulk-delete', '--emails', file, '--yes'], { timeoutMs: 120_000 });
    expect(res.code, res.stderr).toBe(0);
    for (const g of subjects) for (const id of g.ids) expect(world.sandbox.store.getByDistinctId(id), id).toBeUndefined();
    for (const g of groups.slice(100)) expect(world.sandbox.store.getByDistinctId(g.ids[0])).toBeDefined();
  }, 300_000);

  it('a merge of 200 groups and its undo, each killed once and resumed, give every former person back and touch no one else', async () => {
    const more: { email: string; ids: string[] }[] = [];
    await seedGroups(2 * GROUPS + 10, 200, more, 'again');
    const beforeMerge = snapshot();
    const found = await world.run(['persons', 'duplicates', '-o', 'json'], { timeoutMs: 120_000 });
    expect(found.code, found.stderr).toBe(0);
    const emails = new Set(more.map((g) => g.email));
    const picked = (JSON.parse(found.stdout) as { key: { email: string } }[]).filter((g) => emails.has(g.key.email));
    expect(picked).toHaveLength(200);
    const file = join(world.configDir, 'groups-200.json');
    writeFileSync(file, JSON.stringify(picked));
    const merged = join(world.configDir, 'merge-200.json');
    // 200 groups are two capture requests (100 groups each): killed after the first.
    await killedOnceThenResumed(['persons', 'merge', '--groups', file, '--yes', '--receipt', merged], {
      journal: join(world.configDir, 'merge-200.ndjson'),
      receipt: merged,
      faults: 'slow=1@300,path=/batch/',
      answers: 1,
      summary: { groups: 200, merged: 200, pending: 0 },
    });
    for (const g of more) expect(new Set(g.ids.map((id) => world.sandbox.store.getByDistinctId(id)?.uuid)).size).toBe(1);

    // An edit after the merge, which the undo must keep (--changed keep) on the kept person.
    const edited = world.sandbox.store.getByDistinctId(more[0].ids[0])!;
    const posthog = sdkClient(world);
    posthog.capture({ distinctId: more[0].ids[0], event: '$set', properties: { $set: { support_ticket: 'T-1' } } });
    await sendAndIngest(world, posthog);
    await posthog.shutdown();

    // This sandbox limits nothing: --rate lifts the undo's default (24 chunks a minute, within
    // PostHog's person writes), which would take 50 s of this test's wall time for 20 chunks.
    const undone = await killedOnceThenResumed(['persons', 'merge', '--undo', merged, '--yes', '--rate', '600/min', '--changed', 'keep'], {
      journal: join(world.configDir, 'undo-200.ndjson'),
      receipt: merged.replace(/\.json$/, '.undo.json'),
      faults: 'slow=1@300,path=/split/',
      answers: 2,
      summary: { groups: 200, restored: 200, pending: 0, refused: 0 },
    });

    // Every person of the project as before the merge (ids, properties, and the UUID wherever
    // PostHog's split gives it back), but the edit; no one else written to; no $geoip_* anywhere.
    const after = snapshot();
    const rebuilt = new Set<string>();
    const differ: string[] = [];
    for (const [uuid, p] of beforeMerge) {
      const now = after.get(uuid) ?? after.get(world.sandbox.store.getByDistinctId(p.ids[0])!.uuid)!;
      if (!after.has(uuid)) rebuilt.add(uuid);
      const expected = uuid === edited.uuid ? { ...p.properties, support_ticket: 'T-1' } : p.properties;
      const [got, want] = [canonical({ ids: now.ids, properties: now.properties }), canonical({ ids: p.ids, properties: expected })];
      if (got !== want) differ.push(`${uuid}: ${got} expected ${want}`);
    }
    expect(differ).toEqual([]);
    expect(after.size).toBe(beforeMerge.size);
    // A UUID comes back when ingestion made the person for one of its ids (UUIDv5); others cannot.
    const ownUuid = [...rebuilt].filter((uuid) => beforeMerge.get(uuid)!.ids.some((id) => uuidFromDistinctId(1, id) === uuid));
    expect(ownUuid).toEqual([]);
    expect(undone.undo.not_restored.uuid).toBe(rebuilt.size);
    expect([...world.sandbox.store].flatMap((p) => Object.keys(p.properties).filter((k) => k.includes('geoip')))).toEqual([]);
  }, 300_000);
});
