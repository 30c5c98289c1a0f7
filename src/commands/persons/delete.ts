import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { personName } from '../../cli/names.js';
import {
  distinctIdOption,
  emailOption,
  ID_ARGUMENT,
  personTarget,
  resolvePerson,
  type PersonTarget,
  type ResolvedPerson,
} from './shared/person-target.js';
import { deleteOnePerson, type OneDeleteResult } from '../../api/delete-one.js';
import { confirmPersonAction } from './shared/confirm-person.js';
import { prepareReport, EVENTS_BATCH_NOTE, type Report } from './shared/report.js';
import { unconfirmed } from './shared/unconfirmed.js';

export interface PersonsDeleteOptions {
  email?: string;
  distinctId?: string;
  deleteEvents?: boolean;
  deleteRecordings?: boolean;
  keepPerson?: boolean;
  yes?: boolean;
}

export function personsDeleteCommand(): Command {
  return new Command('delete')
    .alias('rm')
    .summary('delete one person (and optionally their events and recordings)')
    .description(
      'Delete a person by integer id or UUID. Their distinct ids stay blocked afterwards (new events with them create no person) until `persons reset-distinct-id`. ' +
        '--delete-events queues the deletion of all their events for the weekly batch (Saturday night UTC, after the person-overrides squash); --delete-recordings starts the deletion of their recordings; ' +
        'with --keep-person only the events and recordings go. Asks for confirmation on a terminal; pass --yes in scripts.',
    )
    .argument('[id]', ID_ARGUMENT)
    .addOption(distinctIdOption())
    .addOption(emailOption())
    .option('--delete-events', 'also queue the deletion of all their events')
    .option('--delete-recordings', 'also delete their session recordings')
    .option('--keep-person', 'keep the person profile; delete only what the other flags say')
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText(
      'after',
      examples(
        'hogctl persons delete 42',
        'hogctl persons delete 01900000-aaaa-7bbb-8ccc-000000000001 --delete-events --delete-recordings --yes',
        'hogctl persons delete 42 --keep-person --delete-events -y -o json',
      ),
    )
    .action(withContext(personsDeleteRun));
}

export async function personsDeleteRun(ctx: Context, options: PersonsDeleteOptions, given?: string): Promise<void> {
  const target = personTarget('delete', options, [given]);
  if (options.keepPerson && !options.deleteEvents && !options.deleteRecordings) {
    throw new UsageError(
      '--keep-person alone deletes nothing',
      'add --delete-events and/or --delete-recordings, or drop --keep-person to delete the person',
    );
  }
  const report = await prepareReport(ctx, ['person', 'deleted', 'delete_events', 'delete_recordings', 'status']);
  const resolved = await resolvePerson(ctx, target);
  const { id } = resolved;
  const shown = await confirmDeletion(ctx, options, target, resolved);
  const uuid = shown?.uuid ?? resolved.listed?.uuid;
  const name = personName({ ...target, id, uuid });
  const projectId = await ctx.projectId();
  const client = await ctx.api();
  const flags = {
    deleteEvents: Boolean(options.deleteEvents),
    deleteRecordings: Boolean(options.deleteRecordings),
    keepPerson: Boolean(options.keepPerson),
  };
  const result = await unconfirmed(
    options.keepPerson ? `the deletion of the data of ${name}` : `the deletion of ${name}`,
    'run the command again to make sure (if it says the person is not found, it is gone)',
    () => deleteOnePerson(client, projectId, { id, uuid }, { what: 'person', flags }),
  );
  if (result.goneEarlier) await reportGoneEarlier(report, options, id, name);
  else await reportAnswer(report, options, id, name, result);
}

/** Asks before deleting (on a terminal, without --yes), naming what goes; the person as read then. */
function confirmDeletion(ctx: Context, options: PersonsDeleteOptions, target: PersonTarget, resolved: ResolvedPerson) {
  const gone = [
    ...(options.keepPerson ? [] : ['the person profile (its distinct ids stay blocked)']),
    ...(options.deleteEvents ? [`all their events (queued: ${EVENTS_BATCH_NOTE})`] : []),
    ...(options.deleteRecordings ? ['all their session recordings'] : []),
  ];
  const asked = personName({ ...target, id: resolved.id, uuid: resolved.listed?.uuid });
  return confirmPersonAction(ctx, {
    yes: options.yes,
    person: resolved,
    action: options.keepPerson ? `delete the data of ${asked}` : `delete ${asked}`,
    consequences: ['will delete:', ...gone.map((g) => `  - ${g}`)],
    question: options.keepPerson ? 'Delete this data?' : 'Delete this person?',
  });
}

/** The record the verb prints, with the status the server gave (or `gone`). */
function deletionRecord(options: PersonsDeleteOptions, id: string, status: number | 'gone') {
  return {
    person: id,
    deleted: !options.keepPerson,
    delete_events: Boolean(options.deleteEvents),
    delete_recordings: Boolean(options.deleteRecordings),
    status,
  };
}

/** A retry after a lost answer found no person: the lost attempt most likely deleted it. */
async function reportGoneEarlier(report: Report, options: PersonsDeleteOptions, id: string, name: string): Promise<void> {
  const summary = options.keepPerson
    ? `the data of ${name}: an earlier attempt's answer was lost, and the retry no longer found the person`
    : `${name} is gone: an earlier attempt's answer was lost, and the retry found no person, so that attempt most likely deleted it`;
  await report(deletionRecord(options, id, 'gone'), summary, [
    `Check with \`hogctl persons get ${id}\` (not found means deleted)${options.deleteEvents ? ' and `hogctl persons deletion-status` for the queued event deletion' : ''}.`,
  ]);
}

/** What the server answered: deleted, queued, or accepted without saying whether it found the person. */
async function reportAnswer(
  report: Report,
  options: PersonsDeleteOptions,
  id: string,
  name: string,
  result: OneDeleteResult,
): Promise<void> {
  const summary = result.via === 'bulk_delete' ? result.summary : undefined;
  // An older server's empty answer does not say whether it found the person.
  const unknown = summary === null;
  const queued = (summary?.persons_queued_for_deletion ?? 0) > 0;
  const notes = [
    ...(unknown
      ? [`The server did not say whether it found the person: check with \`hogctl persons get ${id}\` (not found means deleted).`]
      : []),
    ...(queued ? ['The server queued the deletion; the person disappears once it has run (usually within seconds).'] : []),
    ...(options.keepPerson ? ['The person profile was kept.'] : []),
    ...(options.deleteEvents
      ? [`Their events are queued for deletion: ${EVENTS_BATCH_NOTE}; follow it with \`hogctl persons deletion-status\`.`]
      : []),
    ...(options.deleteRecordings ? ['The deletion of their recordings has started and runs asynchronously.'] : []),
  ];
  const done =
    options.keepPerson || unknown
      ? `deletion of ${options.keepPerson ? 'the data of ' : ''}${name} accepted`
      : queued
        ? `queued the deletion of ${name}`
        : `deleted ${name}`;
  await report(deletionRecord(options, id, result.status), done, notes);
}
