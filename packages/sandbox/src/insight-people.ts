// Who is in a funnel step or a lifecycle bucket, for the legacy insight person lists
// (routes/legacy-persons.ts) and the ActorsQuery over insights (actors-query.ts). The sandbox has
// no insight engine: membership is a deterministic function of the person, so the same seed
// always gives the same people.

import { hash32 } from './prng.js';
import type { Person } from './store.js';

const LIFECYCLE_SHARE: Record<string, number> = { returning: 30, resurrecting: 10, dormant: 20 };

/** Who completed step `step` (> 0) of a funnel of `steps`, or dropped off at it (< 0): each
 * person reaches a furthest step 0..steps, fewer the further along (a funnel's shape). */
export function funnelPeople(store: Iterable<Person>, steps: number, step: number): Person[] {
  const furthest = (p: Person) => {
    let reached = 0;
    while (reached < steps && hash32(p.id, 0xf0 + reached) % 100 < (reached === 0 ? 70 : 55)) reached++;
    return reached;
  };
  const people: Person[] = [];
  for (const person of store) {
    const reached = furthest(person);
    if (step > 0 ? reached >= step : reached === -step - 1) people.push(person);
  }
  return people;
}

/** The people of one lifecycle bucket on one day; buckets are disjoint, one draw per person. */
export function lifecyclePeople(store: Iterable<Person>, day: string, type: string): Person[] {
  const people: Person[] = [];
  for (const person of store) {
    const createdDay = person.createdAt.slice(0, 10);
    if (type === 'new') {
      if (createdDay === day) people.push(person);
    } else if (createdDay < day && LIFECYCLE_SHARE[type] !== undefined) {
      const roll = hash32(person.id, 0x11fe) % 100;
      const start = type === 'returning' ? 0 : type === 'resurrecting' ? 30 : 40;
      if (roll >= start && roll < start + LIFECYCLE_SHARE[type]) people.push(person);
    }
  }
  return people;
}
