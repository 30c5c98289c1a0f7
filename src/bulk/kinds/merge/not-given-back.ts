// What an undo of a merge cannot give back, because no PostHog API restores it: said in the
// merge's plan (before anything is merged), in the undo's plan and in the undo's receipt, which
// also counts what did come back (undo.ts NotRestored).
//
// A split makes each split-off person anew: `created_at` now, `is_identified` false, empty
// properties, under the UUIDv5 of its distinct id (docs/server-contract.md §14.7; the newest
// servers revive a merge's tombstone of that UUID instead, keeping its created_at). What a merge
// moved to the kept person by its id stays there (docs/server-contract.md §14.3:
// person-merge-service.ts moves static cohort rows and feature-flag hash-key overrides).
export const NOT_GIVEN_BACK = [
  "a rebuilt person's created_at and is_identified: PostHog's split makes it anew (created now, not identified) unless the server revives its old record",
  'static cohort memberships and feature-flag hash-key overrides the merge moved to the kept person: they stay with it',
  "the activity log of a person merged away: it stays under the person's old record",
  'the UUID of a person that ingestion did not create for one of its own distinct ids: it is rebuilt under a new UUID',
];

/** NOT_GIVEN_BACK as lines of a plan, under `heading` ("  undo      …"). */
export function notGivenBackLines(heading: string): string[] {
  return [heading, ...NOT_GIVEN_BACK.map((line) => `            ${line}`)];
}
