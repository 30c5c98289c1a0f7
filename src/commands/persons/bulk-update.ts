import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { collect, parseDuration } from '../../cli/flags.js';
import { addJobFlags, jobInputOf, parseJobFlags, type JobFlagOptions } from './shared/job-flags.js';
import { CAPTURE_URL_HELP, givenCaptureUrl, runCaptureHost } from './shared/capture-url.js';
import { parseAssignments } from '../../api/set-value.js';
import type { Changes } from '../../bulk/kinds/update/changes.js';
import { runBulkJob, settleBulkJob } from '../../bulk/engine/job.js';
import type { BulkSettings } from '../../bulk/engine/settings.js';
import { recordedChanges, updateKind } from '../../bulk/kinds/update/update-persons.js';
import { readValues } from '../../bulk/kinds/update/values-from.js';

export interface PersonsBulkUpdateOptions extends JobFlagOptions {
  file?: string;
  emails?: string;
  email?: string[];
  distinctIds?: boolean;
  format?: 'lines' | 'csv' | 'json' | 'ndjson';
  column?: string;
  where?: string[];
  cohort?: string;
  query?: string;
  valuesFrom?: string;
  set?: string[];
  setOnce?: string[];
  unset?: string[];
  via: 'capture' | 'api';
  captureUrl?: string;
  verifyTimeout?: string;
}

const DEFAULT_VERIFY_TIMEOUT = '2m';

export function personsBulkUpdateCommand(): Command {
  const command = new Command('bulk-update')
    .summary('set, set once or unset properties of many persons, through capture: resumable, verified, with a receipt')
    .description(
      'Change the properties of many persons at once: those listed in a file (UUIDs, distinct ids, e-mail addresses, ' +
        'or a CSV with a column per kind), or those a selection chooses (--where, --cohort, --query). --set key=value ' +
        'sets a property (typed as `persons update` types it: 30 is a number, true a boolean, JSON stays JSON; quote ' +
        'to keep text), --set-once sets it only where the person has none, --unset removes it; or --values-from <file> ' +
        'gives each person their own values (a CSV or NDJSON, one row per person: a person_id, distinct_id or email ' +
        'column and a column per property).\n\nMore in `hogctl help capture` (capture or the REST API, what counts as ' +
        'accepted, reading back, exit codes), `hogctl help bulk-input` (the input and its lookup) and `hogctl help ' +
        'bulk-runs` (journal, resume, Ctrl-C).',
    )
    .option(
      '--file <path|->',
      'a file of ids (UUIDs or integer ids; --distinct-ids for distinct ids), or a CSV with email, distinct_id and person_id columns',
    )
    .option(
      '--emails <path|->',
      'a file of e-mail addresses instead: every person each one names is changed, the whole address ignoring the case of ASCII letters',
    )
    .option('--email <address>', 'an e-mail address, instead of a file (repeatable)', collect)
    .option('--distinct-ids', 'the values of --file are distinct ids')
    .addOption(
      new Option('--format <format>', 'how to read --file (default: from the extension or the content)').choices([
        'lines',
        'csv',
        'json',
        'ndjson',
      ]),
    )
    .option('--column <name>', 'the CSV column (or JSON field) that holds the ids; with --values-from, the one that names the persons')
    .option(
      '--where <key=value>',
      'select the persons with this property, as `persons list` reads it (repeatable: all must match), case-sensitive (email=Lee@x.com misses lee@x.com; --emails ignores the case of ASCII letters); an empty value is refused, has:<key> / lacks:<key> choose by whether it is set',
      collect,
    )
    .option('--cohort <id>', 'select the persons of this cohort')
    .option('--query <hogql>', 'select the persons this HogQL query returns; its first column is the person id')
    .option(
      '--values-from <path>',
      'a CSV or NDJSON of per-person values: it names the persons (its person_id, distinct_id or email column) and gives their values',
    )
    .option('--set <key=value>', 'set this property on every person (repeatable)', collect)
    .option('--set-once <key=value>', 'set it only where the person has no value yet (repeatable; capture only)', collect)
    .option('--unset <key>', 'remove this property (repeatable)', collect)
    .addOption(new Option('--via <way>', 'how the changes are sent').choices(['capture', 'api']).default('capture'))
    .option('--capture-url <url>', CAPTURE_URL_HELP)
    .option(
      '--verify-timeout <duration>',
      `how long to read the persons back until the changes show, e.g. 30s, 5m (default ${DEFAULT_VERIFY_TIMEOUT})`,
    );
  return addJobFlags(command, {
    dryRun: 'look the persons up and print the plan; send nothing',
    rate: 'requests at most per window, e.g. 600/min (default 600/min through capture, 240/min of REST requests with --via api)',
    readRate: "reads a minute for looking persons up and reading them back (default 240, PostHog Cloud's limit for a personal key)",
    noVerify: 'do not read the persons back afterwards',
    skipInvalid: 'change the persons of the valid values and list the invalid ones in the receipt, instead of stopping',
  })
    .addHelpText(
      'after',
      examples(
        'hogctl persons bulk-update --where plan=free --set plan=starter --dry-run',
        'hogctl persons bulk-update --file users.csv --unset email --unset name -y',
        'hogctl persons bulk-update --emails erasure-emails.txt --set-once source=import --set vip=true -y',
        'hogctl persons bulk-update --values-from person-values.csv -y',
        'hogctl persons bulk-update --where plan=enterprise --set tier=gold --via api -y',
        'hogctl persons bulk-update --where plan=free --resume',
      ),
    )
    .action(withContext(personsBulkUpdateRun));
}

export async function personsBulkUpdateRun(ctx: Context, o: PersonsBulkUpdateOptions): Promise<void> {
  const job = parseJobFlags(o);
  // Checked before --values-from is read: one input, and --distinct-ids only with --file.
  if (jobInputOf(o) === undefined)
    throw new UsageError(
      'no persons to change: give --file, --emails or --email, a selection (--where, --cohort, --query), or --values-from',
      'e.g. hogctl persons bulk-update --where plan=free --set plan=starter',
    );

  const set = parseAssignments(o.set ?? []);
  const setOnce = parseAssignments(o.setOnce ?? [], '--set-once');
  const unset = [...new Set(o.unset ?? [])];
  const both = unset.find((key) => key in set || key in setOnce);
  if (both !== undefined) throw new UsageError(`--unset ${both} and --set ${both}: a property is either set or unset`);
  if (o.via === 'api' && Object.keys(setOnce).length)
    throw new UsageError('--set-once needs capture: the REST API has no set-once', 'drop --via api, or use --set');
  const values = o.valuesFrom === undefined ? undefined : await readValues(o.valuesFrom, { column: o.column, skipInvalid: o.skipInvalid });
  const flagged = Object.keys(set).length || Object.keys(setOnce).length || unset.length;
  if (!flagged && !values && !o.resume)
    throw new UsageError(
      'nothing to change: give --set key=value, --set-once key=value, --unset key or --values-from <file>',
      'e.g. --set plan=team --unset phone',
    );
  // Resumed without changes on the command line, the journal says what to change.
  const given: Changes | undefined =
    flagged || (values && !o.resume)
      ? { via: o.via, set, set_once: setOnce, unset, values_from: values ? { file: o.valuesFrom!, sha256: values.sha256 } : null }
      : undefined;

  const captureUrl = givenCaptureUrl(o);
  const verifyTimeoutMs = o.verify === false ? 0 : parseDuration(o.verifyTimeout ?? DEFAULT_VERIFY_TIMEOUT, '--verify-timeout');
  // --column names the persons in the file of --values-from: the verb read it.
  const input = jobInputOf(
    values ? { ...o, column: undefined } : o,
    values && { list: values.list, label: o.valuesFrom!, path: o.valuesFrom },
  )!;
  const settings: BulkSettings = { input, ...job };
  const settled = await settleBulkJob(ctx, settings);
  // Resumed without changes on the command line, the journal's.
  const changes = given ?? recordedChanges(settled.recorded);
  if (!changes)
    throw new UsageError(
      'nothing to change: there is no run to resume with its changes',
      'give --set, --set-once, --unset or --values-from',
    );
  const expected = changes.values_from;
  if (expected && (!values || values.sha256 !== expected.sha256))
    throw new UsageError(
      `the run changes each person as ${expected.file} said when it started, and ${values ? `${o.valuesFrom} is not that file any more` : '--values-from is missing'}`,
      `pass --values-from ${expected.file} as it was, or start a new run with --journal <new path>`,
    );
  const captureHost = changes.via === 'api' ? undefined : await runCaptureHost(ctx, captureUrl, settled.recorded);
  await runBulkJob(
    ctx,
    settled,
    updateKind({ changes, values: values?.values, valueProperties: values?.properties, captureHost, verifyTimeoutMs }),
  );
}
