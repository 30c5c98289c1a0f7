import { Command } from 'commander';
import type { Context } from '../../context.js';
import { ApiError, NotFoundError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { distinctIdOption, emailOption, ID_ARGUMENT, personTarget, resolvePersonId } from './shared/person-target.js';
import { addParamOptions, type InsightParamOptions } from './shared/insight-options.js';
import { RecordWriter } from '../../io/output.js';
import { buildParams, readParamsFile } from './shared/insight-run.js';
import * as insights from '../../api/person-insights.js';
import { counted } from '../../io/counts.js';

export interface PersonsTimelineOptions extends InsightParamOptions {
  breakdown?: string;
  distinctId?: string;
  email?: string;
}

export function personsTimelineCommand(): Command {
  const command = new Command('timeline')
    .summary("show how a person's properties changed over time")
    .description(
      "Show the points at which a person's properties changed (GET /persons/{id}/properties_timeline/), for the events and date range of an insight. " +
        'The server refuses personal API keys here: sign in with `hogctl auth login` first.',
    )
    .argument('[id]', ID_ARGUMENT)
    .addOption(distinctIdOption())
    .addOption(emailOption())
    .option('--breakdown <property>', 'the property the insight breaks down by (one of the crucial property keys)');
  return addParamOptions(command)
    .addHelpText(
      'after',
      examples(
        'hogctl persons timeline 42 --date-from 2025-01-01 --date-to 2025-03-31',
        'hogctl persons timeline 42 --events \'[{"id": "$pageview"}]\' --breakdown plan -o json',
        'hogctl persons timeline 42 --param display=ActionsLineGraph --param interval=week',
      ),
    )
    .action(withContext(personsTimelineRun));
}

export async function personsTimelineRun(ctx: Context, options: PersonsTimelineOptions, given?: string): Promise<void> {
  const target = personTarget('timeline', options, [given]);
  const params = buildParams(await readParamsFile(ctx, options), { breakdown: options.breakdown });
  const output = await ctx.output();
  const projectId = await ctx.projectId();
  const fields = ['timestamp', 'relevant_event_count', 'properties'];
  const writer = new RecordWriter(output, { columns: fields, fields, openObjects: ['properties'] });
  const client = await ctx.api({ auth: 'prefer-session' });
  const personId = await resolvePersonId(ctx, target, client);
  let timeline;
  try {
    timeline = await insights.propertiesTimeline(client, projectId, personId, params);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && !/project/i.test(error.server.detail ?? '')) {
      throw new NotFoundError(
        `person ${personId} not found in project ${projectId}`,
        'check the id with `hogctl persons list`, and the project with --project',
      );
    }
    throw error;
  }
  await writer.writePage((Array.isArray(timeline?.points) ? timeline.points : []).map((p) => ({ ...p })));
  await writer.end();
  const keys = timeline?.crucial_property_keys ?? [];
  ctx.info(
    `${counted(writer.count, 'point')} from ${timeline?.effective_date_from ?? '?'} to ${timeline?.effective_date_to ?? '?'}` +
      (keys.length ? `; crucial properties: ${keys.join(', ')}` : ''),
  );
}
