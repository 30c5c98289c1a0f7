// What PostHog keeps after a person deletion with delete_events, as its source has it
// (docs/server-contract.md §14.5): said in the receipt and by `persons erasure-status`, so an
// erasure never claims more than PostHog deletes. Each line names where in PostHog's source it
// comes from.

export interface Survivor {
  what: string;
  source: string;
}

export const PERSON_DELETION_SURVIVORS: readonly Survivor[] = [
  {
    what: 'events timestamped or inserted after the deletion request (late events included)',
    source: 'posthog/dags/deletes.py, _DELETE_PREDICATE: timestamp <= created_at',
  },
  {
    what: "events of distinct ids that were never the person's (personless ids never merged into it, ids split off earlier): --sweep-events reaches those the erasure names",
    source: 'posthog/dags/person_overrides.py (the squash rewrites only ids with overrides); posthog/dags/deletes.py',
  },
  {
    what: 'posthog_personlessdistinctid rows and ClickHouse person_static_cohort rows (cleared only when the project is deleted)',
    source: 'posthog/dags/deletes.py, team deletion targets',
  },
  { what: 'events_json copies (a skipped target)', source: 'posthog/dags/deletes.py, _DEFAULT_SKIP_TARGETS' },
  {
    what: 'heatmaps and the AI events table (ai_events, 30-day TTL): not deletion targets',
    source: 'posthog/models/deletion_targets.py; posthog/hogql_queries/ai/ai_table_resolver.py',
  },
  {
    what: 'session recordings, unless --delete-recordings (then a separate workflow, by distinct id)',
    source: 'posthog/api/person.py, queue_person_recording_deletion',
  },
  {
    what: 'everything, on a self-hosted PostHog without its Dagster scheduler: nothing runs the queued deletions',
    source: 'posthog/tasks/tasks.py (the Celery event deletion was removed, PostHog/posthog#28167)',
  },
];

/** "- events timestamped … (posthog/dags/deletes.py …)" lines, for a terminal. */
export function survivorLines(): string[] {
  return PERSON_DELETION_SURVIVORS.map((s) => `  - ${s.what} (${s.source})`);
}
