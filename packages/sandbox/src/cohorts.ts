// The seeded cohorts of each sandbox project. Membership is a pure function of a person's
// generated properties, so it follows the seed like everything else, and it follows later
// writes too (a person whose plan is set to "team" joins "Paying customers").

import type { Person, SandboxStore } from './store.js';

export interface Cohort {
  id: number;
  name: string;
  /** Deleted cohorts keep their members but are never listed (Cohort.objects.filter(deleted=False)). */
  deleted: boolean;
  matches(person: Person): boolean;
}

const DEFINITIONS: Omit<Cohort, 'id'>[] = [
  { name: 'Paying customers', deleted: false, matches: (p) => p.properties.plan === 'team' || p.properties.plan === 'enterprise' },
  { name: 'Enterprise accounts', deleted: false, matches: (p) => p.properties.plan === 'enterprise' },
  { name: 'Germany', deleted: false, matches: (p) => p.properties.country === 'DE' },
  { name: 'Power users', deleted: false, matches: (p) => typeof p.properties.sessions === 'number' && p.properties.sessions >= 250 },
  { name: 'Anonymous visitors', deleted: false, matches: (p) => !p.isIdentified },
  { name: 'Beta testers 2024', deleted: true, matches: (p) => p.properties.country === 'US' },
];

/** Cohort ids are unique across projects: project 1 has 1..6, project 2 has 101..106, ... */
export function cohortsOf(teamId: number): Cohort[] {
  return DEFINITIONS.map((d, i) => ({ ...d, id: (teamId - 1) * 100 + i + 1 }));
}

const counts = new WeakMap<SandboxStore, { version: number; byName: Map<string, number> }>();

/** How many live persons of `store` a cohort holds; one scan per store version. */
export function cohortCount(store: SandboxStore, cohort: Cohort): number {
  let cached = counts.get(store);
  if (!cached || cached.version !== store.version) {
    const byName = new Map<string, number>(DEFINITIONS.map((d) => [d.name, 0]));
    for (const person of store) for (const d of DEFINITIONS) if (d.matches(person)) byName.set(d.name, byName.get(d.name)! + 1);
    cached = { version: store.version, byName };
    counts.set(store, cached);
  }
  return cached.byName.get(cohort.name) ?? 0;
}
