import { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples, withContext } from '../with-context.js';

export interface PersonsDeleteRecordingsOptions {
  yes?: boolean;
}

export function personsDeleteRecordingsCommand(): Command {
  return new Command('delete-recordings')
    .summary("delete all of a person's session recordings")
    .description(
      "Start the deletion of all of a person's session recordings, keeping the person. PostHog runs it asynchronously. " +
        'Asks for confirmation on a terminal; pass --yes in scripts.',
    )
    .argument('<id>', 'the integer id or the UUID of the person')
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', examples('hogctl persons delete-recordings 42', 'hogctl persons delete-recordings 42 --yes -o json'))
    .action(withContext(personsDeleteRecordingsRun));
}

export async function personsDeleteRecordingsRun(ctx: Context, options: PersonsDeleteRecordingsOptions, id: string): Promise<void> {
  const [{ checkPersonId }, api, { confirmPersonAction }, { prepareReport }] = await Promise.all([
    import('../../api/persons.js'),
    import('../../api/person-actions.js'),
    import('./confirm-person.js'),
    import('./report.js'),
  ]);
  checkPersonId(id);
  const report = await prepareReport(ctx, ['person', 'recordings_deletion_started', 'status']);
  await confirmPersonAction(ctx, {
    yes: options.yes,
    id,
    action: `delete all session recordings of person ${id}`,
    consequences: ['will delete all their session recordings; the person stays'],
    question: 'Delete all recordings of this person?',
  });
  const projectId = await ctx.projectId();
  const status = await api.deleteRecordings(await ctx.api(), projectId, id);
  await report({ person: id, recordings_deletion_started: true, status }, `started the deletion of person ${id}'s recordings (${status})`, [
    'It runs asynchronously; the recordings disappear once it has finished.',
  ]);
}
