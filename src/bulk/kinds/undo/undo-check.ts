// What an undo may do to each group of a merge, decided from the person store before anything is
// written. An undo writes to the distinct ids the merge's journal names, so it must only write
// where they still name what the merge left:
//
// - every distinct id of the group names the kept person. One that names another person was merged
//   again since (a later merge kept someone else) or split: writing the old properties there would
//   put one person's address and name on another, whom an erasure of that address would then
//   delete. One that names no person was deleted since. Either way the group is refused.
// - the kept person's properties are what the merge made of them (PostHog's mergePeople rule,
//   plan-groups.ts expectedProperties). Keys changed since the merge (an edit, a later $set) are
//   named; under --changed refuse (the default) the group is refused, under keep it is undone and
//   the kept person keeps those keys as they are now, under overwrite they are set back too.
// - a group whose former persons each hold their own distinct ids again was already undone.
import { UsageError } from '../../../errors.js';
import type { ListedPerson } from '../../../api/persons.js';
import { sameValue } from '../../engine/same-value.js';
import { expectedProperties } from '../../../merge/plan-groups.js';
import type { KeptPerson, RecordedGroup } from '../merge/merge-kind.js';

export const CHANGED_RULES = ['refuse', 'keep', 'overwrite'] as const;
export type ChangedRule = (typeof CHANGED_RULES)[number];

export function parseChangedRule(raw: string): ChangedRule {
  if ((CHANGED_RULES as readonly string[]).includes(raw)) return raw as ChangedRule;
  throw new UsageError(`invalid --changed "${raw}": use one of ${CHANGED_RULES.join(', ')}`);
}

/** A group the undo gives back, with what the kept person is given. */
export interface UndoGroup extends RecordedGroup {
  /** The kept person's properties after the undo: its own before the merge, and under --changed
   * keep the keys changed since the merge as they are now. */
  keep_target: Record<string, unknown>;
  /** The kept person's keys changed since the merge (kept or overwritten, as --changed said). */
  changed: string[];
}

/** A group the undo leaves alone, and why. */
export interface RefusedGroup {
  project_id: string;
  keep: string;
  /** `failed`: the kept person was deleted since; `refused`: written to, it would change what the receipt does not name. */
  status: 'failed' | 'refused';
  reason: string;
  /** Set when the group was already undone. */
  undone?: true;
}

export const GONE = 'the kept person no longer exists (deleted since the merge?): its former persons cannot be rebuilt';

/** The keys whose values differ between two property sets (a missing key differs from any value). */
export function changedKeys(now: Record<string, unknown>, expected: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(now), ...Object.keys(expected)]);
  return [...keys].filter((k) => Object.hasOwn(now, k) !== Object.hasOwn(expected, k) || !sameValue(now[k], expected[k])).sort();
}

/**
 * Whether the person `p`'s first distinct id names holds exactly `p`'s distinct ids: each of them
 * names it, and it lists no other. The person store's batch answer lists at most 10 ids a person
 * (MinimalPerson), so each id is looked up on its own rather than the list compared. A kept person
 * (given the ids of the others of its group) may list ids of its own since the merge (a new
 * device), just none of theirs.
 */
export function holdsOwnIds(owners: Map<string, ListedPerson>, p: KeptPerson, others?: ReadonlySet<string>): boolean {
  const person = owners.get(p.distinct_ids[0]);
  if (!person) return false;
  const own = new Set(p.distinct_ids);
  const listedRightly = others ? (id: string) => !others.has(id) : (id: string) => own.has(id);
  return p.distinct_ids.every((id) => owners.get(id)?.uuid === person.uuid) && person.distinct_ids.every(listedRightly);
}

/** Whether a former person of the group holds its own ids again: a person merged away exactly its
 * own, the kept person its own and any it got since, but none of those merged away from it. */
export function holdsOwnIdsIn(owners: Map<string, ListedPerson>, g: RecordedGroup, p: KeptPerson): boolean {
  return holdsOwnIds(owners, p, p === g.keep ? new Set(g.merge.flatMap((m) => m.distinct_ids)) : undefined);
}

/** Whether each former person holds exactly its own distinct ids again, each on a person of its own. */
function alreadyUndone(g: RecordedGroup, owners: Map<string, ListedPerson>): boolean {
  const formers = [g.keep, ...g.merge];
  const persons = new Set(formers.map((p) => owners.get(p.distinct_ids[0])?.uuid));
  return persons.size === formers.length && formers.every((p) => holdsOwnIdsIn(owners, g, p));
}

/** Where the group's distinct ids are not all on the kept person: why, in words; undefined when they are. */
function moved(g: RecordedGroup, owners: Map<string, ListedPerson>): string | undefined {
  const keep = g.keep.uuid;
  for (const id of [g.keep, ...g.merge].flatMap((p: KeptPerson) => p.distinct_ids)) {
    const owner = owners.get(id);
    if (!owner) return `its distinct id ${JSON.stringify(id)} names no person now (deleted since the merge?)`;
    if (owner.uuid.toLowerCase() !== keep)
      return `its distinct id ${JSON.stringify(id)} now names person ${owner.uuid.toLowerCase()}, not the kept person ${keep} (merged again or split since the merge); undoing it would write to a person this receipt does not name`;
  }
  return undefined;
}

/** What the undo does with one group, given which person each of its distinct ids names now. */
export function judgeGroup(g: RecordedGroup, owners: Map<string, ListedPerson>, rule: ChangedRule): UndoGroup | RefusedGroup {
  const refused = (reason: string, extra: Partial<RefusedGroup> = {}): RefusedGroup => ({
    project_id: g.project_id,
    keep: g.keep.uuid,
    status: 'refused',
    reason,
    ...extra,
  });
  if (g.keep.distinct_ids.every((id) => !owners.has(id))) return refused(GONE, { status: 'failed' });
  if (alreadyUndone(g, owners)) return refused('already undone: each former person holds its own distinct ids again', { undone: true });
  const why = moved(g, owners);
  if (why) return refused(why);
  const now = owners.get(g.keep.distinct_ids[0])!.properties;
  const changed = changedKeys(now, expectedProperties(g.keep, g.merge));
  if (changed.length > 0 && rule === 'refuse')
    return refused(
      `the kept person's ${changed.join(', ')} changed since the merge: --changed keep undoes it and keeps them as they are now, --changed overwrite sets them back too`,
    );
  const target = { ...g.keep.properties };
  if (rule === 'keep')
    for (const key of changed) {
      if (Object.hasOwn(now, key)) target[key] = now[key];
      else delete target[key];
    }
  return { ...g, keep_target: target, changed };
}

export function isRefused(judged: UndoGroup | RefusedGroup): judged is RefusedGroup {
  return 'reason' in judged;
}
