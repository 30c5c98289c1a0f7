import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import type { BulkDeleteSettings } from '../../bulk/job.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { collect, parseCount, parseDuration } from '../../cli/flags.js';
import { parseRateWindows } from '../../bulk/rate.js';
import { bulkDelete } from '../../bulk/job.js';

/** The flags as commander hands them over: the numbers are still text, checked in the run.
 * A flag not given stays undefined: --resume then takes the value the journal remembers. */
export type PersonsBulkDeleteOptions = Omit<
  BulkDeleteSettings,
  'file' | 'emails' | 'inline' | 'concurrency' | 'rate' | 'retries' | 'maxWaitMs'
> & {
  file?: string;
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
    .summary('delete persons listed in a file: chunked, rate-aware, resumable, with a receipt')
    .description(
      'Delete the persons whose ids (UUIDs or integer ids) or distinct ids are listed in a file, e.g. for a GDPR erasure. ' +
        'Every value is checked before anything is sent; then the ids go out in requests of at most 1000, within a rate budget, ' +
        'with retries. A journal records each request before it is sent and each answer, so an interrupted run continues with ' +
        '--resume; a receipt says what was asked, sent and deleted.\n\n' +
        'Input: one id per line (blank lines and # comments ignored), CSV with --column, a JSON array, or NDJSON (strings, or ' +
        'objects with --column); "-" reads standard input. The format follows the file extension or the content; --format overrides it.\n\n' +
        'A request may take up to 120 s (deleting 1000 persons is slow on a busy server) unless --timeout says otherwise. ' +
        'When an answer is lost (a timeout, a dropped connection, a 502/504, a killed run), the ids of that request are checked ' +
        'with the server before they are sent again, so the receipt counts what the lost request deleted.\n\n' +
        '--resume needs only --file (and --journal if one was given): the journal remembers the flags, the receipt path, ' +
        'the output format, the rate, the concurrency and the retries of the run.\n\n' +
        'With --emails <file> (or --email <address>, repeated) the values are e-mail addresses, as an erasure request names people: each address is matched ' +
        '(exactly, ignoring the case of ASCII letters) against the email property, in HogQL reads of 500 addresses at a time, ' +
        'and every person it names is deleted; the plan lists the addresses that name no one. The journal and the receipt ' +
        'name each address by a salted SHA-256, so that the evidence holds no new personal data; --keep-identifiers names them ' +
        'in clear where your policy wants that.\n\n' +
        'After the run, every person deleted is checked gone with the server (200 a request, within the read rate of 240 a ' +
        'minute; --no-verify skips it), and the receipt says what was found. Running a finished erasure again sends no ' +
        'deletion and checks again.\n\n' +
        'Ctrl-C (or SIGTERM) stops sending and waits for the requests in flight; a second one quits at once. Either way the ' +
        'journal and the receipt say what is known, and the resume command is printed.\n\n' +
        'Exit codes: 0 every request succeeded, 2 invalid input or flags (nothing sent), 4 authentication or permission ' +
        '(nothing more sent), 6 the server asked to wait longer than --max-wait (resume then), 8 some requests failed after ' +
        'retries (listed in the receipt; --resume retries them) or persons were still there when verified, 130 interrupted.',
    )
    .option('--file <path|->', 'the file of ids, or - for standard input')
    .option('--emails <path|->', 'a file of e-mail addresses instead: delete every person each one names (default CSV column: email)')
    .option('--email <address>', 'an e-mail address to erase, instead of a file (repeatable)', collect)
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
    .option('--keep-identifiers', 'with --emails or --email: name the addresses in clear in the journal and receipt, not a salted hash')
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
      ),
    )
    .action(withContext(personsBulkDeleteRun));
}

export async function personsBulkDeleteRun(ctx: Context, options: PersonsBulkDeleteOptions): Promise<void> {
  const { concurrency: c, rate: r, retries: t, maxWait, ...rest } = options;
  const concurrency = c === undefined ? undefined : parseCount(c, '--concurrency');
  if (concurrency !== undefined && concurrency > 64)
    throw new UsageError(`invalid --concurrency "${c}": at most 64 requests can be in flight`);
  const retries = t === undefined ? undefined : parseCount(t, '--retries', 0);
  const maxWaitMs = maxWait === undefined ? undefined : parseDuration(maxWait, '--max-wait');
  const rate = r === undefined ? undefined : parseRateWindows(r);
  if (r !== undefined && rate === undefined)
    throw new UsageError(`invalid --rate "${r}": give requests per window, comma-separated, e.g. 480/min,4800/h, 240 (per minute) or 8/s`);
  const { file, emails, email, ...others } = rest;
  const given = [file !== undefined && '--file', emails !== undefined && '--emails', email !== undefined && '--email'].filter(Boolean);
  if (given.length === 0) throw new UsageError('nothing to delete: give --file <path> (ids), --emails <path> or --email <address>');
  if (given.length > 1) throw new UsageError(`give one of ${given.join(' and ')}: the run reads one input`);
  const path = file ?? emails;
  if (path !== undefined && path.trim() === '')
    throw new UsageError(`${given[0]} is empty: give the path of the file, or - for standard input`);
  for (const address of email ?? []) {
    if (/[\r\n]/.test(address)) throw new UsageError(`invalid --email ${JSON.stringify(address)}: one address per --email`);
  }
  const byEmail = emails !== undefined || email !== undefined;
  if (byEmail && options.distinctIds) throw new UsageError('--distinct-ids goes with --file: e-mail addresses are their own kind');
  if (options.keepIdentifiers && !byEmail) throw new UsageError('--keep-identifiers goes with --emails or --email');
  if (options.keepPerson && !options.deleteEvents && !options.deleteRecordings) {
    throw new UsageError(
      '--keep-person without --delete-events or --delete-recordings would do nothing',
      'add --delete-events and/or --delete-recordings, or drop --keep-person',
    );
  }
  await bulkDelete(ctx, { ...others, file: path ?? '', emails: byEmail, inline: email, concurrency, retries, rate, maxWaitMs });
}
