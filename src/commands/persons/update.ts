import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { collect } from '../../cli/flags.js';
import { personName } from '../../cli/names.js';
import { distinctIdOption, emailOption, ID_ARGUMENT, personTarget, resolvePersonId } from './shared/person-target.js';
import { parseAssignments } from '../../api/set-value.js';
import { prepareReport } from './shared/report.js';
import { unconfirmed, checkPerson } from './shared/unconfirmed.js';
import * as api from '../../api/person-actions.js';

export interface PersonsUpdateOptions {
  email?: string;
  distinctId?: string;
  set?: string[];
  properties?: string;
}

export function personsUpdateCommand(): Command {
  return new Command('update')
    .summary("set a person's properties")
    .description(
      'Set properties on a person ($set: the listed keys change, nothing is removed; use `persons unset-prop` to remove one). ' +
        'Values are JSON when they parse as JSON (30, true, null, ["a"]), otherwise text; quote JSON to force text (\'"42"\'). ' +
        'PostHog accepts the change (202) and applies it asynchronously, so a read right after may still show the old values.',
    )
    .argument('[id]', ID_ARGUMENT)
    .addOption(distinctIdOption())
    .addOption(emailOption())
    .option('--set <key=value>', 'a property to set (repeatable)', collect)
    .option('--properties <json>', 'a JSON object of properties to set (--set values win on the same key)')
    .addHelpText(
      'after',
      examples(
        'hogctl persons update 42 --set plan=enterprise --set seats=25',
        "hogctl persons update 01900000-aaaa-7bbb-8ccc-000000000001 --set '$browser=Firefox' --set vip=true",
        'hogctl persons update 42 --properties \'{"company": {"name": "Acme", "size": 50}}\'',
      ),
    )
    .action(withContext(personsUpdateRun));
}

export async function personsUpdateRun(ctx: Context, options: PersonsUpdateOptions, given?: string): Promise<void> {
  const target = personTarget('update', options, [given]);
  const properties = { ...parseObject(options.properties), ...parseAssignments(options.set ?? []) };
  if (Object.keys(properties).length === 0) {
    throw new UsageError(
      'nothing to update: give --set key=value (repeatable) or --properties <json>',
      'e.g. `hogctl persons update 42 --set plan=team`',
    );
  }
  const report = await prepareReport(ctx, ['person', 'properties', 'status'], ['properties']);
  const projectId = await ctx.projectId();
  const client = await ctx.api();
  const id = await resolvePersonId(ctx, target, client);
  const status = await unconfirmed(
    `the update of ${personName({ ...target, id })}`,
    `${checkPerson(id)}, or run the command again: setting the same values twice is harmless`,
    () => api.updatePerson(client, projectId, id, properties),
  );
  await report({ person: id, properties, status }, `update of ${personName({ ...target, id })} accepted`, [
    'PostHog applies it asynchronously: reads may show the old values for a few seconds.',
  ]);
}

function parseObject(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new UsageError(
      `--properties is not valid JSON: ${(error as Error).message}`,
      'give a JSON object, e.g. --properties \'{"plan": "team"}\'',
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError('--properties must be a JSON object', 'e.g. --properties \'{"plan": "team"}\'');
  }
  return value as Record<string, unknown>;
}
