// The verbs of `hogctl persons`, loaded only when the command line names this group (or the whole
// tree is wanted: completion scripts, docs), so that start-up stays fast.
import type { Command } from 'commander';
import { personsListCommand } from './list.js';
import { personsGetCommand } from './get.js';
import { personsUpdateCommand } from './update.js';
import { personsDeleteCommand } from './delete.js';
import { personsBulkDeleteCommand } from './bulk-delete.js';
import { personsSetPropCommand } from './set-prop.js';
import { personsUnsetPropCommand } from './unset-prop.js';
import { personsDeleteEventsCommand } from './delete-events.js';
import { personsDeleteRecordingsCommand } from './delete-recordings.js';
import { personsSplitCommand } from './split.js';
import { personsActivityCommand } from './activity.js';
import { personsDeletionStatusCommand } from './deletion-status.js';
import { personsQueryCommand } from './query.js';
import { personsCohortsCommand } from './cohorts.js';
import { personsTimelineCommand } from './timeline.js';
import { personsFunnelCommand } from './funnel.js';
import { personsFunnelCorrelationCommand } from './funnel-correlation.js';
import { personsLifecycleCommand } from './lifecycle.js';
import { personsResetDistinctIdCommand } from './reset-distinct-id.js';

export function personsVerbs(): Command[] {
  return [
    personsListCommand(),
    personsGetCommand(),
    personsUpdateCommand(),
    personsDeleteCommand(),
    personsBulkDeleteCommand(),
    personsSetPropCommand(),
    personsUnsetPropCommand(),
    personsDeleteEventsCommand(),
    personsDeleteRecordingsCommand(),
    personsSplitCommand(),
    personsActivityCommand(),
    personsDeletionStatusCommand(),
    personsQueryCommand(),
    personsCohortsCommand(),
    personsTimelineCommand(),
    personsFunnelCommand(),
    personsFunnelCorrelationCommand(),
    personsLifecycleCommand(),
    personsResetDistinctIdCommand(),
  ];
}
