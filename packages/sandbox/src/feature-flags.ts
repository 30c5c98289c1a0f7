// The seeded feature flags of each sandbox project, and how PostHog evaluates them for one
// distinct id (PostHog/posthog posthog/models/feature_flag/flag_matching.py,
// `FeatureFlagMatcher.get_match`, `is_condition_match`, `get_hash`, `get_matches`).
//
// Every project has the same three flags, as every project has the same cohorts (cohorts.ts):
// one rolled out to half of all distinct ids, one for persons whose e-mail ends in a domain, one
// disabled. Which half a distinct id falls in is PostHog's own hash, so it follows the ids alone.

import { createHash } from 'node:crypto';
import type { Person } from './store.js';

interface PropertyCondition {
  key: string;
  type: 'person';
  operator: 'regex';
  value: string;
}

interface ConditionGroup {
  properties: PropertyCondition[];
  rollout_percentage: number | null;
}

export interface FeatureFlag {
  key: string;
  active: boolean;
  groups: ConditionGroup[];
}

/** `key` is the flag key PostHog's own tests use for a 50% rollout (test_rollout_percentage):
 * `example_id` falls inside it, `another_id` out of it. */
const FLAGS: FeatureFlag[] = [
  { key: 'beta-feature', active: true, groups: [{ properties: [], rollout_percentage: 50 }] },
  {
    key: 'example-net-users',
    active: true,
    groups: [{ properties: [{ key: 'email', type: 'person', operator: 'regex', value: '@example\\.net$' }], rollout_percentage: null }],
  },
  { key: 'legacy-checkout', active: false, groups: [{ properties: [], rollout_percentage: 100 }] },
];

export function featureFlagsOf(_teamId: number): FeatureFlag[] {
  return FLAGS;
}

export type MatchReason = 'condition_match' | 'no_condition_match' | 'out_of_rollout_bound' | 'disabled';

/** FeatureFlagMatchReason.score: a condition that failed on rollout outranks one that did not match. */
const SCORE: Record<string, number> = { condition_match: 3, out_of_rollout_bound: 1, no_condition_match: 0 };

/** `__LONG_SCALE__ = float(0xFFFFFFFFFFFFFFF)`. */
const LONG_SCALE = Number(0xfffffffffffffffn);

/** get_hash: the first 15 hex digits of SHA-1(`<flag key>.<distinct id>`), scaled to [0, 1]. */
export function flagHash(flagKey: string, distinctId: string): number {
  const hex = createHash('sha1').update(`${flagKey}.${distinctId}`, 'utf8').digest('hex').slice(0, 15);
  return Number(BigInt(`0x${hex}`)) / LONG_SCALE;
}

function conditionMatch(flag: FeatureFlag, group: ConditionGroup, distinctId: string, person: Person | undefined): [boolean, MatchReason] {
  if (group.properties.length > 0) {
    // The person's properties are read from the person store (query_conditions); a distinct id
    // with no person matches no property condition.
    const matches = person !== undefined && group.properties.every((p) => new RegExp(p.value).test(String(person.properties[p.key] ?? '')));
    if (!matches) return [false, 'no_condition_match'];
    if (group.rollout_percentage === null) return [true, 'condition_match'];
  }
  if (group.rollout_percentage !== null && flagHash(flag.key, distinctId) > group.rollout_percentage / 100)
    return [false, 'out_of_rollout_bound'];
  return [true, 'condition_match'];
}

export interface FlagEvaluation {
  value: boolean;
  evaluation: { reason: MatchReason; condition_index: number | null };
}

/** The `evaluation_reasons` answer: the active flags as get_matches evaluates them, then every
 * disabled flag as `{value: false, reason: "disabled", condition_index: null}`. */
export function evaluationReasons(teamId: number, distinctId: string, person: Person | undefined): Record<string, FlagEvaluation> {
  const out: Record<string, FlagEvaluation> = {};
  for (const flag of featureFlagsOf(teamId).filter((f) => f.active)) {
    let reason: MatchReason = 'no_condition_match';
    let index = 0;
    let matched = false;
    for (const [i, group] of flag.groups.entries()) {
      const [isMatch, why] = conditionMatch(flag, group, distinctId, person);
      if (isMatch) {
        [matched, reason, index] = [true, why, i];
        break;
      }
      // get_highest_priority_match_evaluation: the later of two equal reasons wins.
      if (SCORE[reason] <= SCORE[why]) [reason, index] = [why, i];
    }
    out[flag.key] = { value: matched, evaluation: { reason, condition_index: index } };
  }
  for (const flag of featureFlagsOf(teamId).filter((f) => !f.active)) {
    out[flag.key] = { value: false, evaluation: { reason: 'disabled', condition_index: null } };
  }
  return out;
}
