import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import type { BulkSettings } from '../../bulk/engine/settings.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { collect } from '../../cli/flags.js';
import { oneOf } from '../../cli/exclusive.js';
import { addJobFlags, jobInputOf, parseJobFlags, type InputFlagOptions, type JobFlagOptions } from './shared/job-flags.js';
import { runBulkJob, settleBulkJob } from '../../bulk/engine/job.js';
import { deleteKind, recordedFlags } from '../../bulk/kinds/delete/delete-persons.js';
import { parseProjectList } from '../../bulk/engine/projects.js';
import { readJobInput, type JobInput } from '../../bulk/input/input.js';

/** The flags as commander hands them over (the job flags' numbers still text, checked in the run). */
export type PersonsBulkDeleteOptions = JobFlagOptions &
  InputFlagOptions &
  Pick<BulkSettings, 'keepIdentifiers' | 'allProjects' | 'planOut' | 'backup'> & {
    deleteEvents?: boolean;
    deleteRecordings?: boolean;
    keepPerson?: boolean;
    sweepEvents?: boolean;
    /** --projects 1,2,3 */
    projects?: string;
  };

export function personsBulkDeleteCommand(): Command {
  const command = new Command('bulk-delete')
    .summary('delete persons by id, e-mail address or selection, in one project or all: resumable, verified, with a receipt')
    .description(
      'Delete persons at scale, e.g. for a GDPR or CCPA erasure: those listed in a file (UUIDs, integer ids, ' +
        'distinct ids, e-mail addresses, or a CSV with a column per kind), or those a selection chooses (--where, ' +
        '--cohort, --query), in one project, several (--projects) or every project the key can see (--all-projects). ' +
        'Every value is checked before anything is sent; then the persons go out in requests of at most 1000, within a ' +
        'rate budget, with retries. A journal records each request before it is sent and each answer, so an ' +
        'interrupted run continues with --resume; a receipt says what was asked, sent and deleted, project by ' +
        'project.\n\nMore in `hogctl help bulk-input` (what the input can be, and its lookup), `hogctl help erasure` ' +
        '(e-mail addresses, what the evidence keeps, the check afterwards), `hogctl help bulk-plans` (a signed plan to ' +
        'review, then apply) and `hogctl help bulk-runs` (journal, resume, lost answers, Ctrl-C, exit codes).',
    )
    .option('--file <path|->', 'the file of ids, or - for standard input')
    .option(
      '--emails <path|->',
      'a file of e-mail addresses instead: delete every person each one names, the whole address ignoring the case of ASCII letters (default CSV column: email)',
    )
    .option('--email <address>', 'an e-mail address to erase, instead of a file (repeatable)', collect)
    .option(
      '--where <key=value>',
      'select the persons with this property, as `persons list` reads it (repeatable: all must match), case-sensitive (email=Lee@x.com misses lee@x.com; --emails ignores the case of ASCII letters); an empty value is refused, has:<key> / lacks:<key> choose by whether it is set',
      collect,
    )
    .option('--cohort <id>', 'select the persons of this cohort (with --where: those of the cohort that match)')
    .option(
      '--query <hogql>',
      'select the persons this HogQL query returns; its first column is the person id, e.g. "SELECT id FROM persons WHERE …"',
    )
    .option('--projects <ids>', 'run in these projects, e.g. 1,2,3 (each is searched on its own)')
    .option('--all-projects', 'run in every project the key can see')
    .option('--plan <file>', 'apply a plan written by --dry-run --plan-out, exactly as reviewed')
    .option('--plan-out <file>', 'with --dry-run: write the resolved plan to this file for review')
    .option(
      '--backup <file>',
      'write the records of the persons (NDJSON) before the first deletion; not for erasures (hogctl help erasure says why)',
    )
    .addOption(
      new Option('--format <format>', 'how to read the file (default: from the extension or the content)').choices([
        'lines',
        'csv',
        'json',
        'ndjson',
      ]),
    )
    .option('--column <name>', 'the CSV column (or JSON field) that holds the ids')
    .option('--distinct-ids', 'the values are distinct ids, not person ids')
    .option(
      '--keep-identifiers',
      'with e-mail addresses or a mixed file: name the identifiers in clear in the journal, receipt and plan, not by a keyed hash',
    )
    .option('--delete-events', "also queue the deletion of the persons' events")
    .option('--delete-recordings', "also delete the persons' session recordings")
    .option('--keep-person', 'keep the person profiles; only delete events and recordings')
    .option(
      '--sweep-events',
      "with --delete-events, also ask PostHog to delete by query (data_deletion_requests) the events of every distinct id the erasure found, and of the addresses or distinct ids given even where they name no person, collected up to the run's start: the events PostHog's deletion by person leaves",
    );
  return addJobFlags(command, {
    dryRun: 'check the input and print the plan; send nothing',
    rate: 'requests at most per window, comma-separated; PostHog allows deletes 480 a minute and 4,800 an hour per key (a bare number is per minute, e.g. 240 or 8/s,2400/h) (default 480/min,4800/h)',
    readRate:
      "reads a minute for looking persons up, checking lost answers and verifying (default 240, PostHog Cloud's limit for reading persons with a personal key; a self-hosted PostHog without rate limits takes more)",
    noVerify: 'do not ask the server afterwards whether the persons are gone',
    skipInvalid: 'send the valid ids and list the invalid ones in the receipt, instead of stopping',
  })
    .addHelpText(
      'after',
      examples(
        'hogctl persons bulk-delete --file erasure.txt --dry-run',
        'hogctl persons bulk-delete --file erasure.txt --delete-events --delete-recordings --receipt receipt.json',
        'hogctl persons bulk-delete --file users.csv --column distinct_id --distinct-ids -y',
        'cat ids.ndjson | hogctl persons bulk-delete --file - -y -o json',
        'hogctl persons bulk-delete --file erasure.txt --resume',
        'hogctl persons bulk-delete --emails erasure-emails.txt --delete-events --delete-recordings --dry-run',
        'hogctl persons bulk-delete --email lee@example.net --email lee.old@example.org --delete-events --dry-run',
        'hogctl persons bulk-delete --emails erasure-emails.txt --all-projects --delete-events --delete-recordings -y',
        'hogctl persons bulk-delete --where plan=free --where country=DE --backup cleanup-backup.ndjson --dry-run',
        'hogctl persons bulk-delete --query "SELECT id FROM persons WHERE is_identified = 0" --dry-run',
        'hogctl persons bulk-delete --emails erasure-emails.txt --projects 1,2 --dry-run --plan-out plan.json',
        'hogctl persons bulk-delete --plan plan.json -y',
      ),
    )
    .action(withContext(personsBulkDeleteRun));
}

export async function personsBulkDeleteRun(ctx: Context, options: PersonsBulkDeleteOptions): Promise<void> {
  const { concurrency, rate, retries, maxWait, readRate, dryRun, yes, journal, resume, receipt, reference, verify, skipInvalid, ...rest } =
    options;
  const job = parseJobFlags({
    concurrency,
    rate,
    retries,
    maxWait,
    readRate,
    dryRun,
    yes,
    journal,
    resume,
    receipt,
    reference,
    verify,
    skipInvalid,
  });
  const { file, emails, email, where, cohort, query, plan, distinctIds, format, column, projects: projectList, ...others } = rest;
  const input = jobInputOf({ file, emails, email, where, cohort, query, plan, distinctIds, format, column });
  if (input === undefined)
    throw new UsageError(
      'nothing to delete: give --file <path> (ids), --emails <path> or --email <address>, a selection (--where, --cohort, --query), or --plan <file>',
    );
  const selecting = input.kind === 'selection';
  if (options.planOut !== undefined && !options.dryRun)
    throw new UsageError('--plan-out goes with --dry-run: it writes the plan instead of running it');
  if (options.plan !== undefined) {
    const own = (
      [
        ['--delete-events', options.deleteEvents],
        ['--delete-recordings', options.deleteRecordings],
        ['--keep-person', options.keepPerson],
        ['--sweep-events', options.sweepEvents],
        ['--distinct-ids', options.distinctIds],
        ['--keep-identifiers', options.keepIdentifiers],
        ['--column', options.column],
        ['--format', options.format],
        ['--plan-out', options.planOut],
      ] as const
    ).filter(([, v]) => v !== undefined && v !== false);
    if (own.length)
      throw new UsageError(
        `--plan does exactly what the plan says: drop ${own.map(([f]) => f).join(', ')}`,
        'make a new plan to change it',
      );
  }
  oneOf([
    ['--projects', projectList !== undefined],
    ['--all-projects', Boolean(options.allProjects)],
  ]);
  if ((options.allProjects || projectList !== undefined) && ctx.globals.project !== undefined)
    throw new UsageError('--project names one project; with --projects or --all-projects, drop it');
  const projects = projectList === undefined ? undefined : parseProjectList(projectList);
  if (cohort !== undefined && (options.allProjects || (projects && projects.length > 1)))
    throw new UsageError('a cohort belongs to one project: run --cohort in that project (--project), or select with --where or --query');
  if (options.keepIdentifiers && (selecting || distinctIds))
    throw new UsageError('--keep-identifiers goes with e-mail addresses (--emails, --email) or a mixed file of identifiers');
  if (options.keepPerson && !options.deleteEvents && !options.deleteRecordings) {
    throw new UsageError(
      '--keep-person without --delete-events or --delete-recordings would do nothing',
      'add --delete-events and/or --delete-recordings, or drop --keep-person',
    );
  }
  const { deleteEvents, deleteRecordings, keepPerson, sweepEvents, ...engine } = others;
  checkSweep({ sweepEvents, deleteEvents, keepPerson, verify: options.verify });
  const settled = await settleBulkJob(ctx, { ...engine, input, projects, ...job });
  // Resumed (or applying a plan), the flags recorded then stay; one given now that differs is refused.
  const then = recordedFlags(settled.recorded);
  const sweeping = Boolean(sweepEvents || settled.recorded?.sweep_events === true);
  const kind = deleteKind(
    {
      delete_events: Boolean(deleteEvents || then?.delete_events),
      delete_recordings: Boolean(deleteRecordings || then?.delete_recordings),
      keep_person: Boolean(keepPerson || then?.keep_person),
    },
    sweeping ? { identifiers: await sweptIdentifiers(ctx, input) } : undefined,
  );
  await runBulkJob(ctx, settled, kind);
}

/** The sweep goes with the person-keyed deletion of events, and runs in the verification. */
function checkSweep(o: { sweepEvents?: boolean; deleteEvents?: boolean; keepPerson?: boolean; verify?: boolean }): void {
  if (!o.sweepEvents) return;
  if (!o.deleteEvents)
    throw new UsageError('--sweep-events goes with --delete-events', "the sweep deletes what PostHog's deletion by person leaves");
  if (o.keepPerson) throw new UsageError('--sweep-events erases: drop --keep-person');
  if (o.verify === false) throw new UsageError('--sweep-events runs after the persons are checked gone: drop --no-verify');
}

/** The identifiers of the input in clear, which the sweep reaches even where they name no person. */
async function sweptIdentifiers(ctx: Context, input: JobInput): Promise<string[]> {
  if (input.kind === 'addresses') return input.addresses.map((a) => a.trim());
  if (input.kind === 'emails' || (input.kind === 'ids' && input.ids === 'distinct_ids')) {
    const read = await readJobInput(ctx, input, { skipInvalid: true });
    return [...read.list.ids];
  }
  return [];
}
