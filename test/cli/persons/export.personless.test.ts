// `persons export` of a subject who is, in part or whole, no person: events sent without a person
// profile (`$process_person_profile: false`) under an address or a distinct id the subject is
// known by. PostHog keeps them by distinct id alone, so no person's files reach them; the export
// hands them over all the same, in `project-<id>/distinct-ids-of-no-person/`, counted by the plan,
// listed in the manifest and summary.html, and written once across a stop and --resume. The data
// comes from PostHog's own Node SDK (posthog-node) through the sandbox's capture; hogctl runs in
// this process on virtual time.
import { existsSync, readFileSync } from 'node:fs';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';
import { fresh, sdkClient, sendAndIngest } from '../../e2e/sdk.js';

let world: VirtualWorld;
let posthog: PostHog;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 3, eventsPerPerson: 0, applyDelayMs: 0 });
  posthog = sdkClient(world);
});
afterAll(async () => {
  await posthog.shutdown();
  await world.close();
});

const NO_PERSON_DIR = 'project-1/distinct-ids-of-no-person';
/** Minutes before now: the sandbox stamps events by the SDK's sent_at, so they fall before the
 * export's start, whatever the virtual clock shows. */
const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000);

/** An event sent without a person profile: no person is made or touched by it. */
function personless(distinctId: string, minutesAgo: number): void {
  posthog.capture({ distinctId, event: 'form_posted', properties: { $process_person_profile: false }, timestamp: ago(minutesAgo) });
}

/** The events of these distinct ids in project 1, as the sandbox stores them: uuid → distinct id. */
function stored(distinctIds: string[]): Map<string, string> {
  const store = world.sandbox.events.get(1)!;
  const out = new Map<string, string>();
  store.forEachRow((row) => {
    if (distinctIds.includes(store.distinctId(row))) out.set(store.uuid(row), store.distinctId(row));
  });
  return out;
}

/** The events a bundle's file holds, as uuid → distinct id; fails on an event written twice. */
function written(bundle: string, dir: string): Map<string, string> {
  const lines = gunzipSync(readFileSync(join(bundle, dir, 'events.ndjson.gz')))
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { uuid: string; distinct_id: string });
  const out = new Map(lines.map((e) => [e.uuid, e.distinct_id]));
  expect(out.size, 'an event written twice').toBe(lines.length);
  return out;
}

/** The figures of the events, as the manifest, the receipt and the printed summary name them. */
const figuresOf = (c: Record<string, unknown>) => ({
  events: c.events,
  events_of_distinct_ids_of_no_person: c.events_of_distinct_ids_of_no_person,
  queries: c.queries ?? c.event_queries,
});
const manifestOf = (bundle: string) => JSON.parse(readFileSync(join(bundle, 'manifest.json'), 'utf8'));
const exportTo = (name: string, ...args: string[]) =>
  world.run(['persons', 'export', ...args, '--out', join(world.configDir, name), '-o', 'json']);

describe('persons export of a subject who is no person, in whole or in part', () => {
  it('a person and an address used only as a personless distinct id: the bundle holds both, each in its own place', async () => {
    const [user, sam, ghost] = [fresh('sam-user'), `${fresh('sam')}@example.net`, `${fresh('ghost')}@example.net`];
    posthog.capture({ distinctId: user, event: 'signed_up', properties: { $set: { email: sam } }, timestamp: ago(30) });
    posthog.capture({ distinctId: user, event: '$pageview', timestamp: ago(25) });
    // The person's own address is also a distinct id, of no person: a newsletter form, say.
    personless(sam, 20);
    personless(ghost, 10);
    personless(ghost, 5);
    await sendAndIngest(world, posthog);

    const plan = await exportTo('both-plan', '--email', sam, '--email', ghost, '--dry-run');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toContain('project 1: 1 person, 1 distinct id');
    expect(plan.stderr).toContain(
      `no person project 1: 3 events under distinct ids no person holds, among ${sam}, ${ghost}, into ${NO_PERSON_DIR}/`,
    );
    expect(plan.stderr).toContain('about 5 events');

    const bundle = join(world.configDir, 'both');
    const res = await exportTo('both', '--email', sam, '--email', ghost);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ persons: 1, events: 5, events_of_distinct_ids_of_no_person: 3 });
    const manifest = manifestOf(bundle);
    const [person] = manifest.projects[0].persons;
    expect(written(bundle, person.dir)).toEqual(stored([user]));
    expect(written(bundle, NO_PERSON_DIR)).toEqual(stored([sam, ghost]));
    expect(manifest.projects[0].distinct_ids_of_no_person).toMatchObject({
      dir: NO_PERSON_DIR,
      distinct_ids: [sam, ghost],
      counts: { events: 3, property_changes: 0 },
    });
    expect(manifest.counts).toMatchObject({ persons: 1, events: 5, events_of_distinct_ids_of_no_person: 3 });
    // One meaning of `events` everywhere (every event of the bundle, those of no person a part of
    // it): the receipt, the printed summary, the dry run's JSON and the manifest say the same.
    const printed = JSON.parse(res.stdout);
    const receipt = JSON.parse(readFileSync(printed.receipt, 'utf8'));
    const expected = { events: 5, events_of_distinct_ids_of_no_person: 3, queries: 2 };
    expect(figuresOf(manifest.counts)).toEqual(expected);
    expect(figuresOf(receipt.counts)).toEqual(expected);
    expect(figuresOf(printed)).toEqual(expected);
    expect(figuresOf(JSON.parse(plan.stdout))).toEqual(expected);
    expect(receipt.projects[0]).toMatchObject({ events: 5, events_of_distinct_ids_of_no_person: 3, event_queries: 2 });
    const viewed = await world.run(['persons', 'receipt', printed.receipt, '-o', 'json']);
    expect(viewed.code, viewed.stderr).toBe(0);
    expect(JSON.parse(viewed.stdout).done).toContain('events 5, events of distinct ids of no person 3');
    expect(manifest.files.map((f: { path: string }) => f.path)).toEqual(
      expect.arrayContaining([`${NO_PERSON_DIR}/events.ndjson.gz`, `${NO_PERSON_DIR}/properties-history.ndjson.gz`]),
    );
    expect(manifest.distinct_ids_of_no_person_files['events.ndjson.gz']).toMatch(/held by no person/);
    const summary = readFileSync(join(bundle, 'summary.html'), 'utf8');
    expect(summary).toContain("Events of distinct ids that are no person's");
    expect(summary).toContain(`<code>${ghost}</code>`);
  });

  it('only personless events: exported (exit 0) into a bundle that holds them, where a refusal (exit 3) was before', async () => {
    const ghost = `${fresh('only')}@example.net`;
    personless(ghost, 12);
    personless(ghost, 6);
    await sendAndIngest(world, posthog);
    const bundle = join(world.configDir, 'only');
    const res = await exportTo('only', '--email', ghost);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('exported 0 persons (0 events) and 2 events of distinct ids of no person');
    expect(JSON.parse(res.stdout)).toMatchObject({ persons: 0, events: 2, events_of_distinct_ids_of_no_person: 2 });
    expect(written(bundle, NO_PERSON_DIR)).toEqual(stored([ghost]));
    const manifest = manifestOf(bundle);
    expect(manifest.projects[0]).toMatchObject({
      persons: [],
      distinct_ids_of_no_person: { distinct_ids: [ghost], counts: { events: 2 } },
    });
    const receipt = JSON.parse(readFileSync(JSON.parse(res.stdout).receipt, 'utf8'));
    expect(receipt).toMatchObject({ status: 'completed', verification: { status: 'verified', mismatched: [], unlisted: [] } });
    expect(receipt.export.distinct_ids_of_no_person).toEqual([
      { project: '1', dir: NO_PERSON_DIR, events: 2, event_queries: 1, property_changes: 0, files: 2 },
    ]);
    expect(receipt.counts).toMatchObject({ persons_exported: 0, events: 2, events_of_distinct_ids_of_no_person: 2 });
  });

  it('an address stored as a distinct id in other letter case: found as the erasure finds it, exported, named in the manifest', async () => {
    const asked = `${fresh('mixed')}@example.net`;
    const storedAs = asked.replace(/^m/, 'M').replace('example.net', 'Example.NET');
    personless(storedAs, 9);
    personless(storedAs, 4);
    // Another address that only shares a prefix is not the subject's.
    personless(`x${asked}`, 3);
    await sendAndIngest(world, posthog);
    const bundle = join(world.configDir, 'mixed');
    const res = await exportTo('mixed', '--email', asked);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ persons: 0, events: 2, events_of_distinct_ids_of_no_person: 2 });
    expect(written(bundle, NO_PERSON_DIR)).toEqual(stored([storedAs]));
    expect(manifestOf(bundle).projects[0].distinct_ids_of_no_person).toMatchObject({
      distinct_ids: [storedAs],
      distinct_ids_matched: expect.stringContaining('in any case of their ASCII letters'),
      counts: { events: 2 },
    });
  });

  it('neither a person nor an event: the same refusal as ever (exit 3), and nothing written', async () => {
    const nobody = `${fresh('nobody')}@example.net`;
    const res = await exportTo('nobody', '--email', nobody);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain(`no person matches ${nobody} in 1 project searched; nothing was written`);
    expect(res.stderr).toContain('check the identifiers, and the projects with --projects or --all-projects');
    expect(existsSync(join(world.configDir, 'nobody'))).toBe(false);
  });

  it('stopped while writing them, and resumed: every event once, a page written past the last recorded one cut off', async () => {
    const ghost = fresh('device');
    for (let i = 0; i < 4; i++) personless(ghost, 40 - i);
    await sendAndIngest(world, posthog);
    const bundle = join(world.configDir, 'stopped');
    const stopped = await world.run(['persons', 'export', '--distinct-id', ghost, '--out', bundle], {
      interruptWhen: /distinct ids of no person: 4 events written/,
    });
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toContain('interrupted while writing the events of distinct ids of no person');
    expect(stopped.stderr).toContain(`hogctl persons export --resume --out ${bundle}`);
    expect(existsSync(join(bundle, 'manifest.json'))).toBe(false);
    const state = JSON.parse(readFileSync(join(bundle, 'export-state.json'), 'utf8'));
    expect(state.no_person['1'].events).toMatchObject({ count: 4, done: false });
    // What a kill between a page's write and its record would leave: --resume cuts it off.
    appendFileSync(join(bundle, NO_PERSON_DIR, 'events.ndjson.gz'), gzipSync('{"uuid":"written-after-the-state"}\n'));

    const res = await world.run(['persons', 'export', '--resume', '--out', bundle, '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ persons: 0, events: 4 });
    expect(written(bundle, NO_PERSON_DIR)).toEqual(stored([ghost]));
    expect(manifestOf(bundle).projects[0].distinct_ids_of_no_person.counts).toMatchObject({ events: 4, event_queries: 2 });
  });

  it('a query limit longer than --max-wait while writing them stops the export (exit 6); --resume finishes it', async () => {
    const ghost = fresh('limited');
    for (let i = 0; i < 3; i++) personless(ghost, 30 - i);
    await sendAndIngest(world, posthog);
    // The queries the plan makes (the lookups and the counts): the next one, the walk's, is refused.
    const before = world.sandbox.requests.length;
    const plan = await exportTo('limited-plan', '--distinct-id', ghost, '--dry-run');
    expect(plan.code, plan.stderr).toBe(0);
    const planned = world.sandbox.requests.slice(before).filter((r) => r.path.includes('/query/')).length;
    world.clock.advance(2 * 3_600_000);
    world.sandbox.setRateLimit(`query=${planned}/1h`);
    const bundle = join(world.configDir, 'limited');
    const limited = await world.run(['persons', 'export', '--distinct-id', ghost, '--out', bundle, '--max-wait', '1s']);
    world.sandbox.setRateLimit();
    expect(limited.code, limited.stderr).toBe(6);
    expect(limited.stderr).toContain(`continue with \`hogctl persons export --resume --out ${bundle}\``);
    expect(existsSync(join(bundle, 'export-state.json'))).toBe(true);
    world.clock.advance(2 * 3_600_000);
    const res = await world.run(['persons', 'export', '--resume', '--out', bundle, '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ persons: 0, events: 3 });
    expect(written(bundle, NO_PERSON_DIR)).toEqual(stored([ghost]));
  });
});
