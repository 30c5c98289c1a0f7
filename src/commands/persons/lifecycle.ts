import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { ACTORS_PAGING, addActorsOptions, addPeopleOptions, type ActorsOptions, type PeopleOptions } from './shared/insight-options.js';
import { buildParams, printPeople, readParamsFile } from './shared/insight-run.js';

export interface PersonsLifecycleOptions extends PeopleOptions, ActorsOptions {
  targetDate?: string;
  lifecycleType?: string;
}

export const LIFECYCLE_TYPES = ['new', 'returning', 'resurrecting', 'dormant'];

export function personsLifecycleCommand(): Command {
  const command = new Command('lifecycle')
    .summary('list the persons of one lifecycle bucket on one date')
    .description(
      'List the persons a lifecycle insight counts as new, returning, resurrecting or dormant on a date. ' +
        'With a personal API key they come from the query endpoint (an InsightActorsQuery over a LifecycleQuery, which needs query:read); ' +
        'with only a signed-in session (`hogctl auth login`), or --legacy, from the legacy /persons/lifecycle/ list, which refuses keys.\n\n' +
        ACTORS_PAGING,
    )
    .option('--target-date <date>', 'the date of the bucket, e.g. 2025-03-01 (required)')
    .option('--lifecycle-type <type>', `the bucket: ${LIFECYCLE_TYPES.join(', ')} (required)`)
    .option('--legacy', 'use the legacy /persons/lifecycle/ list (needs `hogctl auth login`)');
  return addActorsOptions(addPeopleOptions(command, false))
    .addHelpText(
      'after',
      examples(
        'hogctl persons lifecycle --target-date 2025-03-01 --lifecycle-type new',
        'hogctl persons lifecycle --target-date 2025-03-01 --lifecycle-type dormant --events \'[{"id": "$pageview"}]\' --param interval=week --all -o csv',
      ),
    )
    .action(withContext(personsLifecycleRun));
}

export async function personsLifecycleRun(ctx: Context, options: PersonsLifecycleOptions): Promise<void> {
  const params = buildParams(await readParamsFile(ctx, options), {
    target_date: options.targetDate,
    lifecycle_type: options.lifecycleType,
  });
  const target = params.target_date;
  if (target === undefined || target === null || target === '') {
    throw new UsageError('missing --target-date', 'e.g. hogctl persons lifecycle --target-date 2025-03-01 --lifecycle-type new');
  }
  if (
    typeof target !== 'string' ||
    !/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(target) ||
    Number.isNaN(Date.parse(target.slice(0, 10)))
  ) {
    throw new UsageError(`invalid --target-date "${String(target)}": expected a date such as 2025-03-01`);
  }
  const type = params.lifecycle_type;
  if (type === undefined || type === null || type === '') {
    throw new UsageError('missing --lifecycle-type', `give one of ${LIFECYCLE_TYPES.join(', ')}`);
  }
  if (typeof type !== 'string' || !LIFECYCLE_TYPES.includes(type)) {
    throw new UsageError(`invalid --lifecycle-type "${String(type)}": expected one of ${LIFECYCLE_TYPES.join(', ')}`);
  }
  await printPeople(ctx, 'lifecycle/', params, options, 'lifecycle');
}
