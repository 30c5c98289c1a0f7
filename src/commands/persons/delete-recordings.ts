import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { personName } from '../../cli/names.js';
import { distinctIdOption, emailOption, ID_ARGUMENT, personTarget, resolvePerson } from './shared/person-target.js';
import { deleteOnePerson } from '../../api/delete-one.js';
import { unconfirmed } from './shared/unconfirmed.js';
import { confirmPersonAction } from './shared/confirm-person.js';
import { prepareReport } from './shared/report.js';

export interface PersonsDeleteRecordingsOptions {
  email?: string;
  distinctId?: string;
  yes?: boolean;
}

export function personsDeleteRecordingsCommand(): Command {
  return new Command('delete-recordings')
    .summary("delete all of a person's session recordings")
    .description(
      "Start the deletion of all of a person's session recordings, keeping the person. PostHog runs it asynchronously. " +
        'Asks for confirmation on a terminal; pass --yes in scripts.',
    )
    .argument('[id]', ID_ARGUMENT)
    .addOption(distinctIdOption())
    .addOption(emailOption())
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', examples('hogctl persons delete-recordings 42', 'hogctl persons delete-recordings 42 --yes -o json'))
    .action(withContext(personsDeleteRecordingsRun));
}

export async function personsDeleteRecordingsRun(ctx: Context, options: PersonsDeleteRecordingsOptions, given?: string): Promise<void> {
  const target = personTarget('delete-recordings', options, [given]);
  const report = await prepareReport(ctx, ['person', 'recordings_deletion_started', 'status']);
  const resolved = await resolvePerson(ctx, target);
  const { id } = resolved;
  const shown = await confirmPersonAction(ctx, {
    yes: options.yes,
    person: resolved,
    action: `delete all session recordings of ${personName({ ...target, id: resolved.id, uuid: resolved.listed?.uuid })}`,
    consequences: ['will delete all their session recordings; the person stays'],
    question: 'Delete all recordings of this person?',
  });
  const name = personName({ ...target, id, uuid: shown?.uuid ?? resolved.listed?.uuid });
  const projectId = await ctx.projectId();
  const client = await ctx.api();
  // bulk_delete with keep_person: the person stays, only their recordings go.
  const { status } = await unconfirmed(
    `the deletion of the recordings of ${name}`,
    'run the command again to make sure (starting it twice is harmless)',
    () => deleteOnePerson(client, projectId, { id, uuid: shown?.uuid ?? resolved.listed?.uuid }, { what: 'recordings' }),
  );
  await report({ person: id, recordings_deletion_started: true, status }, `started the deletion of the recordings of ${name}`, [
    'It runs asynchronously; the recordings disappear once it has finished.',
  ]);
}
