import { Command } from 'commander';
import * as api from '../../api/persons.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { distinctIdOption, personTarget, resolvePersonId } from './shared/person-target.js';
import { printPersonRecord } from './shared/person-columns.js';

export interface PersonsGetOptions {
  distinctId?: string;
  email?: string;
  maxWait?: string;
}

/** The longest single wait for the query limit that --email sits out by default (as
 * shared/get-by-email.ts's, which this verb loads only for --email). */
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
  if (options.email !== undefined) {
    const address = options.email.trim();
    if (address === '') throw new UsageError('--email is empty', 'e.g. `hogctl persons get --email lee@example.net`');
    if (id !== undefined || options.distinctId !== undefined)
      throw new UsageError('give one of a person id, --distinct-id and --email', `e.g. \`hogctl persons get --email ${address}\``);
    // The lookup of the erasure (HogQL, the evidence key, the query limit's wait) loads only here:
    // a person by id or distinct id needs none of it (ARCHITECTURE.md §6).
    const { getByEmail } = await import('./shared/get-by-email.js');
    return getByEmail(ctx, address, options.maxWait ?? DEFAULT_MAX_WAIT);
  }
  if (options.maxWait !== undefined) throw new UsageError('--max-wait only applies with --email');
  const target = personTarget('get', { distinctId: options.distinctId }, [id]);
  // Settings and client load at once. A missing project is still reported before a missing key:
  // both wait for the settings, and projectId() asks for them first.
  const [output, projectId, client] = await Promise.all([ctx.output(), ctx.projectId(), ctx.api()]);
  const person = await api.getPerson(client, projectId, await resolvePersonId(ctx, target, client));
  await printPersonRecord(output, person);
}
