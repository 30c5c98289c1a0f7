// The settings of a bulk run: what the command line gave, completed from the journal on
// --resume, then the defaults. Also the shortest command line that continues a run, and the
// check that the files it will write can be written.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { dirname, join, resolve as resolvePath } from 'node:path';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import { checkJournalFormat } from './journal-format.js';
import { defaultJournalPath, journalExists, readJournal, readJournalHeader } from './journal-read.js';
import type { RateWindow } from './rate.js';
import type { JobKind } from './action.js';
import type { KindFields } from './journal-format.js';
import type { PlanFile } from './plan-file.js';
import { fromStdin, inputArgs, selectionOf, type JobInput } from '../input/input.js';
import { READ_PER_MINUTE } from '../input/resolve.js';
import { journalProjects, kindFieldsOf } from './journal-binding.js';
import { type JournalHeader } from './journal-format.js';
import type { IdentifierNaming } from '../input/identifiers.js';
import { selectionSha256 } from '../input/selection.js';

export interface BulkSettings {
  /** What the job reads: one of its input flags, made once by the verb (input.ts). */
  input: JobInput;
  /** With --emails: name the addresses in the journal and receipt in clear, not by a keyed hash. */
  keepIdentifiers?: boolean;
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
  /** --projects 1,2,3. */
  projects?: string[];
  /** --all-projects: every project the key can see. */
  allProjects?: boolean;
  /** --plan-out <file> (with --dry-run): write the plan for review. */
  planOut?: string;
  /** --backup <file>: the records of the persons, written before the first deletion. */
  backup?: string;
  /** --reference <ticket>: the request this run answers (a ticket, a case number), kept in the
   * journal and the receipt. */
  reference?: string;
}

/** The settings of this run, decided from the command line, the journal it resumes and the
 * defaults: everything but what depends on the kind (the rate). */
export type SettledSettings = BulkSettings & {
  concurrency: number;
  retries: number;
  maxWaitMs: number;
  /** Reads a minute. */
  readPerMinute: number;
  /** How identifiers were named in the journal being continued, if any. */
  identifiers?: IdentifierNaming;
  /** On --resume: the kind's fields of the journal (its flags, its changes); with --plan, the
   * plan's flags. The verb builds its kind from them and its own flags. */
  recorded?: KindFields;
  /** --plan: the reviewed plan, read and checked. */
  reviewed?: PlanFile;
  /** The output format the resumed journal remembers, when neither -o nor HOGCTL_OUTPUT gives one. */
  output?: string;
};

/** The settings of this run, every one decided, the kind's defaults included. */
export type RunSettings = SettledSettings & {
  rate: RateWindow[];
  /** The shortest window's pace, for the reads that resolve integer ids. */
  perMinute: number;
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
  parts.push(command, ...inputArgs(s.input).map(q));
  if (s.allProjects) parts.push('--all-projects');
  else if (s.projects) parts.push('--projects', q(s.projects.join(',')));
  const stdin = fromStdin(s.input);
  if (stdin || s.input.kind === 'addresses' || s.journal) parts.push('--journal', q(journal));
  parts.push('--resume');
  if (stdin) parts.push('< <the same ids>');
  return parts.join(' ');
}

/** Where the journal of this input is, when that can be known before the input is read. */
async function knownJournalPath(ctx: Context, s: BulkSettings): Promise<string | undefined> {
  if (s.journal) return s.journal;
  const dir = join(configDir(ctx.env), 'journals');
  const { input } = s;
  if (input.kind === 'selection') return defaultJournalPath(dir, { idListSha256: await selectionKey(ctx, s), stem: 'selection' });
  if (input.kind === 'own')
    return defaultJournalPath(dir, {
      path: input.file !== '-' ? input.file : undefined,
      idListSha256: input.own.sha256,
      stem: input.own.stem,
    });
  if (input.kind === 'addresses' || input.kind === 'identifiers' || fromStdin(input)) return undefined;
  return defaultJournalPath(dir, { path: input.file, idListSha256: '' });
}

/** What a selection's journal is bound to: the selection and the projects it runs in. */
export async function selectionKey(ctx: Context, s: Pick<BulkSettings, 'input' | 'allProjects' | 'projects'>): Promise<string> {
  const where = s.allProjects ? 'all' : (s.projects?.join(',') ?? (await ctx.projectId()));
  return selectionSha256(selectionOf(s.input)!, where);
}

/**
 * The input of a resumed run, completed from its journal: what the values of a file are, and how
 * it is read. A journal that names another input flag is refused.
 */
function resumedInput(path: string, input: JobInput, header: JournalHeader): JobInput {
  const then = header.input.given;
  // --file continues any run that read a file: the journal says what the file holds (--resume
  // needs only --file). Any other input flag must be the one the run was started with.
  const continues = input.flag === '--file' && (then?.flag === '--emails' || then?.flag === '--file');
  if (then && then.flag !== input.flag && !continues && !(then.kind === 'selection' && input.kind === 'selection'))
    throw new UsageError(
      `journal ${path} was written for ${then.flag}, not ${input.flag}`,
      `resume it with ${then.flag} as it was started, or pass --journal <new path> to start a new run`,
    );
  if (input.kind !== 'ids' && input.kind !== 'emails') return input;
  const read = {
    format: input.format ?? (input.file !== '-' && header.input.file === input.file ? header.input.format : undefined),
    column: input.column ?? header.input.column ?? undefined,
  };
  if (input.kind === 'ids' && header.id_kind === 'emails') return { kind: 'emails', flag: '--emails', file: input.file, ...read };
  if (input.kind === 'ids' && header.id_kind === 'distinct_ids') return { ...input, ...read, ids: 'distinct_ids' };
  return { ...input, ...read };
}

/**
 * The header of a journal. readJournalHeader reads its first mebibyte; a kind may keep more in it
 * (a merge keeps every group as it was: 1.2 MB for 1,500 groups), and such a header is read with
 * the journal, whole; undefined when the file is not a journal (readJournal says why later).
 */
async function journalHeaderOf(path: string): Promise<JournalHeader | undefined> {
  const header = await readJournalHeader(path);
  if (header) return header;
  return readJournal(path).then(
    (state) => state.header,
    () => undefined,
  );
}

/**
 * --resume takes every setting not given on its command line from the journal: the kind of
 * ids, the kind's own fields (the flags, the changes), how the file is read, the receipt path,
 * the output format, the rate, the concurrency and the retries. Flags given that differ from the
 * journal's are refused later. Nothing here knows the kind of job, and nothing is written into
 * the Context: the verb builds its kind from what is settled.
 */
export async function decideSettings(ctx: Context, s: BulkSettings): Promise<SettledSettings> {
  const path = await knownJournalPath(ctx, s);
  const existing = path && journalExists(path) ? await journalHeaderOf(path) : undefined;
  // Before anything is taken from it: a header of another format may lack what is read here.
  if (existing) checkJournalFormat(path!, existing);
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
  if (r?.reference && merged.reference === undefined) merged.reference = r.reference;
  const recorded = header && kindFieldsOf(header);
  if (header) merged.input = resumedInput(path!, s.input, header);
  if (r) {
    merged.skipInvalid ||= r.skip_invalid;
    if (merged.receipt === undefined && r.receipt !== null) merged.receipt = r.receipt;
  }
  return {
    ...merged,
    rate: merged.rate ?? r?.rate.map((w) => ({ limit: w.limit, windowMs: w.window_ms })),
    output: r?.output ?? undefined,
    concurrency: merged.concurrency ?? r?.concurrency ?? DEFAULT_CONCURRENCY,
    retries: merged.retries ?? r?.retries ?? DEFAULT_RETRIES,
    maxWaitMs: merged.maxWaitMs ?? r?.max_wait_ms ?? DEFAULT_MAX_WAIT_MS,
    readPerMinute: merged.readRate ?? r?.read_rate ?? READ_PER_MINUTE,
    // The same case keeps its key, so that its journal recognises the same identifiers.
    identifiers: existing?.identifiers,
    recorded,
  };
}

/** The settings with the kind's defaults: its rate windows when neither --rate nor the journal gives any. */
export function withKindDefaults(s: SettledSettings, kind: { requests: Pick<JobKind['requests'], 'windows'> }): RunSettings {
  const rate = s.rate ?? [...kind.requests.windows];
  return { ...s, rate, perMinute: (rate[0].limit / rate[0].windowMs) * 60_000 };
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
