import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, withContext } from '../with-context.js';
import { addPeopleOptions, type PeopleOptions } from './insight-options.js';

export interface PersonsFunnelOptions extends PeopleOptions {
  funnelStep?: string;
}

export function personsFunnelCommand(): Command {
  const command = new Command('funnel')
    .summary('list the persons at a step of a funnel')
    .description(
      'List the persons who reached a step of a funnel (--funnel-step 2), or dropped off before it (--funnel-step -2), through the legacy /persons/funnel/ endpoint. ' +
        'The server refuses personal API keys here: sign in with `hogctl auth login` first.',
    )
    .option('--funnel-step <n>', 'the step: n for persons who completed step n, -n for those who dropped off at step n');
  return addPeopleOptions(command, true)
    .addHelpText(
      'after',
      examples(
        'hogctl persons funnel --events \'[{"id": "$pageview", "order": 0}, {"id": "signed_up", "order": 1}]\' --funnel-step 2',
        'hogctl persons funnel --post --params @funnel-filter.json',
        'hogctl persons funnel --params \'{"events": [{"id": "$pageview"}, {"id": "paid"}]}\' --funnel-step -2 --all -o csv',
      ),
    )
    .action(withContext(personsFunnelRun));
}

export async function personsFunnelRun(ctx: Context, options: PersonsFunnelOptions): Promise<void> {
  const { buildParams, printPeople, parseFunnelStep, readParamsFile } = await import('./insight-run.js');
  const params = buildParams(await readParamsFile(ctx, options), { funnel_step: parseFunnelStep(options.funnelStep) });
  await printPeople(ctx, 'funnel/', params, options);
}
