import { Command } from 'commander';
import type { Context } from '../../context.js';
import { ApiError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { personName } from '../../cli/names.js';
import { distinctIdOption, emailOption, ID_ARGUMENT, personTarget, resolvePersonId } from './shared/person-target.js';
import { RecordWriter } from '../../io/output.js';
import * as api from '../../api/persons.js';
import * as insights from '../../api/person-insights.js';

export interface PersonsCohortsOptions {
  email?: string;
  distinctId?: string;
}

export function personsCohortsCommand(): Command {
  return new Command('cohorts')
    .summary('list the cohorts a person belongs to')
    .description(
      "List the cohorts that hold a person, with each cohort's size. The server looks the cohorts up in your user's current project; the API key needs the person:read and cohort:read scopes.",
    )
    .argument('[id]', ID_ARGUMENT)
    .addOption(distinctIdOption())
    .addOption(emailOption())
    .addHelpText('after', examples('hogctl persons cohorts 42', 'hogctl persons cohorts 01900000-aaaa-7bbb-8ccc-000000000001 -o json'))
    .action(withContext(personsCohortsRun));
}

export async function personsCohortsRun(ctx: Context, options: PersonsCohortsOptions, given?: string): Promise<void> {
  const target = personTarget('cohorts', options, [given]);
  const output = await ctx.output();
  const projectId = await ctx.projectId();
  // Older servers answer full cohort objects; their fields are valid for --fields too.
  const writer = new RecordWriter(output, {
    columns: ['id', 'name', 'count'],
    fields: [
      'id',
      'name',
      'count',
      'description',
      'created_at',
      'is_static',
      'filters',
      'groups',
      'deleted',
      'is_calculating',
      'last_calculation',
      'errors_calculating',
      'created_by',
    ],
  });
  const client = await ctx.api();
  const personId = await resolvePersonId(ctx, target, client);
  let cohorts;
  try {
    cohorts = await insights.personCohorts(client, projectId, personId);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    // An unknown person is a plain 500 on the server (Person.DoesNotExist is not an API error):
    // ask for the person to tell "not found" from a real failure.
    if (error.status === 500) await api.getPerson(client, projectId, personId);
    if (error.status === 400 && /could not retrieve team/i.test(error.server.detail ?? '')) {
      throw new ApiError(
        error.message,
        error.status,
        error.server,
        "the server looks cohorts up in your user's current project, and your user has none: open a project in the PostHog app once, then try again",
        error.exitCode,
      );
    }
    throw error;
  }
  await writer.writePage(cohorts.map((c) => ({ ...c })));
  await writer.end();
  if (writer.count === 0) ctx.info(`${personName({ ...target, id: personId })} is in no cohort of your current project`);
}
