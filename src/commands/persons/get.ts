import { Command } from 'commander';
import * as api from '../../api/persons.js';
import type { Context } from '../../context.js';
import { writeRecord } from '../../io/output.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { distinctIdOption, checkTarget, personTarget, resolvePersonId } from './shared/person-target.js';

export interface PersonsGetOptions {
  distinctId?: string;
}

export function personsGetCommand(): Command {
  return new Command('get')
    .summary('show one person')
    .description('Show one person by integer id or UUID, or look one up by distinct id.')
    .argument('[id]', 'the integer id or the UUID of the person')
    .addOption(distinctIdOption())
    .addHelpText(
      'after',
      examples('hogctl persons get 01900000-aaaa-7bbb-8ccc-000000000001', 'hogctl persons get --distinct-id user-881 -o json'),
    )
    .action(withContext(personsGetRun));
}

export async function personsGetRun(ctx: Context, options: PersonsGetOptions, id?: string): Promise<void> {
  const target = personTarget('get', options.distinctId, [id]);
  await checkTarget(target);
  // Settings and client load at once. A missing project is still reported before a missing key:
  // both wait for the settings, and projectId() asks for them first.
  const [output, projectId, client] = await Promise.all([ctx.output(), ctx.projectId(), ctx.api()]);
  const person = await api.getPerson(client, projectId, await resolvePersonId(ctx, target, client));
  const record = person as unknown as Record<string, unknown>;
  const first = ['id', 'uuid', 'name', 'distinct_ids', 'created_at'];
  // As a record: everything the person has, the properties last and one per line.
  const recordKeys = [...first, ...Object.keys(record).filter((k) => !first.includes(k) && k !== 'properties'), 'properties'];
  await writeRecord(output, record, { columns: first, recordKeys, fields: api.PERSON_FIELDS, openObjects: ['properties'] });
}
