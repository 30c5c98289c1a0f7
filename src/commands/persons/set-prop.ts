import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { personName } from '../../cli/names.js';
import { distinctIdOption, emailOption, ID_ARGUMENT, personTarget, resolvePersonId } from './shared/person-target.js';
import { parseSetValue } from '../../api/set-value.js';
import { prepareReport } from './shared/report.js';
import { checkPropertyKey } from './shared/property-key.js';
import { unconfirmed, checkPerson } from './shared/unconfirmed.js';
import * as api from '../../api/person-actions.js';

export interface PersonsSetPropOptions {
  email?: string;
  distinctId?: string;
}

export function personsSetPropCommand(): Command {
  return new Command('set-prop')
    .summary('set one property on a person')
    .description(
      'Set one property on a person (update_property). The value is JSON when it parses as JSON (30, true, null, {"a": 1}), otherwise text; ' +
        'quote JSON to force text (\'"42"\'). Keys starting with $ work; quote them so the shell leaves them alone. ' +
        'PostHog applies the change asynchronously, so a read right after may still show the old value.',
    )
    .usage('[options] (<id> | --distinct-id <id>) <key> <value>')
    .argument('[id]', ID_ARGUMENT)
    .argument('[key]', 'the property key')
    .argument('[value]', 'the value (use -- before a value that starts with -)')
    .addOption(distinctIdOption())
    .addOption(emailOption())
    .addHelpText(
      'after',
      examples(
        'hogctl persons set-prop 42 plan enterprise',
        "hogctl persons set-prop 42 '$browser' Firefox",
        'hogctl persons set-prop 42 tags \'["beta", "vip"]\'',
        'hogctl persons set-prop 42 balance -- -5',
      ),
    )
    .action(withContext(personsSetPropRun));
}

export async function personsSetPropRun(
  ctx: Context,
  options: PersonsSetPropOptions,
  ...positionals: (string | undefined)[]
): Promise<void> {
  const target = personTarget('set-prop', options, positionals, ['key', 'value']);
  const [key, raw] = target.rest;
  checkPropertyKey(key);
  const value = parseSetValue(raw);
  const report = await prepareReport(ctx, ['person', 'key', 'value', 'status'], ['value']);
  const projectId = await ctx.projectId();
  const client = await ctx.api();
  const id = await resolvePersonId(ctx, target, client);
  const status = await unconfirmed(
    `setting ${key} on ${personName({ ...target, id })}`,
    `${checkPerson(id)}, or run the command again: setting the same value twice is harmless`,
    () => api.updateProperty(client, projectId, id, key, value),
  );
  await report({ person: id, key, value, status }, `${key} = ${JSON.stringify(value)} on ${personName({ ...target, id })} accepted`, [
    'PostHog applies it asynchronously: reads may show the old value for a few seconds.',
  ]);
}
