// `hogctl persons duplicates`, in this process, finds the persons that share an e-mail address
// written in other letter case or with spaces around it, as posthog-node sends them, in a bounded
// number of HogQL queries, and never groups persons of two projects. The review on a real
// 80-column terminal is test/e2e/persons-duplicates.test.ts.
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';
import { sdkClient, sendAndIngest, fresh, idList } from '../../e2e/sdk.js';
import { DUPLICATES_WORLD, seedDuplicates, type Seeded } from './duplicates-fixtures.js';

let world: World;
let made: Seeded['made'];
let triples: Seeded['triples'];
let seededByEmail: Seeded['seededByEmail'];

beforeAll(async () => {
  world = await startWorld(DUPLICATES_WORLD);
  ({ made, triples, seededByEmail } = await seedDuplicates(world));
}, 120_000);
afterAll(async () => {
  await world?.close();
});

/** The HogQL requests made since `before`. */
function queriesSince(before: number): number {
  return world.sandbox.requests.slice(before).filter((r) => r.path.endsWith('/query/')).length;
}

interface Group {
  project_id: string;
  key: Record<string, string>;
  size: number;
  differing_properties: string[];
  persons: {
    uuid: string;
    distinct_ids: string[];
    created_at: string;
    last_seen: string | null;
    event_count: number;
    is_identified: boolean;
    properties: Record<string, unknown>;
  }[];
}

describe('persons duplicates', () => {
  it('finds every group of a case-varied e-mail address, with ids, created, last seen, event counts, in a few queries', async () => {
    const before = world.sandbox.requests.length;
    // Every event (the seeded history is older than the default 90 days).
    const res = await world.run(['persons', 'duplicates', '--events-since', 'all', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    // Keys, persons, distinct ids, events: one query each at this size.
    expect(queriesSince(before)).toBe(4);
    const groups = JSON.parse(res.stdout) as Group[];
    expect(groups.map((g) => g.key.email).sort()).toEqual([...made.keys()].sort());
    const store = world.sandbox.store;
    // The events of every candidate's distinct ids, counted by the sandbox's HogQL in one query.
    const allIds = groups.flatMap((g) => g.persons.flatMap((p) => p.distinct_ids));
    const counted = await world.run([
      'persons',
      'query',
      `SELECT distinct_id, count() FROM events WHERE distinct_id IN ${idList(...allIds)} GROUP BY distinct_id LIMIT 50000`,
      '-o',
      'json',
    ]);
    const eventsOf = new Map(
      (JSON.parse(counted.stdout) as Record<string, unknown>[]).map((r) => [String(Object.values(r)[0]), Number(Object.values(r)[1])]),
    );
    for (const group of groups) {
      const email = group.key.email;
      const seeded = store.getByUuid(seededByEmail.get(email)!)!;
      const expected = [seeded, ...made.get(email)!.map((id) => store.getByDistinctId(id)!)];
      expect(group.project_id).toBe('1');
      expect(group.size).toBe(expected.length);
      expect(group.persons.map((p) => p.uuid).sort()).toEqual(expected.map((p) => p.uuid).sort());
      for (const candidate of group.persons) {
        const person = expected.find((p) => p.uuid === candidate.uuid)!;
        expect(candidate.distinct_ids).toEqual([...person.distinctIds].sort());
        expect(candidate.properties.email).toBe(person.properties.email);
        expect(candidate.event_count).toBe(person.distinctIds.reduce((n, id) => n + (eventsOf.get(id) ?? 0), 0));
        expect(candidate.event_count).toBeGreaterThan(0);
        expect(candidate.last_seen).not.toBeNull();
      }
      // Oldest first; the address differs in letter case, the plan differs too.
      expect(group.persons.map((p) => p.created_at)).toEqual(group.persons.map((p) => p.created_at).sort());
      expect(group.differing_properties).toEqual(expect.arrayContaining(['email', 'plan']));
    }
    const persons = [...made.values()].reduce((n, ids) => n + ids.length + 1, 0);
    expect(res.stderr).toContain(`${made.size} groups of duplicates, ${persons} persons, found in 4 queries`);
  });

  it('--min-group 3 keeps the groups of three', async () => {
    const res = await world.run(['persons', 'duplicates', '--min-group', '3', '-o', 'ndjson']);
    expect(res.code, res.stderr).toBe(0);
    const groups = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Group);
    expect(groups.map((g) => g.key.email).sort()).toEqual([...triples].sort());
    expect(groups.every((g) => g.size === 3)).toBe(true);
  });

  it('-o csv has a row per candidate with the values that differ', async () => {
    const res = await world.run(['persons', 'duplicates', '-o', 'csv']);
    expect(res.code, res.stderr).toBe(0);
    const [header, ...rows] = res.stdout.trim().split('\n');
    expect(header).toBe('group,project_id,key,uuid,email,name,distinct_ids,created_at,last_seen,event_count,is_identified,differing');
    expect(rows).toHaveLength([...made.values()].reduce((n, ids) => n + ids.length + 1, 0));
    const email = [...made.keys()][0];
    const id = made.get(email)![0];
    const row = rows.find((r) => r.includes(id))!;
    expect(row).toContain(`email=${email}`);
    expect(row).toMatch(/plan=""?dup-0""?/);
  });

  it('--by a property groups by its value; a value shared by more than --max-group persons is left out, and said', async () => {
    const posthog = sdkClient(world);
    const account = fresh('acct');
    const [a, b] = [fresh('by-a'), fresh('by-b')];
    posthog.identify({ distinctId: a, properties: { account } });
    posthog.identify({ distinctId: b, properties: { account } });
    await sendAndIngest(world, posthog);
    await posthog.shutdown();
    const res = await world.run(['persons', 'duplicates', '--by', 'account', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    const groups = JSON.parse(res.stdout) as Group[];
    expect(groups).toHaveLength(1);
    expect(groups[0].key).toEqual({ account });
    expect(groups[0].persons.flatMap((p) => p.distinct_ids).sort()).toEqual([a, b].sort());
    // Every seeded person has one of a few plans: no plan is one person.
    const plan = await world.run(['persons', 'duplicates', '--by', 'plan', '--max-group', '5', '-o', 'json']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toMatch(/persons share plan=\w+, more than --max-group 5: left out/);
  });

  it('piped into persons merge --groups - --yes, persons sharing a placeholder or a value that is not text stay apart', async () => {
    // Three different people each under "null", "n/a", "test@test.com", true and 123, and a pair that is one person.
    const posthog = sdkClient(world);
    const values: unknown[] = ['null', 'n/a', 'test@test.com', true, 123];
    const apart = values.map((contact) => {
      const ids = [fresh('ph'), fresh('ph'), fresh('ph')];
      for (const id of ids) posthog.identify({ distinctId: id, properties: { contact } });
      return ids;
    });
    const pair = [fresh('pair'), fresh('pair')];
    const contact = `${fresh('contact')}@corp.example`;
    for (const id of pair) posthog.identify({ distinctId: id, properties: { contact } });
    await sendAndIngest(world, posthog);
    await posthog.shutdown();
    const dup = await world.run(['persons', 'duplicates', '--by', 'contact', '-o', 'ndjson']);
    expect(dup.code, dup.stderr).toBe(0);
    expect(dup.stderr).toContain('left out contact="null" (3 persons): a placeholder');
    expect(dup.stderr).toContain('left out contact=123 (3 persons): a number, not text that names one person');
    const merged = await world.run(['persons', 'merge', '--groups', '-', '--yes', '-o', 'json'], { stdin: dup.stdout });
    expect(merged.code, merged.stderr).toBe(0);
    expect(JSON.parse(merged.stdout)).toMatchObject({ groups: 1, merged: 1 });
    const store = world.sandbox.store;
    for (const ids of apart) expect(new Set(ids.map((id) => store.getByDistinctId(id)!.uuid)).size).toBe(3);
    expect(store.getByDistinctId(pair[0])!.uuid).toBe(store.getByDistinctId(pair[1])!.uuid);
  });

  it('groups never span projects: the same address in two projects is a group in neither', async () => {
    const staging = world.sandbox.world.projects[1];
    const posthog = new PostHog(staging.apiToken, { host: world.sandbox.url, flushAt: 1000, flushInterval: 60_000 });
    const twin = fresh('twin');
    // Project 2 has user1@example.com (its seeded person 1) and now a second person with it.
    posthog.identify({ distinctId: twin, properties: { email: 'USER1@example.com' } });
    await posthog.flush();
    for (let i = 0; i < 400 && !world.sandbox.stores.get(2)!.getByDistinctId(twin); i++) await new Promise((r) => setTimeout(r, 10));
    await posthog.shutdown();
    const res = await world.run(['persons', 'duplicates', '--projects', '1,2', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    const groups = JSON.parse(res.stdout) as Group[];
    const inTwo = groups.filter((g) => g.project_id === '2');
    expect(inTwo).toHaveLength(1);
    expect(inTwo[0].key.email).toBe('user1@example.com');
    expect(inTwo[0].persons.flatMap((p) => p.distinct_ids)).toContain(twin);
    expect(
      groups
        .filter((g) => g.project_id === '1')
        .map((g) => g.key.email)
        .sort(),
    ).toEqual([...made.keys()].sort());
    expect(res.stderr).toMatch(/in 2 projects/);
  });

  it('refuses a bad --min-group before sending anything', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'duplicates', '--min-group', '1']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('invalid --min-group "1": expected a whole number of at least 2');
    expect(world.sandbox.requests.length).toBe(before);
  });
});
