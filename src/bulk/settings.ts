// The settings of a bulk run: what the command line gave, completed from the journal on
// --resume, then the defaults. Also the shortest command line that continues a run, and the
// check that the files it will write can be written.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { dirname, join, resolve as resolvePath } from 'node:path';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { configDir } from '../config/paths.js';
import { defaultJournalPath, journalExists, readJournalHeader } from './journal.js';
import { DELETE_WINDOWS, type RateWindow } from './rate.js';
import type { IdsFormat } from './read-ids.js';
import { newPolicy, type IdentifierPolicy } from './identifiers.js';

export interface BulkDeleteSettings {
  file: string;
  format?: IdsFormat;
  column?: string;
  distinctIds?: boolean;
  /** The values are e-mail addresses: each is deleted through the persons it names. */
  emails?: boolean;
  /** Addresses given with --email, instead of a file. */
  inline?: string[];
  /** With --emails: name the addresses in the journal and receipt in clear, not by a salted hash. */
  keepIdentifiers?: boolean;
  deleteEvents?: boolean;
  deleteRecordings?: boolean;
  keepPerson?: boolean;
  dryRun?: boolean;
  yes?: boolean;
  journal?: string;
  resume?: boolean;
  receipt?: string;
  /** Undefined when not given: --resume takes the journal's, a new run the default. */
  concurrency?: number;
  /** The delete windows (--rate); default PostHog's 480/minute and 4800/hour. */
  rate?: RateWindow[];
  retries?: number;
  /** The longest Retry-After waited out (--max-wait); a longer one stops the run. */
  maxWaitMs?: number;
  skipInvalid?: boolean;
  /** false with --no-verify: skip asking the server afterwards whether the persons are gone. */
  verify?: boolean;
}

/** The settings of this run, every one decided. */
export type RunSettings = BulkDeleteSettings & {
  concurrency: number;
  rate: RateWindow[];
  retries: number;
  maxWaitMs: number;
  perMinute: number;
  /** With --emails: how the addresses are named; the journal's, when there is one. */
  identifiers?: IdentifierPolicy;
};

const DEFAULT_CONCURRENCY = 4;
const DEFAULT_RETRIES = 8;
const DEFAULT_MAX_WAIT_MS = 15 * 60_000;

/**
 * The shortest command line that continues this run: the journal remembers the rest, and is
 * found from the file's path unless it was named (standard input has no path to go by).
 */
export function resumeCommand(ctx: Context, command: string, s: BulkDeleteSettings, journal: string): string {
  const q = (v: string) => (/^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);
  const parts = ['hogctl'];
  if (ctx.globals.profile) parts.push('--profile', q(ctx.globals.profile));
  if (ctx.globals.baseUrl) parts.push('--base-url', q(ctx.globals.baseUrl));
  if (ctx.globals.project) parts.push('--project', q(ctx.globals.project));
  parts.push(command);
  if (s.inline) for (const address of s.inline) parts.push('--email', q(address));
  else parts.push(s.emails ? '--emails' : '--file', q(s.file));
  if (s.file === '-' || s.inline || s.journal) parts.push('--journal', q(journal));
  parts.push('--resume');
  if (s.file === '-') parts.push('< <the same ids>');
  return parts.join(' ');
}

/** Where the journal of this input is, when that can be known before the input is read. */
function knownJournalPath(ctx: Context, s: BulkDeleteSettings): string | undefined {
  if (s.journal) return s.journal;
  if (s.file === '-' || s.inline) return undefined;
  return defaultJournalPath(join(configDir(ctx.env), 'journals'), { path: s.file, idListSha256: '' });
}

/**
 * --resume takes every setting not given on its command line from the journal: the kind of
 * ids, the flags, how the file is read, the receipt path, the output format, the rate, the
 * concurrency and the retries. Flags given that differ from the journal's are refused later.
 */
export async function decideSettings(ctx: Context, s: BulkDeleteSettings): Promise<RunSettings> {
  const path = knownJournalPath(ctx, s);
  const existing = path && journalExists(path) ? await readJournalHeader(path) : undefined;
  const header = s.resume ? existing : undefined;
  const r = header?.settings;
  const merged: BulkDeleteSettings = { ...s };
  if (header) {
    merged.distinctIds ||= header.id_kind === 'distinct_ids';
    merged.emails ||= header.id_kind === 'emails';
    merged.deleteEvents ||= header.flags.delete_events;
    merged.deleteRecordings ||= header.flags.delete_recordings;
    merged.keepPerson ||= header.flags.keep_person;
    if (merged.format === undefined && s.file !== '-' && header.input.file === s.file) merged.format = header.input.format;
    if (merged.column === undefined && header.input.column !== null) merged.column = header.input.column;
  }
  if (r) {
    merged.skipInvalid ||= r.skip_invalid;
    if (merged.receipt === undefined && r.receipt !== null) merged.receipt = r.receipt;
    if (ctx.globals.output === undefined && ctx.env.HOGCTL_OUTPUT === undefined && r.output !== null) ctx.globals.output = r.output;
  }
  const rate = merged.rate ?? r?.rate.map((w) => ({ limit: w.limit, windowMs: w.window_ms })) ?? [...DELETE_WINDOWS];
  return {
    ...merged,
    rate,
    concurrency: merged.concurrency ?? r?.concurrency ?? DEFAULT_CONCURRENCY,
    retries: merged.retries ?? r?.retries ?? DEFAULT_RETRIES,
    maxWaitMs: merged.maxWaitMs ?? r?.max_wait_ms ?? DEFAULT_MAX_WAIT_MS,
    // The shortest window's pace, for the reads that resolve integer ids.
    perMinute: (rate[0].limit / rate[0].windowMs) * 60_000,
    // The same case keeps its salt, so that its journal recognises the same addresses.
    identifiers: merged.emails ? (existing?.identifiers ?? newPolicy(Boolean(merged.keepIdentifiers))) : undefined,
  };
}

/** A receipt or journal that cannot be written must fail before anything is deleted, not after. */
export async function checkWritableDir(path: string, flag: string): Promise<void> {
  const dir = dirname(resolvePath(path));
  try {
    await access(dir, constants.W_OK);
  } catch {
    throw new UsageError(
      `cannot write ${path}: the directory ${dir} does not exist or is not writable`,
      `pass a writable path to ${flag}; nothing was sent`,
    );
  }
}
