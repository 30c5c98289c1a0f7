// The duplicates the tests of `persons duplicates` look for, in this process
// (test/cli/persons/duplicates.test.ts) and on a real terminal (test/e2e/persons-duplicates.test.ts):
// persons identified through PostHog's own Node SDK under a seeded person's address written in
// other letter case or with spaces around it. No state here: each file keeps what it seeded.
import type { SandboxOptions } from '@hogctl/sandbox';
import type { World } from '../harness.js';
import { fresh, sdkClient, sendAndIngest } from '../../e2e/sdk.js';

export const DUPLICATES_WORLD: SandboxOptions = { persons: 3_000, seed: 27 };

export interface Seeded {
  /** Per seeded e-mail address, the distinct ids of its duplicates. */
  made: Map<string, string[]>;
  /** Addresses with three or more persons. */
  triples: Set<string>;
  /** The seeded person of each of those addresses. */
  seededByEmail: Map<string, string>;
}

const variants = (email: string) => [email.toUpperCase(), `  ${email} `, email.replace(/^u/, 'U')];

/** 40 seeded persons get 1 or 2 duplicates each, identified elsewhere under a case-varied address
 * and with a plan of their own; each duplicate has a page view or two. */
export async function seedDuplicates(world: World): Promise<Seeded> {
  const seeded: Seeded = { made: new Map(), triples: new Set(), seededByEmail: new Map() };
  const posthog = sdkClient(world);
  const persons = [...world.sandbox.store].filter((p) => typeof p.properties.email === 'string').slice(100, 100 + 40 * 7);
  for (let i = 0; i < 40; i++) {
    const email = String(persons[i * 7].properties.email);
    seeded.seededByEmail.set(email, persons[i * 7].uuid);
    const extra = i % 4 === 0 ? 2 : 1;
    const ids: string[] = [];
    for (let k = 0; k < extra; k++) {
      const id = fresh('dup');
      ids.push(id);
      posthog.identify({ distinctId: id, properties: { email: variants(email)[(i + k) % 3], plan: `dup-${k}` } });
      for (let e = 0; e <= i % 2; e++) posthog.capture({ distinctId: id, event: '$pageview' });
    }
    seeded.made.set(email, ids);
    if (extra === 2) seeded.triples.add(email);
  }
  await sendAndIngest(world, posthog);
  await posthog.shutdown();
  return seeded;
}
