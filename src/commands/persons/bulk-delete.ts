import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import type { BulkSettings } from '../../bulk/settings.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { collect, parseCount, parseDuration } from '../../cli/flags.js';
import { parseRateWindows } from '../../bulk/rate.js';
import { runBulkJob } from '../../bulk/job.js';
import { deleteKind, recordedFlags } from '../../bulk/delete-persons.js';
import { parseProjectList } from '../../bulk/projects.js';

/** The flags as commander hands them over: the numbers are still text, checked in the run.
 * A flag not given stays undefined: --resume then takes the value the journal remembers. */
export type PersonsBulkDeleteOptions = Omit<
  BulkSettings,
  'file' | 'emails' | 'inline' | 'concurrency' | 'rate' | 'retries' | 'maxWaitMs' | 'selection' | 'projects' | 'readRate'
> & {
  readRate?: string;
  file?: string;
  where?: string[];
  cohort?: string;
  query?: string;
  /** --projects 1,2,3 */
  projects?: string;
  /** --emails <file|->: the file of e-mail addresses. */
  emails?: string;
  /** --email <address>, repeatable. */
  email?: string[];
  concurrency?: string;
  rate?: string;
  retries?: string;
  maxWait?: string;
};

export function personsBulkDeleteCommand(): Command {
  return new Command('bulk-delete')
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
    .option('--keep-person', 'keep the person profiles; only delete events and recordings')
    .option('--dry-run', 'check the input and print the plan; send nothing')
    .option('-y, --yes', 'do not ask for confirmation (needed off a terminal)')
    .option('--journal <path>', 'where to keep the journal (default: named after the input, in <config dir>/journals/)')
    .option('--resume', 'continue the run recorded in the journal: send only what was not answered yet')
    .option('--receipt <path>', 'where to write the JSON receipt (default: beside the journal)')
    .option('--concurrency <n>', 'requests in flight at once (default 4)')
    .option(
      '--rate <windows>',
      'requests at most per window, comma-separated; PostHog allows deletes 480 a minute and 4,800 an hour per key (a bare number is per minute, e.g. 240 or 8/s,2400/h) (default 480/min,4800/h)',
    )
    .option(
      '--read-rate <n>',
      "reads a minute for looking persons up, checking lost answers and verifying (default 240, PostHog Cloud's limit for reading persons with a personal key; a self-hosted PostHog without rate limits takes more)",
    )
    .option('--retries <n>', 'retries per request after server errors, timeouts or dropped connections (default 8)')
    .option(
      '--max-wait <duration>',
      'the longest wait the server may ask for (Retry-After) before the run stops, to be resumed later, e.g. 90s, 1h (default 15m)',
    )
    .option('--no-verify', 'do not ask the server afterwards whether the persons are gone')
    .option('--skip-invalid', 'send the valid ids and list the invalid ones in the receipt, instead of stopping')
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
  const { concurrency: c, rate: r, retries: t, maxWait, readRate: rr, ...rest } = options;
  const readRate = rr === undefined ? undefined : parseCount(rr, '--read-rate');
  const concurrency = c === undefined ? undefined : parseCount(c, '--concurrency');
  if (concurrency !== undefined && concurrency > 64)
    throw new UsageError(`invalid --concurrency "${c}": at most 64 requests can be in flight`);
  const retries = t === undefined ? undefined : parseCount(t, '--retries', 0);
  const maxWaitMs = maxWait === undefined ? undefined : parseDuration(maxWait, '--max-wait');
  const rate = r === undefined ? undefined : parseRateWindows(r);
  if (r !== undefined && rate === undefined)
    throw new UsageError(`invalid --rate "${r}": give requests per window, comma-separated, e.g. 480/min,4800/h, 240 (per minute) or 8/s`);
  const { file, emails, email, where, cohort, query, projects: projectList, ...others } = rest;
  const selection = { where: where ?? [], cohort: cohort ?? null, query: query ?? null };
  const selecting = Boolean(where || cohort !== undefined || query !== undefined);
  const given = [
    file !== undefined && '--file',
    emails !== undefined && '--emails',
    email !== undefined && '--email',
    selecting && (query !== undefined ? '--query' : cohort !== undefined ? '--cohort' : '--where'),
    options.plan !== undefined && '--plan',
  ].filter(Boolean);
  if (given.length === 0)
    throw new UsageError(
      'nothing to delete: give --file <path> (ids), --emails <path> or --email <address>, a selection (--where, --cohort, --query), or --plan <file>',
    );
  if (given.length > 1) throw new UsageError(`give one of ${given.join(' and ')}: the run reads one input`);
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
  if (options.allProjects && projectList !== undefined) throw new UsageError('give one of --projects and --all-projects');
  if ((options.allProjects || projectList !== undefined) && ctx.globals.project !== undefined)
    throw new UsageError('--project names one project; with --projects or --all-projects, drop it');
  const projects = projectList === undefined ? undefined : parseProjectList(projectList);
  if (cohort !== undefined && (options.allProjects || (projects && projects.length > 1)))
    throw new UsageError('a cohort belongs to one project: run --cohort in that project (--project), or select with --where or --query');
  const path = file ?? emails;
  if (path !== undefined && path.trim() === '')
    throw new UsageError(`${given[0]} is empty: give the path of the file, or - for standard input`);
  for (const address of email ?? []) {
    if (/[\r\n]/.test(address)) throw new UsageError(`invalid --email ${JSON.stringify(address)}: one address per --email`);
  }
  const byEmail = emails !== undefined || email !== undefined;
  if ((byEmail || selecting) && options.distinctIds)
    throw new UsageError('--distinct-ids goes with --file: it says what the values of the file are');
  if (options.keepIdentifiers && (selecting || options.distinctIds))
    throw new UsageError('--keep-identifiers goes with e-mail addresses (--emails, --email) or a mixed file of identifiers');
  if (options.keepPerson && !options.deleteEvents && !options.deleteRecordings) {
    throw new UsageError(
      '--keep-person without --delete-events or --delete-recordings would do nothing',
      'add --delete-events and/or --delete-recordings, or drop --keep-person',
    );
  }
  await runBulkJob(
    ctx,
    {
      ...others,
      file: path ?? '',
      emails: byEmail,
      inline: email,
      ...(selecting ? { selection } : {}),
      projects,
      concurrency,
      retries,
      rate,
      maxWaitMs,
      readRate,
    },
    // Resumed (or applying a plan), the flags recorded then stay; one given now that differs is refused.
    (s, recorded) => {
      const then = recordedFlags(recorded);
      return deleteKind({
        delete_events: Boolean(s.deleteEvents || then?.delete_events),
        delete_recordings: Boolean(s.deleteRecordings || then?.delete_recordings),
        keep_person: Boolean(s.keepPerson || then?.keep_person),
      });
    },
  );
}
