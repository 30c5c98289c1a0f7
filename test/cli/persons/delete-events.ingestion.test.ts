// `persons delete-events`, in this process, of a person PostHog's own Node SDK (posthog-node,
// pinned) made through the sandbox's capture: the sandbox's weekly job deletes the events stored
// with the person's UUID, as PostHog does (docs/server-contract.md §14.5).
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
  it("removes the events stored with the person's UUID; personless and pre-merge events with another person_id stay, and so do others'", async () => {
    const [device, anon, user, bystander] = [fresh('device'), fresh('anon'), fresh('user'), fresh('bystander')];
    // A device seen personless, an anonymous visitor with a person of its own, and the user.
    posthog.capture({ distinctId: device, event: 'docs_read', properties: { $process_person_profile: false } });
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

    // Gone: the user's own events (identify, purchase, the second identify and the alias).
    expect(await count(`SELECT count() FROM events WHERE distinct_id = '${user}'`)).toBe(0);
    // Kept: the device's personless event and the visitor's pre-merge pageview, stored with
    // their own person_id, and the bystander's event.
    expect(await count(`SELECT count() FROM events WHERE distinct_id IN ${idList(device, anon)}`)).toBe(2);
    expect(await count(`SELECT count() FROM events WHERE distinct_id = '${bystander}'`)).toBe(1);
    // The person itself is not deleted by delete-events.
    expect((await personOf(user))[0].uuid).toBe(person.uuid);
  });
});
