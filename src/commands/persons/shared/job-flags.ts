// The flags every bulk job takes (persons bulk-delete, bulk-update and the verbs to come), declared
// once with one set of limits: whether it runs or only plans, how it is confirmed, journaled,
// resumed, paced, retried and checked; and the one input its input flags give (jobInputOf). A verb names its own words for the few whose help differs
// (its default rate, what its verification reads).
import type { Command } from 'commander';
import { UsageError } from '../../../errors.js';
import { parseCount, parseDuration } from '../../../cli/flags.js';
import { oneOf } from '../../../cli/exclusive.js';
import type { Input, JobInput } from '../../../bulk/input/input.js';
import type { IdsFormat } from '../../../bulk/input/read-ids.js';
import { parseRateWindows, type RateWindow } from '../../../bulk/engine/rate.js';
import type { BulkSettings } from '../../../bulk/engine/settings.js';

/** Requests in flight at most: more would only queue behind the rate windows and the server. */
export const MAX_CONCURRENCY = 64;

/** The job flags as commander hands them over: the numbers are still text. A flag not given
 * stays undefined: --resume then takes the value the journal remembers. */
export interface JobFlagOptions {
  dryRun?: boolean;
  yes?: boolean;
  journal?: string;
  resume?: boolean;
  receipt?: string;
  reference?: string;
  concurrency?: string;
  rate?: string;
  readRate?: string;
  retries?: string;
  maxWait?: string;
  /** false with --no-verify. */
  verify?: boolean;
  skipInvalid?: boolean;
}

/** The job flags, checked. */
export type JobFlags = Pick<
  BulkSettings,
  | 'dryRun'
  | 'yes'
  | 'journal'
  | 'resume'
  | 'receipt'
  | 'reference'
  | 'concurrency'
  | 'rate'
  | 'readRate'
  | 'retries'
  | 'maxWaitMs'
  | 'verify'
  | 'skipInvalid'
>;

/** The help of the flags whose meaning depends on the job. */
export interface JobFlagWords {
  /** --dry-run: "check the input and print the plan; send nothing". */
  dryRun: string;
  /** --rate: what the windows are and their default. */
  rate: string;
  /** --read-rate: what the reads are for. */
  readRate: string;
  /** --no-verify: what is not checked. */
  noVerify: string;
  /** --skip-invalid: what is done with the valid values. */
  skipInvalid: string;
}

/** Adds the job flags to a bulk verb, in the order its help lists them. */
export function addJobFlags(command: Command, words: JobFlagWords): Command {
  return command
    .option('--dry-run', words.dryRun)
    .option('-y, --yes', 'do not ask for confirmation (needed off a terminal)')
    .option('--journal <path>', 'where to keep the journal (default: named after the input, in <config dir>/journals/)')
    .option('--resume', 'continue the run recorded in the journal: send only what was not answered yet')
    .option('--receipt <path>', 'where to write the JSON receipt (default: beside the journal)')
    .option('--reference <ticket>', REFERENCE_HELP)
    .option('--concurrency <n>', `requests in flight at once, at most ${MAX_CONCURRENCY} (default 4)`)
    .option('--rate <windows>', words.rate)
    .option('--read-rate <n>', words.readRate)
    .option('--retries <n>', 'retries per request after server errors, timeouts or dropped connections (default 8)')
    .option(
      '--max-wait <duration>',
      'the longest wait the server may ask for (Retry-After) before the run stops, to be resumed later, e.g. 90s, 1h (default 15m)',
    )
    .option('--no-verify', words.noVerify)
    .option('--skip-invalid', words.skipInvalid);
}

export const REFERENCE_HELP =
  "the request this run answers (a ticket or case number), kept in the journal and the receipt; --resume keeps the first run's";

/** --reference, trimmed; a reference of only spaces, or one on many lines, names nothing. */
export function parseReference(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const reference = raw.trim();
  if (!reference || /[\r\n]/.test(reference) || reference.length > 200)
    throw new UsageError(
      `invalid --reference "${raw.slice(0, 40)}": give the ticket or case number, on one line, e.g. --reference DPO-1234`,
    );
  return reference;
}

/** --rate, checked; undefined when not given (the kind's windows, or the journal's, stand). */
export function parseRateFlag(raw: string | undefined): RateWindow[] | undefined {
  if (raw === undefined) return undefined;
  const rate = parseRateWindows(raw);
  if (rate === undefined)
    throw new UsageError(
      `invalid --rate "${raw}": give requests per window, comma-separated, e.g. 480/min,4800/h, 240 (per minute) or 8/s`,
    );
  return rate;
}

/** Checks the job flags: the same limits for every bulk verb. */
export function parseJobFlags(o: JobFlagOptions): JobFlags {
  const concurrency = o.concurrency === undefined ? undefined : parseCount(o.concurrency, '--concurrency');
  if (concurrency !== undefined && concurrency > MAX_CONCURRENCY)
    throw new UsageError(`invalid --concurrency "${o.concurrency}": at most ${MAX_CONCURRENCY} requests can be in flight`);
  const rate = parseRateFlag(o.rate);
  return {
    dryRun: o.dryRun,
    yes: o.yes,
    journal: o.journal,
    resume: o.resume,
    receipt: o.receipt,
    reference: parseReference(o.reference),
    concurrency,
    rate,
    readRate: o.readRate === undefined ? undefined : parseCount(o.readRate, '--read-rate'),
    retries: o.retries === undefined ? undefined : parseCount(o.retries, '--retries', 0),
    maxWaitMs: o.maxWait === undefined ? undefined : parseDuration(o.maxWait, '--max-wait'),
    verify: o.verify,
    skipInvalid: o.skipInvalid,
  };
}

/** The input flags of a bulk verb as commander hands them over (a verb has those it takes). */
export interface InputFlagOptions {
  file?: string;
  emails?: string;
  /** --email <address>, repeatable. */
  email?: string[];
  where?: string[];
  cohort?: string;
  query?: string;
  plan?: string;
  valuesFrom?: string;
  distinctIds?: boolean;
  format?: IdsFormat;
  column?: string;
}

/**
 * The one input the flags give, made once (input.ts): what the run reads, the flag that gave it,
 * and nothing else. Two inputs are refused; undefined when none is given (the verb says what it
 * needs). `values`: the file of --values-from, as the verb read it.
 */
export function jobInputOf(o: InputFlagOptions, values?: Input): JobInput | undefined {
  const selecting = Boolean(o.where || o.cohort !== undefined || o.query !== undefined);
  const flag = oneOf(
    [
      ['--file', o.file !== undefined],
      ['--emails', o.emails !== undefined],
      ['--email', o.email !== undefined],
      [o.query !== undefined ? '--query' : o.cohort !== undefined ? '--cohort' : '--where', selecting],
      ['--plan', o.plan !== undefined],
      ['--values-from', o.valuesFrom !== undefined],
    ],
    'the run reads one input',
  );
  if (flag === undefined) return undefined;
  if (o.distinctIds && flag !== '--file') throw new UsageError('--distinct-ids goes with --file: it says what the values of the file are');
  // How a file of ids is read: nothing else reads one (--values-from detects its own format, and
  // its verb takes --column before this).
  const reading = o.format !== undefined ? '--format' : o.column !== undefined ? '--column' : undefined;
  if (reading && (flag === '--values-from' ? reading === '--format' : flag !== '--file' && flag !== '--emails'))
    throw new UsageError(
      `${reading} goes with --file or --emails: it says how to read the file, and ${flag} reads none`,
      `drop ${reading}`,
    );
  const read = { format: o.format, column: o.column };
  const path = (file: string) => {
    if (file.trim() === '') throw new UsageError(`${flag} is empty: give the path of the file, or - for standard input`);
    return file;
  };
  switch (flag) {
    case '--file':
      return { kind: 'ids', flag, file: path(o.file!), ids: o.distinctIds ? 'distinct_ids' : 'person_ids', ...read };
    case '--emails':
      return { kind: 'emails', flag, file: path(o.emails!), ...read };
    case '--email':
      for (const address of o.email!)
        if (/[\r\n]/.test(address)) throw new UsageError(`invalid --email ${JSON.stringify(address)}: one address per --email`);
      return { kind: 'addresses', flag, addresses: o.email! };
    case '--plan':
      return { kind: 'plan', flag, file: o.plan! };
    case '--values-from':
      return { kind: 'values', flag, file: o.valuesFrom!, read: values! };
    default:
      return {
        kind: 'selection',
        flag: flag as '--where' | '--cohort' | '--query',
        selection: { where: o.where ?? [], cohort: o.cohort ?? null, query: o.query ?? null },
      };
  }
}
