import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { ACTORS_PAGING, addActorsOptions, addPeopleOptions, type ActorsOptions, type PeopleOptions } from './shared/insight-options.js';
import { buildParams, printPeople, readParamsFile } from './shared/insight-run.js';

export interface PersonsTrendsOptions extends PeopleOptions, ActorsOptions {
  day?: string;
  series?: string;
}

export function personsTrendsCommand(): Command {
  const command = new Command('trends')
    .summary('list the persons behind one point of a trends insight')
    .description(
      'List the persons a trends insight counts on one day (--day) for one of its series (--series, from 0). ' +
        'With a personal API key they come from the query endpoint (an InsightActorsQuery over a TrendsQuery, which needs query:read); ' +
        'with only a signed-in session (`hogctl auth login`), or --legacy, from the legacy /persons/trends/ list, which refuses keys.\n\n' +
        ACTORS_PAGING,
    )
    .option('--day <date>', 'the day of the point, e.g. 2025-03-01 (required)')
    .option('--series <n>', 'the series of the insight, counted from 0 (default 0)')
    .option('--legacy', 'use the legacy /persons/trends/ list (needs `hogctl auth login`)');
  return addActorsOptions(addPeopleOptions(command, false))
    .addHelpText(
      'after',
      examples(
        'hogctl persons trends --events \'[{"id": "$pageview"}]\' --day 2025-03-01',
        'hogctl persons trends --events \'[{"id": "$pageview"}, {"id": "signed_up"}]\' --series 1 --day 2025-03-01 --all -o csv',
      ),
    )
    .action(withContext(personsTrendsRun));
}

export async function personsTrendsRun(ctx: Context, options: PersonsTrendsOptions): Promise<void> {
  if (options.day === undefined)
    throw new UsageError('missing --day', 'e.g. hogctl persons trends --events \'[{"id": "$pageview"}]\' --day 2025-03-01');
  if (!/^\d{4}-\d{2}-\d{2}/.test(options.day) || Number.isNaN(Date.parse(options.day.slice(0, 10))))
    throw new UsageError(`invalid --day "${options.day}": expected a date such as 2025-03-01`);
  if (options.series !== undefined && !/^\d+$/.test(options.series.trim()))
    throw new UsageError(`invalid --series "${options.series}": expected 0, 1, ...`);
  const series = options.series === undefined ? undefined : Number(options.series);
  // The actors query takes the point as `day` and `series`. The legacy list names it its own way
  // (the entity and a one-day date range): give those with --param when using --legacy.
  const params = buildParams(await readParamsFile(ctx, options), { day: options.day, series });
  await printPeople(ctx, 'trends/', params, options, 'trends');
}
