import { Command } from 'commander';
import * as api from '../../api/persons.js';
import type { Context } from '../../context.js';
import { NotFoundError, UsageError } from '../../errors.js';
import { RecordWriter, writeRecord, type OutputSettings } from '../../io/output.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { parseDuration } from '../../cli/flags.js';
import { lowerAscii, matchEmails } from '../../bulk/identifiers.js';
import { distinctIdOption, personTarget, resolvePersonId } from './shared/person-target.js';
import { PERSON_COLUMNS } from './shared/person-columns.js';

export interface PersonsGetOptions {
  distinctId?: string;
  email?: string;
  maxWait?: string;
}

/** The longest single wait for the query limit that --email sits out by default. */
const DEFAULT_MAX_WAIT = '5m';

export function personsGetCommand(): Command {
  return new Command('get')
    .summary('show one person')
    .description(
      'Show one person by integer id or UUID, or look one up by distinct id or e-mail address.\n\n' +
        'The record names the UUID `uuid` and the integer key `id`, as the server does. ' +
        'An address is matched as an erasure (`persons bulk-delete --emails`) matches it: the whole address, ignoring the case of ASCII letters, as the email property or as a distinct id; ' +
        'when several persons have it, they are listed (an array with -o json) and counted.',
    )
    .argument('[id]', 'the integer id or the UUID of the person')
    .addOption(distinctIdOption())
    .option(
      '--email <address>',
      'find the person this address names instead, as the email property or a distinct id (ignoring the case of ASCII letters)',
    )
    .option(
      '--max-wait <duration>',
      `with --email: the longest single wait the query limit may ask for, e.g. 90s, 1h (default ${DEFAULT_MAX_WAIT})`,
    )
    .addHelpText(
      'after',
      examples(
        'hogctl persons get 01900000-aaaa-7bbb-8ccc-000000000001',
        'hogctl persons get --distinct-id user-881 -o json',
        'hogctl persons get --email user42@example.com',
      ),
    )
    .action(withContext(personsGetRun));
}

export async function personsGetRun(ctx: Context, options: PersonsGetOptions, id?: string): Promise<void> {
  if (options.email !== undefined) return getByEmail(ctx, options, id);
  if (options.maxWait !== undefined) throw new UsageError('--max-wait only applies with --email');
  const target = personTarget('get', options.distinctId, [id]);
  // Settings and client load at once. A missing project is still reported before a missing key:
  // both wait for the settings, and projectId() asks for them first.
  const [output, projectId, client] = await Promise.all([ctx.output(), ctx.projectId(), ctx.api()]);
  const person = await api.getPerson(client, projectId, await resolvePersonId(ctx, target, client));
  await printRecord(output, person);
}

/** As a record: everything the person has, under the server's names, the properties last. */
async function printRecord(output: OutputSettings, person: api.PersonRecord): Promise<void> {
  const record = person as unknown as Record<string, unknown>;
  const first = ['uuid', 'id', 'name', 'distinct_ids', 'created_at'];
  const recordKeys = [...first, ...Object.keys(record).filter((k) => !first.includes(k) && k !== 'properties'), 'properties'];
  await writeRecord(output, record, { columns: first, recordKeys, fields: api.PERSON_FIELDS, openObjects: ['properties'] });
}

/**
 * `--email`: the persons the address names (as their email property, or as a distinct id), found
 * by the lookup the erasure uses (src/bulk/identifiers.ts), so both agree on who has an address. One person prints
 * as the record; several as a list, newest first, with their number on stderr.
 */
async function getByEmail(ctx: Context, options: PersonsGetOptions, id: string | undefined): Promise<void> {
  const address = (options.email as string).trim();
  if (address === '') throw new UsageError('--email is empty', 'e.g. `hogctl persons get --email lee@example.net`');
  if (id !== undefined || options.distinctId !== undefined)
    throw new UsageError('give one of a person id, --distinct-id and --email', `e.g. \`hogctl persons get --email ${address}\``);
  const maxWaitMs = parseDuration(options.maxWait ?? DEFAULT_MAX_WAIT, '--max-wait');
  const [output, projectId, client] = await Promise.all([ctx.output(), ctx.projectId(), ctx.api()]);
  const wanted = lowerAscii(address);
  const { matches } = await matchEmails(ctx, client, projectId, [wanted], {
    maxWaitMs,
    byDistinctIds: (ids) => api.batchPersons(client, projectId, 'distinct_ids', ids, { signal: ctx.deps.signal }),
  });
  const uuids = matches.get(wanted) ?? [];
  const persons: api.PersonRecord[] = [];
  for (const uuid of uuids) {
    try {
      persons.push(await api.getPerson(client, projectId, uuid));
    } catch (error) {
      // Deleted between the lookup and the read: no longer a person with the address.
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  if (persons.length === 0) {
    throw new NotFoundError(
      `no person with the e-mail address ${address} in project ${projectId}`,
      'the whole address must match (ASCII letters in any case); `hogctl persons list --search <part of it>` finds addresses that contain a part',
    );
  }
  if (persons.length === 1) return printRecord(output, persons[0]);
  persons.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.uuid.localeCompare(a.uuid));
  const writer = new RecordWriter(output, { columns: PERSON_COLUMNS, fields: api.PERSON_FIELDS, openObjects: ['properties'] });
  await writer.writePage(persons as unknown as Record<string, unknown>[]);
  await writer.end();
  ctx.info(`${persons.length} persons have the address ${address}: give \`hogctl persons get\` one of their uuids for the whole record`);
}
