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
import type { RateWindow } from './rate.js';
import type { JobKind } from './action.js';
import type { Changes } from './changes.js';
import type { KindFields } from './journal.js';
import type { Input } from './input.js';
import { READ_PER_MINUTE } from './resolve.js';
import type { IdsFormat } from './read-ids.js';
import { journalProjects, kindFieldsOf, type IdentifierNaming, type SelectionSpec } from './journal.js';
import { hasSelection, selectionSha256 } from './selection.js';

export interface BulkSettings {
  /** The file of ids or identifiers; '' with a selection or a plan. */
  file: string;
  format?: IdsFormat;
  column?: string;
  distinctIds?: boolean;
  /** The values are e-mail addresses: each is deleted through the persons it names. */
  emails?: boolean;
  /** Addresses given with --email, instead of a file. */
  inline?: string[];
  /** With --emails: name the addresses in the journal and receipt in clear, not by a keyed hash. */
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
  /** Reads a minute (--read-rate) for lookups, checks of lost answers and verification. */
  readRate?: number;
  skipInvalid?: boolean;
  /** false with --no-verify: skip asking the server afterwards whether the persons are gone. */
  verify?: boolean;
  /** --where, --cohort, --query: the persons are chosen by a selection, not listed. */
  selection?: SelectionSpec;
  /** --projects 1,2,3. */
  projects?: string[];
  /** --all-projects: every project the key can see. */
  allProjects?: boolean;
  /** --plan <file>: apply a reviewed plan. */
  plan?: string;
  /** --plan-out <file> (with --dry-run): write the plan for review. */
  planOut?: string;
  /** --backup <file>: the records of the persons, written before the first deletion. */
  backup?: string;
  /** The input, when the command read it already (--values-from: the file of per-person values). */
  input?: Input;
  /** `file` is a file of per-person values (--values-from). */
  valuesFrom?: boolean;
  /** The changes of an update (on --resume, the journal's when not given). */
  changes?: Changes;
}

/** The settings of this run, every one decided. */
export type RunSettings = BulkSettings & {
  concurrency: number;
  rate: RateWindow[];
  retries: number;
  maxWaitMs: number;
  perMinute: number;
  /** Reads a minute. */
  readPerMinute: number;
  /** How identifiers were named in the journal being continued, if any. */
  identifiers?: IdentifierNaming;
  /** On --resume: the kind's fields of the journal (its flags, its changes), for the verb to build the kind from. */
  recorded?: KindFields;
};

const DEFAULT_CONCURRENCY = 4;
const DEFAULT_RETRIES = 8;
const DEFAULT_MAX_WAIT_MS = 15 * 60_000;

/**
 * The shortest command line that continues this run: the journal remembers the rest, and is
 * found from the file's path unless it was named (standard input has no path to go by).
 */
export function resumeCommand(ctx: Context, command: string, s: BulkSettings, journal: string): string {
  const q = (v: string) => (/^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);
  const parts = ['hogctl'];
  if (ctx.globals.profile) parts.push('--profile', q(ctx.globals.profile));
  if (ctx.globals.baseUrl) parts.push('--base-url', q(ctx.globals.baseUrl));
  if (ctx.globals.project) parts.push('--project', q(ctx.globals.project));
  parts.push(command);
  if (s.plan) parts.push('--plan', q(s.plan));
  else if (hasSelection(s.selection)) {
    for (const w of s.selection.where) parts.push('--where', q(w));
    if (s.selection.cohort !== null) parts.push('--cohort', q(s.selection.cohort));
    if (s.selection.query !== null) parts.push('--query', q(s.selection.query));
  } else if (s.inline) for (const address of s.inline) parts.push('--email', q(address));
  else parts.push(s.emails ? '--emails' : s.valuesFrom ? '--values-from' : '--file', q(s.file));
  if (s.allProjects) parts.push('--all-projects');
  else if (s.projects) parts.push('--projects', q(s.projects.join(',')));
  if (s.file === '-' || s.inline || s.journal) parts.push('--journal', q(journal));
  parts.push('--resume');
  if (s.file === '-') parts.push('< <the same ids>');
  return parts.join(' ');
}

/** Where the journal of this input is, when that can be known before the input is read. */
async function knownJournalPath(ctx: Context, s: BulkSettings): Promise<string | undefined> {
  if (s.journal) return s.journal;
  const dir = join(configDir(ctx.env), 'journals');
  if (hasSelection(s.selection)) return defaultJournalPath(dir, { idListSha256: await selectionKey(ctx, s), stem: 'selection' });
  if (s.plan) return defaultJournalPath(dir, { path: s.plan, idListSha256: '' });
  if (s.file === '-' || s.inline) return undefined;
  return defaultJournalPath(dir, { path: s.file, idListSha256: '' });
}

/** What a selection's journal is bound to: the selection and the projects it runs in. */
export async function selectionKey(ctx: Context, s: BulkSettings): Promise<string> {
  const where = s.allProjects ? 'all' : (s.projects?.join(',') ?? (await ctx.projectId()));
  return selectionSha256(s.selection!, where);
}

/**
 * --resume takes every setting not given on its command line from the journal: the kind of
 * ids, the flags, how the file is read, the receipt path, the output format, the rate, the
 * concurrency and the retries. Flags given that differ from the journal's are refused later.
 */
export async function decideSettings(
  ctx: Context,
  s: BulkSettings,
  kindFor: (s: BulkSettings, recorded?: KindFields) => Pick<JobKind, 'windows'>,
): Promise<RunSettings> {
  const path = await knownJournalPath(ctx, s);
  const existing = path && journalExists(path) ? await readJournalHeader(path) : undefined;
  const header = s.resume ? existing : undefined;
  const r = header?.settings;
  const merged: BulkSettings = { ...s };
  // The projects of an erasure across projects are the journal's: --all-projects, resumed, must
  // not pick up a project created meanwhile, nor need to be given again.
  if (header && r?.projects_flag && !s.projects) {
    merged.projects = journalProjects(header);
    merged.allProjects = false;
  }
  if (r?.backup && merged.backup === undefined) merged.backup = r.backup;
  const recorded = header && kindFieldsOf(header);
  if (header) {
    merged.distinctIds ||= header.id_kind === 'distinct_ids';
    merged.emails ||= header.id_kind === 'emails';
    if (merged.format === undefined && s.file !== '-' && header.input.file === s.file) merged.format = header.input.format;
    if (merged.column === undefined && header.input.column !== null) merged.column = header.input.column;
  }
  if (r) {
    merged.skipInvalid ||= r.skip_invalid;
    if (merged.receipt === undefined && r.receipt !== null) merged.receipt = r.receipt;
    if (ctx.globals.output === undefined && ctx.env.HOGCTL_OUTPUT === undefined && r.output !== null) ctx.globals.output = r.output;
  }
  const rate = merged.rate ?? r?.rate.map((w) => ({ limit: w.limit, windowMs: w.window_ms })) ?? [...kindFor(merged, recorded).windows];
  return {
    ...merged,
    rate,
    concurrency: merged.concurrency ?? r?.concurrency ?? DEFAULT_CONCURRENCY,
    retries: merged.retries ?? r?.retries ?? DEFAULT_RETRIES,
    maxWaitMs: merged.maxWaitMs ?? r?.max_wait_ms ?? DEFAULT_MAX_WAIT_MS,
    readPerMinute: merged.readRate ?? r?.read_rate ?? READ_PER_MINUTE,
    // The shortest window's pace, for the reads that resolve integer ids.
    perMinute: (rate[0].limit / rate[0].windowMs) * 60_000,
    // The same case keeps its key (or salt), so that its journal recognises the same identifiers.
    identifiers: existing?.identifiers,
    recorded,
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
