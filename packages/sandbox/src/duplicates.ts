// Groups of duplicate persons in project 1 (`duplicates` option, `hogctl sandbox --duplicates`), so
// that finding, merging and undoing a merge can be tried without hand-editing persons. Each group
// is one human seen as two or three persons, as a CRM import, an app sign-up and an anonymous
// visitor who typed the address into a form would leave them: the same e-mail address in varied
// letter case, some persons identified and some anonymous, each with a few events.
//
// The addresses are on example.net, apart from the seeded persons' user<n>@example.com, so the
// groups never change what a lookup of a seeded person finds. Like the seeded persons, the groups
// are a pure function of the seed: the same seed gives the same UUIDs and distinct ids.
import { ANCHOR_MS, type SandboxStore } from './store.js';
import type { NewEvent } from './events.js';
import { hash32, hex, mulberry32 } from './prng.js';

const NAMES = [
  ['Ada', 'Lovelace'],
  ['Grace', 'Hopper'],
  ['Alan', 'Turing'],
  ['Radia', 'Perlman'],
  ['Edsger', 'Dijkstra'],
  ['Hedy', 'Lamarr'],
  ['Barbara', 'Liskov'],
  ['Dennis', 'Ritchie'],
];
const DAY_US = 24 * 3600 * 1e6;

/** A UUIDv7 text for `ms`, its random bits from `rand`. */
function uuidV7(ms: number, rand: () => number): string {
  const time = hex(Math.floor(ms / 65536), 8) + hex(ms % 65536, 4);
  const word = () => hex(Math.floor(rand() * 0x100000000), 8);
  const tail = word() + word() + word();
  const variant = (0x8 | Math.floor(rand() * 4)).toString(16);
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${tail.slice(0, 3)}-${variant}${tail.slice(3, 6)}-${tail.slice(6, 18)}`;
}

interface Shape {
  distinctIds: (n: number, anon: string) => string[];
  email: (address: string) => string;
  identified: boolean;
  plan: string;
}

// The persons of a group, oldest first; the anonymous one only in every other group, so that
// groups of two and of three are both there to try.
const SHAPES: Shape[] = [
  { distinctIds: (n) => [`crm-${n}`], email: (a) => a, identified: true, plan: 'team' },
  { distinctIds: (n, anon) => [anon, `app-${n}`], email: (a) => a.replace(/^./, (c) => c.toUpperCase()), identified: true, plan: 'free' },
  { distinctIds: (_n, anon) => [anon], email: (a) => a.toUpperCase(), identified: false, plan: 'free' },
];

/**
 * Adds `groups` groups of duplicates to `store` and returns their events, which the caller lays
 * down with the project's other events (they are seeded lazily, events.ts).
 */
export function seedDuplicates(store: SandboxStore, groups: number, seed: number): NewEvent[] {
  const events: NewEvent[] = [];
  for (let g = 1; g <= groups; g++) {
    const rand = mulberry32(hash32(seed, 0xd00b + g));
    const [first, last] = NAMES[(g - 1) % NAMES.length];
    const round = Math.floor((g - 1) / NAMES.length);
    const address = `${first}.${last}${round ? round + 1 : ''}@example.net`.toLowerCase();
    const shapes = g % 2 === 1 ? SHAPES : SHAPES.slice(0, 2);
    let createdUs = ANCHOR_MS * 1000 - Math.floor((60 + rand() * 200) * DAY_US);
    for (const shape of shapes) {
      const anon = uuidV7(Math.floor(createdUs / 1000), rand);
      const person = store.addPerson({
        uuid: uuidV7(Math.floor(createdUs / 1000), rand),
        createdAtUs: createdUs,
        distinctIds: shape.distinctIds(g, anon),
        isIdentified: shape.identified,
        properties: { email: shape.email(address), name: `${first} ${last}`, plan: shape.plan },
      });
      events.push(...personEvents(person.uuid, person.distinctIds, createdUs, rand));
      createdUs += Math.floor((5 + rand() * 20) * DAY_US);
    }
  }
  return events;
}

/** A sign-up's few events: a page view with the first distinct id, then the last one's. */
function personEvents(personId: string, distinctIds: string[], fromUs: number, rand: () => number): NewEvent[] {
  const names = ['$pageview', '$pageview', 'signed_up'];
  return names.map((event, k) => {
    const at = fromUs + Math.floor((k + rand()) * 3600e6);
    return {
      uuid: uuidV7(Math.floor(at / 1000), rand),
      event,
      distinctId: k === 0 ? distinctIds[0] : distinctIds[distinctIds.length - 1],
      personId,
      timestampUs: at,
      createdAtUs: at + 1000,
      properties: JSON.stringify({ $current_url: `https://app.example.com/${k === 2 ? 'signup' : ''}`, $lib: 'web' }),
      sessionId: null,
    };
  });
}
