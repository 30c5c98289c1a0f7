import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import type { BulkDeleteSettings } from '../../bulk/job.js';
import { UsageError } from '../../errors.js';
import { examples, withContext } from '../with-context.js';
import { parseCount } from '../parse.js';

/** The flags as commander hands them over: the numbers are still text, checked in the run. */
export type PersonsBulkDeleteOptions = Omit<BulkDeleteSettings, 'concurrency' | 'perMinute' | 'rate' | 'retries'> & {
  concurrency: string;
  rate: string;
  retries: string;
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
        'A request may take up to 120 s (deleting 1000 persons is slow on a busy server) unless --timeout says otherwise.\n\n' +
        'Exit codes: 0 every request succeeded, 2 invalid input or flags (nothing sent), 4 authentication or permission ' +
        '(nothing more sent), 8 some requests failed after retries (listed in the receipt; --resume retries them), 130 interrupted.',
    )
    .requiredOption('--file <path|->', 'the file of ids, or - for standard input')
    .addOption(new Option('--format <format>', 'how to read the file (default: from the extension or the content)').choices(['lines', 'csv', 'json', 'ndjson']))
    .option('--column <name>', 'the CSV column (or JSON field) that holds the ids')
    .option('--distinct-ids', 'the values are distinct ids, not person ids')
    .option('--delete-events', "also queue the deletion of the persons' events")
    .option('--delete-recordings', "also delete the persons' session recordings")
    .option('--keep-person', 'keep the person profiles; only delete events and recordings')
    .option('--dry-run', 'check the input and print the plan; send nothing')
    .option('-y, --yes', 'do not ask for confirmation (needed off a terminal)')
    .option('--journal <path>', 'where to keep the journal (default: named after the input, in <config dir>/journals/)')
    .option('--resume', 'continue the run recorded in the journal: send only what was not answered yet')
    .option('--receipt <path>', 'where to write the JSON receipt (default: beside the journal)')
    .option('--concurrency <n>', 'requests in flight at once', '4')
    .option('--rate <windows>', 'requests at most per window, comma-separated; PostHog allows deletes 480 a minute and 4,800 an hour per key (a bare number is per minute, e.g. 240 or 8/s,2400/h)', '480/min,4800/h')
    .option('--retries <n>', 'retries per request after server errors, timeouts or dropped connections', '8')
    .option('--skip-invalid', 'send the valid ids and list the invalid ones in the receipt, instead of stopping')
    .addHelpText(
      'after',
      examples(
        'hogctl persons bulk-delete --file erasure.txt --dry-run',
        'hogctl persons bulk-delete --file erasure.txt --delete-events --delete-recordings --receipt receipt.json',
        'hogctl persons bulk-delete --file users.csv --column distinct_id --distinct-ids -y',
        'cat ids.ndjson | hogctl persons bulk-delete --file - -y -o json',
        'hogctl persons bulk-delete --file erasure.txt --resume',
      ),
    )
    .action(withContext(personsBulkDeleteRun));
}

export async function personsBulkDeleteRun(ctx: Context, options: PersonsBulkDeleteOptions): Promise<void> {
  const concurrency = parseCount(options.concurrency, '--concurrency');
  if (concurrency > 64) throw new UsageError(`invalid --concurrency "${options.concurrency}": at most 64 requests can be in flight`);
  const retries = parseCount(options.retries, '--retries', 0);
  const { parseRateWindows } = await import('../../bulk/rate.js');
  const rate = parseRateWindows(options.rate);
  if (rate === undefined) throw new UsageError(`invalid --rate "${options.rate}": give requests per window, comma-separated, e.g. 480/min,4800/h, 240 (per minute) or 8/s`);
  // The shortest window's pace, for the reads that resolve integer ids.
  const perMinute = (rate[0].limit / rate[0].windowMs) * 60_000;
  if (options.file.trim() === '') throw new UsageError('--file is empty: give the path of the file of ids, or - for standard input');
  if (options.keepPerson && !options.deleteEvents && !options.deleteRecordings) {
    throw new UsageError('--keep-person without --delete-events or --delete-recordings would do nothing', 'add --delete-events and/or --delete-recordings, or drop --keep-person');
  }
  const { bulkDelete } = await import('../../bulk/job.js');
  await bulkDelete(ctx, { ...options, concurrency, retries, perMinute, rate });
}
