// The plan of a merge: per group of duplicate persons (in one project), the person kept and the
// persons merged into it, in order, with what PostHog will make of their properties.
//
// PostHog merges through capture only: a `$merge_dangerously` event whose distinct_id is one of
// the kept person's ids and whose `alias` is one of the other person's ids moves all the other's
// distinct ids to the kept person and deletes the other (docs/server-contract.md §14.3, §14.6;
// nodejs/src/worker/ingestion/persons/person-merge-service.ts, mergePeople()). The properties
// become `{...other, ...kept}`: the kept person's values win, the other's keys it lacks are added.
// Merged one after another into the same person, the first merged wins over the later ones, so
// a group of kept K and others O1, O2 ends with `{...O2, ...O1, ...K}`; the earlier created_at
// stays and the person becomes identified.
//
// A distinct id PostHog calls illegal (docs/server-contract.md §14.3) makes the merge a no-op with an ingestion warning;
// worse, a person holding `null` or `undefined` as a distinct id is usually many people's events
// collected under a placeholder. Such a person is reported and left out of its group, never merged.
import { UsageError } from '../errors.js';
import type { Candidate } from './find-duplicates.js';
import { isIllegalDistinctId, placeholderReason } from './placeholders.js';

export const KEEP_RULES = ['identified', 'oldest', 'newest', 'most-events'] as const;
export type KeepRule = (typeof KEEP_RULES)[number];
// What a reviewer keeps: the person someone signed in as (an anonymous device person kept would
// carry the identified one's history under a device's id and properties), then the one with the
// most history, then the oldest. The oldest alone kept a device person that happened to be first.
export const DEFAULT_KEEP: KeepRule = 'identified';

/** Each rule in words, for the help and the plan. */
export const KEEP_MEANS: Record<KeepRule, string> = {
  identified: 'an identified person, then the one with the most events, then the oldest',
  oldest: 'the earliest created',
  newest: 'the latest created',
  'most-events': 'the one with the most events, then the oldest',
};

export const PROPERTY_RULE =
  "the kept person's properties win; a key it lacks comes from the persons merged into it, the first merged first (PostHog's mergePeople: {...other, ...kept})";

export interface PlannedGroup {
  project_id: string;
  /** The person kept. */
  keep: Candidate;
  /** The persons merged into it, in the order they are merged. */
  merge: Candidate[];
  /** What the kept person's properties will be. */
  expected_properties: Record<string, unknown>;
}

export interface LeftOut {
  project_id: string;
  uuid: string;
  reason: string;
}

/** A group as read from `persons duplicates` output or given on the command line. */
export interface InputGroup {
  project_id: string;
  persons: Candidate[];
  /** A reviewed plan names its kept person. */
  keep?: string;
  /** Where the group was given, for messages: `groups.json group 3`, `standard input line 2`. */
  where?: string;
  /** What its persons share, as `persons duplicates` printed it. */
  key?: Record<string, string>;
}

/** The person of a group to keep under a rule; ties go to the oldest, then the lowest UUID. */
export function chooseKeeper(persons: Candidate[], rule: KeepRule): Candidate {
  const older = (a: Candidate, b: Candidate) =>
    a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.uuid < b.uuid ? -1 : 1;
  const sorted = [...persons].sort((a, b) => {
    switch (rule) {
      case 'oldest':
        return older(a, b);
      case 'newest':
        return -older(a, b);
      case 'most-events':
        return b.event_count - a.event_count || older(a, b);
      case 'identified':
        return Number(b.is_identified) - Number(a.is_identified) || b.event_count - a.event_count || older(a, b);
    }
  });
  return sorted[0];
}

export function parseKeepRule(raw: string): KeepRule {
  if ((KEEP_RULES as readonly string[]).includes(raw)) return raw as KeepRule;
  throw new UsageError(`invalid --keep "${raw}": use one of ${KEEP_RULES.join(', ')}`);
}

/** `{...On, ..., ...O1, ...K}`: PostHog's mergePeople applied once per merged person, in order. */
type WithProperties = Pick<Candidate, 'properties'>;

export function expectedProperties(keep: WithProperties, merge: WithProperties[]): Record<string, unknown> {
  let properties = { ...keep.properties };
  for (const other of merge) properties = { ...other.properties, ...properties };
  return properties;
}

/** Why a group whose persons share this key is not one person (placeholders.ts), if it is not. */
function keyPlaceholder(key: Record<string, string> | undefined): string | undefined {
  for (const [name, value] of Object.entries(key ?? {})) {
    const reason = placeholderReason(value);
    if (reason !== undefined) return `its group shares ${name}=${JSON.stringify(value)}, ${reason}`;
  }
  return undefined;
}

export function planGroups(groups: InputGroup[], rule: KeepRule): { planned: PlannedGroup[]; leftOut: LeftOut[] } {
  const planned: PlannedGroup[] = [];
  const leftOut: LeftOut[] = [];
  for (const group of groups) {
    // A groups file can come from anywhere: a group joined through a placeholder is not one person.
    const placeholder = keyPlaceholder(group.key);
    if (placeholder !== undefined) {
      for (const person of group.persons) leftOut.push({ project_id: group.project_id, uuid: person.uuid, reason: placeholder });
      continue;
    }
    const usable: Candidate[] = [];
    for (const person of group.persons) {
      const illegal = person.distinct_ids.filter(isIllegalDistinctId);
      if (illegal.length > 0)
        leftOut.push({
          project_id: group.project_id,
          uuid: person.uuid,
          reason: `has a distinct id PostHog refuses to merge (${illegal.map((id) => JSON.stringify(id)).join(', ')})`,
        });
      else if (person.distinct_ids.length === 0)
        leftOut.push({ project_id: group.project_id, uuid: person.uuid, reason: 'has no distinct id to address it by (deleted?)' });
      else usable.push(person);
    }
    if (usable.length < 2) {
      for (const person of usable)
        leftOut.push({ project_id: group.project_id, uuid: person.uuid, reason: 'no other person of its group can be merged with it' });
      continue;
    }
    const keep = group.keep !== undefined ? usable.find((p) => p.uuid === group.keep) : chooseKeeper(usable, rule);
    if (!keep) {
      for (const person of usable)
        leftOut.push({ project_id: group.project_id, uuid: person.uuid, reason: `the plan keeps ${group.keep}, which cannot be merged` });
      continue;
    }
    const merge = usable.filter((p) => p !== keep);
    planned.push({ project_id: group.project_id, keep, merge, expected_properties: expectedProperties(keep, merge) });
  }
  return { planned, leftOut };
}
