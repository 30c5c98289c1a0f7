// The verbs of `hogctl persons`, by name, each loaded only when needed (see src/cli/lazy-verb.ts).
import type { LazyVerb } from '../../cli/lazy-verb.js';

export const personsVerbs: LazyVerb[] = [
  { name: 'list', load: async () => (await import('./list.js')).personsListCommand() },
  { name: 'get', load: async () => (await import('./get.js')).personsGetCommand() },
  { name: 'update', load: async () => (await import('./update.js')).personsUpdateCommand() },
  { name: 'delete', load: async () => (await import('./delete.js')).personsDeleteCommand() },
  { name: 'bulk-delete', load: async () => (await import('./bulk-delete.js')).personsBulkDeleteCommand() },
  { name: 'set-prop', load: async () => (await import('./set-prop.js')).personsSetPropCommand() },
  { name: 'unset-prop', load: async () => (await import('./unset-prop.js')).personsUnsetPropCommand() },
  { name: 'delete-events', load: async () => (await import('./delete-events.js')).personsDeleteEventsCommand() },
  { name: 'delete-recordings', load: async () => (await import('./delete-recordings.js')).personsDeleteRecordingsCommand() },
  { name: 'split', load: async () => (await import('./split.js')).personsSplitCommand() },
  { name: 'activity', load: async () => (await import('./activity.js')).personsActivityCommand() },
  { name: 'bulk-update', load: async () => (await import('./bulk-update.js')).personsBulkUpdateCommand() },
  { name: 'erasure-status', load: async () => (await import('./erasure-status.js')).personsErasureStatusCommand() },
  { name: 'deletion-status', load: async () => (await import('./deletion-status.js')).personsDeletionStatusCommand() },
  { name: 'query', load: async () => (await import('./query.js')).personsQueryCommand() },
  { name: 'cohorts', load: async () => (await import('./cohorts.js')).personsCohortsCommand() },
  { name: 'timeline', load: async () => (await import('./timeline.js')).personsTimelineCommand() },
  { name: 'funnel', load: async () => (await import('./funnel.js')).personsFunnelCommand() },
  { name: 'funnel-correlation', load: async () => (await import('./funnel-correlation.js')).personsFunnelCorrelationCommand() },
  { name: 'lifecycle', load: async () => (await import('./lifecycle.js')).personsLifecycleCommand() },
  { name: 'trends', load: async () => (await import('./trends.js')).personsTrendsCommand() },
  { name: 'duplicates', load: async () => (await import('./duplicates.js')).personsDuplicatesCommand() },
  { name: 'merge', load: async () => (await import('./merge.js')).personsMergeCommand() },
  { name: 'reset-distinct-id', load: async () => (await import('./reset-distinct-id.js')).personsResetDistinctIdCommand() },
];
