// What the tests of ingestion share: a small world that PostHog's own Node SDK (posthog-node,
// pinned) sends to, and `persons list --distinct-id` to read a person back. No state here.
import type { PostHog } from 'posthog-node';
import { expect } from 'vitest';
import { startWorld, type World } from '../harness.js';
import { sdkClient } from '../../e2e/sdk.js';

export async function startIngestion(): Promise<{ world: World; posthog: PostHog }> {
  const world = await startWorld({ persons: 40, seed: 21, eventsPerPerson: 2 });
  return { world, posthog: sdkClient(world) };
}

export async function stopIngestion(world: World, posthog: PostHog): Promise<void> {
  await posthog.shutdown();
  await world.close();
}

export interface Listed {
  uuid: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
}

/** `hogctl persons list --distinct-id` */
export async function personsWith(world: World, distinctId: string): Promise<Listed[]> {
  const res = await world.run(['persons', 'list', '--distinct-id', distinctId, '-o', 'json']);
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
}
