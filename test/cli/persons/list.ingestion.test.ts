// PostHog's own Node SDK (posthog-node, pinned) sends to the sandbox's capture, and hogctl, in
// this process, reads back what ingestion made of it: persons merged or not as PostHog merges
// them (docs/server-contract.md §14.3), personless events, and the events table. Event deletion by
// stored person_id (docs/server-contract.md §14.5) is delete-events.ingestion.test.ts and
// bulk-delete.ingestion.test.ts.
import type { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { World } from '../harness.js';
import { fresh, hogqlCount, idList, sendAndIngest } from '../../e2e/sdk.js';
import { personsWith, startIngestion, stopIngestion } from './ingestion-fixtures.js';

let world: World;
let posthog: PostHog;

beforeAll(async () => {
  ({ world, posthog } = await startIngestion());
});
afterAll(() => stopIngestion(world, posthog));

const send = () => sendAndIngest(world, posthog);
const personOf = (distinctId: string) => personsWith(world, distinctId);
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
