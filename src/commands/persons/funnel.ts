import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { ACTORS_PAGING, addActorsOptions, addPeopleOptions, type ActorsOptions, type PeopleOptions } from './shared/insight-options.js';
import { buildParams, printPeople, parseFunnelStep, readParamsFile } from './shared/insight-run.js';

export interface PersonsFunnelOptions extends PeopleOptions, ActorsOptions {
  funnelStep?: string;
}

export function personsFunnelCommand(): Command {
  const command = new Command('funnel')
    .summary('list the persons at a step of a funnel')
    .description(
      'List the persons who reached a step of a funnel (--funnel-step 2), or dropped off before it (--funnel-step -2). ' +
        'With a personal API key they come from the query endpoint (a FunnelsActorsQuery, which needs query:read); ' +
        'with only a signed-in session (`hogctl auth login`), or --legacy, from the legacy /persons/funnel/ list, which refuses keys.\n\n' +
        ACTORS_PAGING,
    )
    .option('--funnel-step <n>', 'the step: n for persons who completed step n, -n for those who dropped off at step n')
    .option('--legacy', 'use the legacy /persons/funnel/ list (needs `hogctl auth login`)');
  return addActorsOptions(addPeopleOptions(command, true))
    .addHelpText(
      'after',
      examples(
        'hogctl persons funnel --events \'[{"id": "$pageview", "order": 0}, {"id": "signed_up", "order": 1}]\' --funnel-step 2',
        'hogctl persons funnel --post --params @funnel-filter.json',
        'hogctl persons funnel --params \'{"events": [{"id": "$pageview"}, {"id": "paid"}]}\' --funnel-step -2 --all -o csv',
        'hogctl persons funnel --events \'[{"id": "$pageview"}, {"id": "signed_up"}]\' --all --offset 49999 --max-wait 2h -o csv >> funnel.csv',
      ),
    )
    .action(withContext(personsFunnelRun));
}

export async function personsFunnelRun(ctx: Context, options: PersonsFunnelOptions): Promise<void> {
  const params = buildParams(await readParamsFile(ctx, options), { funnel_step: parseFunnelStep(options.funnelStep) });
  await printPeople(ctx, 'funnel/', params, options, 'funnel');
}
