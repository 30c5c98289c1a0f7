import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { personName } from '../../cli/names.js';
import { distinctIdOption, emailOption, ID_ARGUMENT, personTarget, resolvePerson } from './shared/person-target.js';
import { deleteOnePerson } from '../../api/delete-one.js';
import { unconfirmed } from './shared/unconfirmed.js';
import { confirmPersonAction } from './shared/confirm-person.js';
import { prepareReport, EVENTS_BATCH_NOTE } from './shared/report.js';

export interface PersonsDeleteEventsOptions {
  email?: string;
  distinctId?: string;
  yes?: boolean;
}

export function personsDeleteEventsCommand(): Command {
  return new Command('delete-events')
    .summary("queue the deletion of all of a person's events")
    .description(
      "Queue the deletion of all of a person's events, keeping the person. PostHog runs queued event deletions in a weekly batch " +
        '(Saturday night UTC, after the person-overrides squash); `hogctl persons deletion-status` shows whether it has run. Asks for confirmation on a terminal; pass --yes in scripts.',
    )
    .argument('[id]', ID_ARGUMENT)
    .addOption(distinctIdOption())
    .addOption(emailOption())
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText(
      'after',
      examples('hogctl persons delete-events 42', 'hogctl persons delete-events 01900000-aaaa-7bbb-8ccc-000000000001 --yes'),
    )
    .action(withContext(personsDeleteEventsRun));
}

export async function personsDeleteEventsRun(ctx: Context, options: PersonsDeleteEventsOptions, given?: string): Promise<void> {
  const target = personTarget('delete-events', options, [given]);
  const report = await prepareReport(ctx, ['person', 'events_queued_for_deletion', 'status']);
  const resolved = await resolvePerson(ctx, target);
  const { id } = resolved;
  const shown = await confirmPersonAction(ctx, {
    yes: options.yes,
    person: resolved,
    action: `delete all events of ${personName({ ...target, id: resolved.id, uuid: resolved.listed?.uuid })}`,
    consequences: [`will queue the deletion of all their events (${EVENTS_BATCH_NOTE}); the person stays`],
    question: 'Delete all events of this person?',
  });
  const name = personName({ ...target, id, uuid: shown?.uuid ?? resolved.listed?.uuid });
  const projectId = await ctx.projectId();
  const client = await ctx.api();
  // bulk_delete with keep_person: the person stays, only their events go.
  const { status } = await unconfirmed(
    `the deletion of the events of ${name}`,
    'run the command again to make sure (queueing it twice is harmless), and see the queue with `hogctl persons deletion-status`',
    () => deleteOnePerson(client, projectId, { id, uuid: shown?.uuid ?? resolved.listed?.uuid }, { what: 'events' }),
  );
  await report({ person: id, events_queued_for_deletion: true, status }, `queued the deletion of the events of ${name}`, [
    `${EVENTS_BATCH_NOTE}; follow it with \`hogctl persons deletion-status\`.`,
  ]);
}
