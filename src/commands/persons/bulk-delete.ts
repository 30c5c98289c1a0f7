import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import type { BulkSettings } from '../../bulk/settings.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { collect } from '../../cli/flags.js';
import { oneOf } from '../../cli/exclusive.js';
import { addJobFlags, jobInputOf, parseJobFlags, type InputFlagOptions, type JobFlagOptions } from './shared/job-flags.js';
import { runBulkJob, settleBulkJob } from '../../bulk/job.js';
import { deleteKind, recordedFlags } from '../../bulk/delete-persons.js';
import { parseProjectList } from '../../bulk/projects.js';

/** The flags as commander hands them over (the job flags' numbers still text, checked in the run). */
export type PersonsBulkDeleteOptions = JobFlagOptions &
  InputFlagOptions &
  Pick<BulkSettings, 'keepIdentifiers' | 'allProjects' | 'planOut' | 'backup'> & {
    deleteEvents?: boolean;
    deleteRecordings?: boolean;
    keepPerson?: boolean;
    /** --projects 1,2,3 */
    projects?: string;
  };

export function personsBulkDeleteCommand(): Command {
  const command = new Command('bulk-delete')
    .summary('delete persons by id, e-mail address or selection, in one project or all: resumable, verified, with a receipt')
    .description(
      'Delete persons at scale, e.g. for a GDPR or CCPA erasure: those listed in a file (UUIDs, integer ids, distinct ids, ' +
        'e-mail addresses, or a CSV with a column per kind), or those a selection chooses (--where, --cohort, --query), in ' +
        'one project, several (--projects) or every project the key can see (--all-projects). Every value is checked before ' +
        'anything is sent; then the persons go out in requests of at most 1000, within a rate budget, with retries. A journal ' +
        'records each request before it is sent and each answer, so an interrupted run continues with --resume; a receipt ' +
        'says what was asked, sent and deleted, project by project.\n\n' +
        'Input: one id per line (blank lines and # comments ignored), CSV with --column, a JSON array, or NDJSON (strings, or ' +
        'objects with --column); "-" reads standard input. The format follows the file extension or the content; --format ' +
        'overrides it. A CSV whose header has two or more of the columns email, distinct_id and person_id (or uuid, or id) ' +
        'is read as mixed identifiers: every non-empty cell is looked up as its column says.\n\n' +
        'A plain file of person ids for one project is sent as it is. Everything else, distinct ids too, is looked up first, ' +
        'with reads only (batched HogQL queries for addresses, batch_by_uuids and batch_by_distinct_ids for ids, 200 a ' +
        'request): the plan then says how many persons each project holds and lists the identifiers that name no one, and one ' +
        'identifier that names several persons deletes them all. On a terminal, more than 100 persons (from a file or a selection) ' +
        'are confirmed by typing the count.\n\n' +
        'Plan, review, apply: --dry-run --plan-out plan.json writes the resolved plan (host, projects, person UUIDs, the ' +
        'persons each identifier names, flags), signed with an HMAC-SHA256 under the evidence key of the config directory ' +
        '(a 0600 file, created on first need; the plan names it by a public id and never holds it). --plan plan.json applies ' +
        'exactly that plan with no lookup. What the signature protects against: an edit of the plan, by one byte, by anyone ' +
        'who does not hold the key, even one who read this code and recomputes every digest it could; not an edit by ' +
        'someone who holds the key, who can sign what they like (give it only to those you would let approve a plan). A ' +
        'plan is also refused when it disagrees with itself (its counts against its lists), when it is unsigned (made by an ' +
        'earlier hogctl: make a new one), and when it is meant for another profile, host or projects (--project or ' +
        '--projects naming others). What the plan shows before it is applied (persons, projects, flags, counts) is counted ' +
        'from the lists that will be sent. To apply it on another machine (CI), give that machine the key: ' +
        '`hogctl evidence export-key` there into `hogctl evidence import-key`, or into the HOGCTL_EVIDENCE_KEY secret of ' +
        'the pipeline; never as a flag.\n\n' +
        '--backup <file> writes the records of every person (NDJSON) before the first deletion, for clean-ups that may need ' +
        'undoing. An erasure should not keep one: the point of an erasure is that the data is gone, and a backup is a new copy ' +
        'of it to account for.\n\n' +
        'A request may take up to 120 s (deleting 1000 persons is slow on a busy server) unless --timeout says otherwise. ' +
        'When an answer is lost (a timeout, a dropped connection, a 502/504, a killed run), the ids of that request are checked ' +
        'with the server before they are sent again, so the receipt counts what the lost request deleted.\n\n' +
        '--resume needs only --file (and --journal if one was given): the journal remembers the flags, the receipt path, ' +
        'the output format, the rate, the concurrency and the retries of the run.\n\n' +
        'With --emails <file> (or --email <address>, repeated) the values are e-mail addresses, as an erasure request names people: each address is matched ' +
        '(exactly, ignoring the case of ASCII letters) against the email property and against the distinct ids, in HogQL reads ' +
        'of 500 addresses at a time, and looked up as a distinct id with batch_by_distinct_ids (200 a request), which also ' +
        'finds a person revived after an earlier deletion (HogQL does not show one until its distinct id is reset); every ' +
        'person it names is deleted, and the plan and the receipt say how many addresses were found where and list those ' +
        'that name no one. The journal, the receipt and ' +
        'the plan name each address (and each distinct id that looks like one) by HMAC-SHA256 under the evidence key, which ' +
        'none of them holds, so that the evidence holds no new personal data: without the key, no one can tell which ' +
        'addresses they name, even by hashing guesses (the same key signs plans: one secret to keep, and sub-keys derived ' +
        'apart so that neither use can stand for the other). With the key, `hogctl persons erasure-status --receipt <file> ' +
        '--check-email <address>` tells whether an erasure was asked to erase an address; `hogctl evidence export-key` ' +
        'gives the key to a DPO. --keep-identifiers names them in clear where your policy wants that. What the receipt and ' +
        'the journal keep in clear: the UUIDs of the persons and their other distinct ids (such as user-1971), which ' +
        '`persons erasure-status` needs to ask whether they name someone again; they name a person as well as an address ' +
        'does, so keep these files as private as the data they record.\n\n' +
        'Persons the server found but could not delete (deletion_errors in its answer) are sent again, at most --retries ' +
        'times; what is left, --resume sends.\n\n' +
        'After the run, every person the server reported deleted is checked gone with the server (200 a request, within the ' +
        'read rate of 240 a minute; ids of a request that found no one are not read back; --no-verify skips it), with ' +
        "--delete-events the deletion of their events is checked queued, and the receipt says what was found. The plan's " +
        'estimate counts these reads. PostHog deletes events in a weekly batch: `hogctl persons erasure-status --receipt <file>` ' +
        'checks later. Running a finished erasure again sends no deletion and checks again.\n\n' +
        'Ctrl-C (or SIGTERM) stops sending and waits for the requests in flight; a second one quits at once. Either way the ' +
        'journal and the receipt say what is known, and the resume command is printed. Ctrl-C while verifying does the same ' +
        '(verification: interrupted); --resume then verifies what is left.\n\n' +
        'Exit codes: 0 every request succeeded, 2 invalid input or flags (nothing sent), 4 authentication or permission ' +
        '(nothing more sent), 6 the server asked to wait longer than --max-wait (resume then), 8 some requests failed after ' +
        'retries (listed in the receipt; --resume retries them), persons could not be deleted (deletion_errors) or were still ' +
        'there when verified, or a project could ' +
        'not be searched, 130 interrupted.',
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
    .option('--backup <file>', 'write the records of the persons (NDJSON) before the first deletion; not for erasures (see above)')
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
    .option('--keep-person', 'keep the person profiles; only delete events and recordings');
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
  const { concurrency, rate, retries, maxWait, readRate, dryRun, yes, journal, resume, receipt, verify, skipInvalid, ...rest } = options;
  const job = parseJobFlags({ concurrency, rate, retries, maxWait, readRate, dryRun, yes, journal, resume, receipt, verify, skipInvalid });
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
  const { deleteEvents, deleteRecordings, keepPerson, ...engine } = others;
  const settled = await settleBulkJob(ctx, { ...engine, input, projects, ...job });
  // Resumed (or applying a plan), the flags recorded then stay; one given now that differs is refused.
  const then = recordedFlags(settled.recorded);
  const kind = deleteKind({
    delete_events: Boolean(deleteEvents || then?.delete_events),
    delete_recordings: Boolean(deleteRecordings || then?.delete_recordings),
    keep_person: Boolean(keepPerson || then?.keep_person),
  });
  await runBulkJob(ctx, settled, kind);
}
