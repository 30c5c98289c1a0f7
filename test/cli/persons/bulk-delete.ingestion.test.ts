// `persons bulk-delete --delete-events`, in this process, of a person PostHog's own Node SDK
// (posthog-node, pinned) made through the sandbox's capture: the person goes, and the sandbox's
// weekly job deletes their events (docs/server-contract.md §14.5).
import type { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { World } from '../harness.js';
import { fresh, hogqlCount, sendAndIngest } from '../../e2e/sdk.js';
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
