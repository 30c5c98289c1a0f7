// PostHog's own Node SDK (posthog-node, pinned) pointed at a sandbox world, for the tests whose
// data must come the way real clients send it, and the reads that check what ingestion made of it.
import { PostHog } from 'posthog-node';
import { expect } from 'vitest';
import type { World } from './harness.js';

/** A client that sends only when flushed (sendAndIngest), so a test says when its data goes. */
export function sdkClient(world: Pick<World, 'sandbox'>): PostHog {
  return new PostHog(world.sandbox.world.projects[0].apiToken, { host: world.sandbox.url, flushAt: 1000, flushInterval: 60_000 });
}

/** Sends what the client queued, then waits until ingestion has stored every event. */
export async function sendAndIngest(world: Pick<World, 'sandbox'>, posthog: PostHog): Promise<void> {
  const before = world.sandbox.capture.events;
  await posthog.flush();
  expect(world.sandbox.capture.events).toBeGreaterThan(before);
  const ingested = () => world.sandbox.ingestion.get(1)!.stats.events;
  for (let i = 0; i < 400 && ingested() < world.sandbox.capture.events; i++) await new Promise((r) => setTimeout(r, 10));
  expect(ingested()).toBe(world.sandbox.capture.events);
}

/** `hogctl persons query "SELECT count() ..."`: the one number. */
export async function hogqlCount(world: World, hogql: string): Promise<number> {
  const res = await world.run(['persons', 'query', hogql, '-o', 'json']);
  expect(res.code, res.stderr).toBe(0);
  const [row] = JSON.parse(res.stdout);
  return Number(Object.values(row)[0]);
}

let made = 0;
/** A distinct id (or address part) no other test uses. */
export const fresh = (what: string) => `${what}-${++made}-${Math.random().toString(36).slice(2, 8)}`;

/** `('a', 'b')`, for a HogQL `IN`. */
export const idList = (...ids: string[]) => `(${ids.map((id) => `'${id}'`).join(', ')})`;
