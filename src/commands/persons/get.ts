import { Command } from 'commander';
import * as api from '../../api/persons.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { writeRecord } from '../../io/output.js';
import { examples, withContext } from '../with-context.js';

export interface PersonsGetOptions {
  distinctId?: string;
}

export function personsGetCommand(): Command {
  return new Command('get')
    .summary('show one person')
    .description('Show one person by integer id or UUID, or look one up by distinct id.')
    .argument('[id]', 'the integer id or the UUID of the person')
    .option('--distinct-id <id>', 'find the person by one of their distinct ids')
    .addHelpText('after', examples('hogctl persons get 01900000-aaaa-7bbb-8ccc-000000000001', 'hogctl persons get --distinct-id user-881 -o json'))
    .action(withContext(personsGetRun));
}

export async function personsGetRun(ctx: Context, options: PersonsGetOptions, id?: string): Promise<void> {
  if ((id === undefined) === (options.distinctId === undefined)) {
    throw new UsageError('give either a person id or --distinct-id', 'e.g. `hogctl persons get 42` or `hogctl persons get --distinct-id user-881`');
  }
  if (id !== undefined) api.checkPersonId(id);
  // Settings and client load at once. A missing project is still reported before a missing key:
  // both wait for the settings, and projectId() asks for them first.
  const [output, projectId, client] = await Promise.all([
    ctx.output(),
    ctx.projectId(),
    ctx.api(),
  ]);
  const uuid = id ?? (await api.findByDistinctId(client, projectId, options.distinctId as string)).uuid;
  const person = await api.getPerson(client, projectId, uuid);
  const record = person as unknown as Record<string, unknown>;
  const first = ['id', 'uuid', 'name', 'distinct_ids', 'created_at'];
  // As a record: everything the person has, the properties last and one per line.
  const recordKeys = [...first, ...Object.keys(record).filter((k) => !first.includes(k) && k !== 'properties'), 'properties'];
  await writeRecord(output, record, { columns: first, recordKeys, fields: api.PERSON_FIELDS, openObjects: ['properties'] });
}
