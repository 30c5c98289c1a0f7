import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { personName } from '../../cli/names.js';
import { distinctIdOption, emailOption, ID_ARGUMENT, personTarget, resolvePersonId } from './shared/person-target.js';
import { prepareReport } from './shared/report.js';
import { checkPropertyKey } from './shared/property-key.js';
import { unconfirmed, checkPerson } from './shared/unconfirmed.js';
import * as api from '../../api/person-actions.js';

export interface PersonsUnsetPropOptions {
  email?: string;
  distinctId?: string;
}

export function personsUnsetPropCommand(): Command {
  return new Command('unset-prop')
    .summary('remove one property from a person')
    .description(
      'Remove one property from a person (delete_property, a $unset). Keys starting with $ work; quote them so the shell leaves them alone. ' +
        'PostHog applies the change asynchronously, so a read right after may still show the property.',
    )
    .usage('[options] (<id> | --distinct-id <id>) <key>')
    .argument('[id]', ID_ARGUMENT)
    .argument('[key]', 'the property key')
    .addOption(distinctIdOption())
    .addOption(emailOption())
    .addHelpText('after', examples('hogctl persons unset-prop 42 plan', "hogctl persons unset-prop 42 '$browser'"))
    .action(withContext(personsUnsetPropRun));
}

export async function personsUnsetPropRun(
  ctx: Context,
  options: PersonsUnsetPropOptions,
  ...positionals: (string | undefined)[]
): Promise<void> {
  const target = personTarget('unset-prop', options, positionals, ['key']);
  const [key] = target.rest;
  checkPropertyKey(key);
  const report = await prepareReport(ctx, ['person', 'unset', 'status']);
  const projectId = await ctx.projectId();
  const client = await ctx.api();
  const id = await resolvePersonId(ctx, target, client);
  const status = await unconfirmed(
    `the removal of ${key} from ${personName({ ...target, id })}`,
    `${checkPerson(id)}, or run the command again: removing it twice is harmless`,
    () => api.deleteProperty(client, projectId, id, key),
  );
  await report({ person: id, unset: key, status }, `removal of ${key} from ${personName({ ...target, id })} accepted`, [
    'PostHog applies it asynchronously: reads may show the property for a few seconds.',
  ]);
}
