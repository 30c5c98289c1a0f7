// `persons delete-events`, in this process, of a person PostHog's own Node SDK (posthog-node,
// pinned) made through the sandbox's capture: the sandbox's weekly job deletes the events stored
// with the person's UUID after the person-overrides squash, as PostHog does
// (docs/server-contract.md §14.5).
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
});
