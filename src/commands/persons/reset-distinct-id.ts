import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { prepareReport } from './shared/report.js';
import * as api from '../../api/person-actions.js';

export type PersonsResetDistinctIdOptions = Record<string, never>;

export function personsResetDistinctIdCommand(): Command {
  return new Command('reset-distinct-id')
    .summary("let a deleted person's distinct id be used again")
    .description(
      'After a person is deleted, PostHog blocks their distinct ids: new events with them create no person. ' +
        'This lifts the block for one distinct id (reset_person_distinct_id), so that the next event with it creates a new person.',
    )
    .argument('<distinct-id>', 'the distinct id to unblock')
    .addHelpText('after', examples('hogctl persons reset-distinct-id user-881'))
    .action(withContext(personsResetDistinctIdRun));
}

export async function personsResetDistinctIdRun(ctx: Context, _options: PersonsResetDistinctIdOptions, distinctId: string): Promise<void> {
  if (distinctId.trim() === '') throw new UsageError('the distinct id is empty');
  const report = await prepareReport(ctx, ['distinct_id', 'status']);
  const projectId = await ctx.projectId();
  const status = await api.resetPersonDistinctId(await ctx.api(), projectId, distinctId);
  await report({ distinct_id: distinctId, status }, `distinct id ${distinctId} may be used again`);
}
