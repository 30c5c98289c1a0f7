// End-to-end: PostHog's own Node SDK (posthog-node, pinned) sends to the sandbox's capture, and
// hogctl (the built binary) reads back what ingestion made of it: persons merged or not as
// PostHog merges them (docs/server-contract.md §14.3), personless events, the events table, and
// event deletion by stored person_id after the person-overrides squash (docs/server-contract.md §14.5).
import type { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { fresh, hogqlCount, idList, sdkClient, sendAndIngest } from './sdk.js';

let world: World;
let posthog: PostHog;

beforeAll(async () => {
  world = await startWorld({ persons: 40, seed: 21, eventsPerPerson: 2 });
  posthog = sdkClient(world);
});
afterAll(async () => {
  await posthog.shutdown();
  await world.close();
});

const send = () => sendAndIngest(world, posthog);

interface Listed {
  uuid: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
}

/** `hogctl persons list --distinct-id` */
async function personOf(distinctId: string): Promise<Listed[]> {
  const res = await world.run(['persons', 'list', '--distinct-id', distinctId, '-o', 'json']);
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
}

const count = (hogql: string) => hogqlCount(world, hogql);

describe('identities, as PostHog ingests them', () => {
  it('an anonymous visitor identified later is one person with both distinct ids and both sets of properties', async () => {
    const anon = fresh('anon');
    const user = fresh('user');
    posthog.capture({
      distinctId: anon,
      event: '$pageview',
      properties: { $set: { first_page: '/pricing' }, $current_url: 'https://example.com/pricing' },
    });
    await send();
    posthog.identify({ distinctId: user, properties: { email: `${user}@example.com`, $anon_distinct_id: anon } });
    await send();
    const [person, ...more] = await personOf(anon);
    expect(more).toEqual([]);
    expect([...person.distinct_ids].sort()).toEqual([anon, user].sort());
    expect(person.properties).toMatchObject({
      first_page: '/pricing',
      email: `${user}@example.com`,
      $initial_current_url: 'https://example.com/pricing',
    });
    expect((await personOf(user))[0].uuid).toBe(person.uuid);
    expect(await count(`SELECT count(DISTINCT person_id) FROM events WHERE distinct_id IN ${idList(anon, user)}`)).toBe(1);
  });

  it('an alias lands on its person', async () => {
    const user = fresh('user');
    const device = fresh('device');
    posthog.identify({ distinctId: user, properties: { name: 'Ada' } });
    await send();
    posthog.alias({ distinctId: user, alias: device });
    await send();
    const [person] = await personOf(device);
    expect([...person.distinct_ids].sort()).toEqual([device, user].sort());
    expect(person.properties.name).toBe('Ada');
  });

  it('a refused merge leaves two persons; $merge_dangerously merges two identified persons', async () => {
    const [a, b, bDevice] = [fresh('a'), fresh('b'), fresh('b-device')];
    posthog.identify({ distinctId: a, properties: { who: 'a', only_a: true } });
    posthog.capture({ distinctId: bDevice, event: '$pageview' });
    await send();
    // b becomes identified by taking in its device id.
    posthog.identify({ distinctId: b, properties: { who: 'b', only_b: true, $anon_distinct_id: bDevice } });
    await send();
    posthog.alias({ distinctId: a, alias: b });
    await send();
    const [personA] = await personOf(a);
    const [personB] = await personOf(b);
    expect(personA.uuid).not.toBe(personB.uuid);
    expect(world.sandbox.ingestion.get(1)!.warnings.map((w) => [w.type, w.targetDistinctId])).toContainEqual([
      'cannot_merge_already_identified',
      a,
    ]);

    posthog.capture({ distinctId: a, event: '$merge_dangerously', properties: { alias: b } });
    await send();
    const [merged, ...others] = await personOf(b);
    expect(others).toEqual([]);
    expect(merged.uuid).toBe(personA.uuid);
    expect([...merged.distinct_ids].sort()).toEqual([a, b, bDevice].sort());
    expect(merged.properties).toMatchObject({ who: 'a', only_a: true, only_b: true });
  });

  it('personless events create no one, and the events table counts what was sent', async () => {
    const visitor = fresh('personless');
    for (let i = 0; i < 3; i++)
      posthog.capture({ distinctId: visitor, event: 'docs_read', properties: { $process_person_profile: false, page: i } });
    // Without a distinct id posthog-node makes one up and sends the event personless.
    posthog.capture({ event: 'server_ping' } as never);
    await send();
    expect(await personOf(visitor)).toEqual([]);
    expect(await count(`SELECT count() FROM events WHERE distinct_id = '${visitor}'`)).toBe(3);
    expect(await count(`SELECT count() FROM events WHERE event = 'server_ping'`)).toBe(1);
    expect(await count(`SELECT count() FROM events WHERE event = 'docs_read' AND properties.page = '2'`)).toBe(1);
  });
});

describe('deleting a person with their events', () => {
  it("squashes the overrides first: the person's own personless and pre-merge events go too; a stranger's personless events and others' stay", async () => {
    const [device, anon, user, bystander, stranger] = [
      fresh('device'),
      fresh('anon'),
      fresh('user'),
      fresh('bystander'),
      fresh('stranger'),
    ];
    // A device seen personless, an anonymous visitor with a person of its own, the user, and a
    // personless visitor who never becomes the person.
    posthog.capture({ distinctId: device, event: 'docs_read', properties: { $process_person_profile: false } });
    posthog.capture({ distinctId: stranger, event: 'docs_read', properties: { $process_person_profile: false } });
    posthog.capture({ distinctId: anon, event: '$pageview' });
    posthog.capture({ distinctId: bystander, event: '$pageview' });
    posthog.identify({ distinctId: user, properties: { email: `${user}@example.com` } });
    posthog.capture({ distinctId: user, event: 'purchase' });
    await send();
    posthog.identify({ distinctId: user, properties: { $anon_distinct_id: anon } });
    posthog.alias({ distinctId: user, alias: device });
    await send();
    const [person] = await personOf(user);
    expect([...person.distinct_ids].sort()).toEqual([anon, device, user].sort());
    const all = idList(device, anon, user);
    expect(await count(`SELECT count() FROM events WHERE distinct_id IN ${all}`)).toBe(6);
    // HogQL's person_id reads through the merge overrides: all six are the person's.
    expect(await count(`SELECT count() FROM events WHERE person_id = '${person.uuid}'`)).toBe(6);

    const del = await world.run(['persons', 'delete-events', person.uuid, '-y']);
    expect(del.code, del.stderr).toBe(0);
    const job = await fetch(`${world.sandbox.url}/_sandbox/deletions/run`, { method: 'POST' });
    expect(await job.json()).toMatchObject({ completed: 1 });

    // Gone: all six. The device's personless event and the visitor's pre-merge pageview were
    // stored with their own person_id; the squash before the deletion gave them the user's
    // (posthog/dags/person_overrides.py, docs/server-contract.md §14.5).
    expect(await count(`SELECT count() FROM events WHERE distinct_id IN ${all}`)).toBe(0);
    // Kept: the bystander's event, and the stranger's personless one: never the person's.
    expect(await count(`SELECT count() FROM events WHERE distinct_id = '${bystander}'`)).toBe(1);
    expect(await count(`SELECT count() FROM events WHERE distinct_id = '${stranger}'`)).toBe(1);
    // The person itself is not deleted by delete-events.
    expect((await personOf(user))[0].uuid).toBe(person.uuid);
  });

  it('bulk-delete --delete-events deletes the person, and the job their events', async () => {
    const user = fresh('bulk');
    posthog.identify({ distinctId: user, properties: { email: `${user}@example.com` } });
    posthog.capture({ distinctId: user, event: 'purchase' });
    await send();
    const [person] = await personOf(user);
    expect(await count(`SELECT count() FROM events WHERE person_id = '${person.uuid}'`)).toBe(2);
    const res = await world.run(['persons', 'bulk-delete', '--email', `${user}@example.com`, '--delete-events', '-y']);
    expect(res.code, res.stderr).toBe(0);
    expect(await personOf(user)).toEqual([]);
    expect(await count(`SELECT count() FROM events WHERE person_id = '${person.uuid}'`)).toBe(2);
    await fetch(`${world.sandbox.url}/_sandbox/deletions/run`, { method: 'POST' });
    expect(await count(`SELECT count() FROM events WHERE person_id = '${person.uuid}'`)).toBe(0);

    // A new event for the deleted person's distinct id revives a person that listings do not show
    // until the distinct id is reset.
    posthog.capture({ distinctId: user, event: 'came_back' });
    await send();
    expect(await personOf(user)).toEqual([]);
    expect((await world.run(['persons', 'reset-distinct-id', user])).code).toBe(0);
    expect((await personOf(user)).map((p) => p.uuid)).toEqual([person.uuid]);
  });
});
