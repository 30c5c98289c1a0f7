import { Command } from 'commander';
import type { Context } from '../../context.js';
import { ApiError, NotFoundError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { addPeopleOptions, type PeopleOptions } from './shared/insight-options.js';
import { buildParams, printPeople, parseFunnelStep, readParamsFile } from './shared/insight-run.js';

export interface PersonsFunnelCorrelationOptions extends PeopleOptions {
  funnelStep?: string;
}

export function personsFunnelCorrelationCommand(): Command {
  const command = new Command('funnel-correlation')
    .summary('list the persons behind a funnel correlation')
    .description(
      'List the persons behind a funnel correlation result (/persons/funnel/correlation/), e.g. those who converted and did a given event. ' +
        'The newest PostHog servers no longer offer this endpoint; older ones refuse personal API keys for it, so sign in with `hogctl auth login` first.',
    )
    .option('--funnel-step <n>', 'the funnel step the correlation is computed for');
  return addPeopleOptions(command, true)
    .addHelpText(
      'after',
      examples(
        'hogctl persons funnel-correlation --events \'[{"id": "$pageview"}, {"id": "signed_up"}]\' --param funnel_correlation_person_converted=TRUE --param funnel_correlation_person_entity=\'{"id": "clicked_pricing", "type": "events"}\'',
        'hogctl persons funnel-correlation --post --params @correlation.json --all -o ndjson',
      ),
    )
    .action(withContext(personsFunnelCorrelationRun));
}

export async function personsFunnelCorrelationRun(ctx: Context, options: PersonsFunnelCorrelationOptions): Promise<void> {
  const params = buildParams(await readParamsFile(ctx, options), { funnel_step: parseFunnelStep(options.funnelStep) });
  try {
    await printPeople(ctx, 'funnel/correlation/', params, options);
  } catch (error) {
    // The newest servers removed the endpoint (an empty EnterprisePersonViewSet); a missing
    // project is a 404 too, and keeps its own message.
    if (error instanceof ApiError && error.status === 404 && !/project/i.test(error.server.detail ?? '')) {
      throw new NotFoundError(
        'this server no longer offers funnel correlation persons: /persons/funnel/correlation/ answered 404',
        'newer PostHog versions removed the endpoint; open the correlation analysis of the funnel insight in the PostHog app instead',
      );
    }
    throw error;
  }
}
