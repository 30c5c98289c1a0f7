// What the tests of `persons merge` share, in this process (test/cli/persons/merge.test.ts) and
// as the built binary (test/e2e/persons-merge.test.ts): a world whose seeded persons have twins
// under the same address (the groups `persons duplicates` finds), and persons made through
// PostHog's own Node SDK. No state here: each file keeps what it seeded.
import { expect } from 'vitest';
import type { Sandbox, SandboxOptions } from '@hogctl/sandbox';
import type { World } from '../harness.js';
import { fresh, sdkClient, sendAndIngest } from '../../e2e/sdk.js';

export const MERGE_WORLD: SandboxOptions = { persons: 600, seed: 31 };

/** Events through the sandbox's capture, as posthog-node sends them (GeoIP off), once applied. */
export async function captureInto(
  sandbox: Sandbox,
  events: { event: string; distinct_id: string; properties: Record<string, unknown> }[],
): Promise<void> {
  const batch = events.map((e) => ({ ...e, properties: { ...e.properties, $geoip_disable: true } }));
  const res = await fetch(`${sandbox.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: sandbox.world.projects[0].apiToken, batch }),
  });
  expect(res.status).toBe(200);
  await new Promise((r) => setTimeout(r, 20));
}

export interface Twins {
  /** Per address: the distinct ids of every person that has it. */
  groups: Map<string, string[]>;
  /** Per address: the distinct id of its first duplicate. */
  firstTwin: Map<string, string>;
}

/** 12 seeded persons get 1 to 3 twins each, under their address in other case or with a space;
 * and a person under the placeholder "null" has one of the addresses. */
export async function seedTwins(world: World): Promise<Twins> {
  const groups = new Map<string, string[]>();
  const firstTwin = new Map<string, string>();
  const posthog = sdkClient(world);
  const seeded = [...world.sandbox.store].filter((p) => typeof p.properties.email === 'string').slice(50, 50 + 12 * 5);
  for (let i = 0; i < 12; i++) {
    const person = seeded[i * 5];
    const email = String(person.properties.email);
    const ids = [...person.distinctIds];
    for (let k = 0; k < 1 + (i % 3); k++) {
      const id = fresh('twin');
      ids.push(id);
      if (k === 0) firstTwin.set(email, id);
      // A plan of its own (the kept person's wins) and a key only it has (kept by the merge).
      posthog.identify({
        distinctId: id,
        properties: { email: k === 0 ? email.toUpperCase() : ` ${email}`, plan: `twin-${k}`, [`only_${k}`]: id },
      });
    }
    groups.set(email, ids);
  }
  // A person under the placeholder "null" with one of the addresses: reported, never merged.
  posthog.identify({ distinctId: 'null', properties: { email: [...groups.keys()][0] } });
  await sendAndIngest(world, posthog);
  await posthog.shutdown();
  return { groups, firstTwin };
}

/** Persons made through PostHog's SDK, one a distinct id with these properties, once ingested. */
export async function identified(world: World, persons: [distinctId: string, properties: Record<string, unknown>][]): Promise<void> {
  const posthog = sdkClient(world);
  for (const [distinctId, properties] of persons) posthog.identify({ distinctId, properties });
  await sendAndIngest(world, posthog);
  await posthog.shutdown();
}

/** Two new persons, `<name>-a` with plan a and `<name>-b` with plan b, identified through the SDK:
 * the group most tests merge. */
export async function identifiedPair(world: World, name: string): Promise<[string, string]> {
  const [a, b] = [fresh(`${name}-a`), fresh(`${name}-b`)];
  await identified(world, [
    [a, { plan: 'a' }],
    [b, { plan: 'b' }],
  ]);
  return [a, b];
}
