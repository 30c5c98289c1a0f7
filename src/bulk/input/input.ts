// A bulk job's input, the first thing prepare.ts settles: the whole input read and every value
// checked before anything is sent. A bad value stops the run here (or, with --skip-invalid, is
// left out and listed).
//
// What the input is, is one value (JobInput) made once by the verb from its flags: it carries the
// flag that gave it and the label that messages, the journal and the resume command name it by.
// This file switches on it, in readJobInput; everything else asks it.
import { Readable } from 'node:stream';
import type { Context } from '../../context.js';
import { CancelledError, UsageError } from '../../errors.js';
import { InputError, readIds, type IdsFormat } from './read-ids.js';
import { collectIds, idListSha256, invalidInputError, listBadValues, type IdKind, type IdList } from './validate.js';
import { formatNumber, plural } from '../../io/counts.js';
import { openInputFile } from '../../io/input-file.js';
import type { SelectionSpec } from '../engine/journal-format.js';
import type { PlanFile } from '../engine/plan-file.js';
import { describeSelection } from './selection.js';

/** What a bulk job reads: one of its input flags, with what it gave. */
export type JobInput =
  /** --file: ids of one kind (person ids, or distinct ids with --distinct-ids), or a CSV of mixed identifiers. */
  | { kind: 'ids'; flag: '--file'; file: string; ids: 'person_ids' | 'distinct_ids'; format?: IdsFormat; column?: string }
  /** --emails: a file of e-mail addresses. */
  | { kind: 'emails'; flag: '--emails'; file: string; format?: IdsFormat; column?: string }
  /** --email, repeated: addresses on the command line. */
  | { kind: 'addresses'; flag: '--email'; addresses: string[] }
  /** --email, --distinct-id and --person, repeated: identifiers of the three kinds on the command
   * line (persons export), read as a mixed file's `email:`, `distinct_id:` and `person_id:`. */
  | { kind: 'identifiers'; flag: '--email' | '--distinct-id' | '--person'; emails: string[]; distinctIds: string[]; persons: string[] }
  /** --where, --cohort, --query: the persons a selection chooses. */
  | { kind: 'selection'; flag: '--where' | '--cohort' | '--query'; selection: SelectionSpec }
  /** --plan: a reviewed plan. */
  | { kind: 'plan'; flag: '--plan'; file: string }
  /** --values-from: a file of per-person values, read by the verb (it names the persons). */
  | { kind: 'values'; flag: '--values-from'; file: string; read: Input }
  /** A kind's own input, read and checked by the verb (a merge's groups): the kind names the persons
   * itself (JobKind.targets), from this input or, on --resume, from its journal. */
  | { kind: 'own'; flag: string; file?: string; own: OwnInput };

/** What a kind's own input is to the engine: how it is named, what binds it, where it acts. */
export interface OwnInput {
  /** How messages and the journal name it: the file's path, "stdin", "arguments". */
  label: string;
  /** SHA-256 of its text: what binds the journal and the receipt to it. */
  sha256: string;
  /** The projects it acts in (each group's, never one chosen for it). */
  projects: string[];
  /** The command line that gives it again, for the resume command. */
  args: string[];
  /** Names the default journal when it has no file (standard input, arguments). */
  stem: string;
}

/** How messages and the journal name an input: its file ("stdin" for -), "--email", the selection. */
export function inputLabel(input: JobInput): string {
  switch (input.kind) {
    case 'addresses':
      return '--email';
    case 'identifiers':
      return 'the command line';
    case 'selection':
      return describeSelection(input.selection);
    case 'own':
      return input.own.label;
    default:
      return input.file === '-' ? 'stdin' : input.file;
  }
}

/** The selection an input is, if it is one. */
export function selectionOf(input: JobInput): SelectionSpec | undefined {
  return input.kind === 'selection' ? input.selection : undefined;
}

/** The input as the command line that gives it again names it: `--emails erasure.txt`. */
export function inputArgs(input: JobInput): string[] {
  switch (input.kind) {
    case 'addresses':
      return input.addresses.flatMap((a) => ['--email', a]);
    case 'identifiers':
      return [
        ...input.emails.flatMap((e) => ['--email', e]),
        ...input.distinctIds.flatMap((d) => ['--distinct-id', d]),
        ...input.persons.flatMap((p) => ['--person', p]),
      ];
    case 'selection': {
      const { where, cohort, query } = input.selection;
      return [
        ...where.flatMap((w) => ['--where', w]),
        ...(cohort !== null ? ['--cohort', cohort] : []),
        ...(query !== null ? ['--query', query] : []),
      ];
    }
    case 'own':
      return input.own.args;
    default:
      return [input.flag, input.file];
  }
}

/** The column of a file the values were read from (--column), if one was named. */
export function columnOf(input: JobInput): string | null {
  return (input.kind === 'ids' || input.kind === 'emails') && input.column !== undefined ? input.column : null;
}

/** Whether the input comes from standard input, which has no path to find its journal by. */
export function fromStdin(input: JobInput): boolean {
  return (input.kind === 'ids' || input.kind === 'emails' || input.kind === 'own') && input.file === '-';
}

/**
 * Reads and checks the input, whatever it is: the one place that tells the inputs apart.
 * `selectionSha256`: what binds a selection (its expressions and the projects it runs in);
 * `reviewed`: the plan of --plan, read and checked.
 */
export async function readJobInput(
  ctx: Context,
  input: JobInput,
  o: { skipInvalid?: boolean; selectionSha256?: string; reviewed?: PlanFile },
): Promise<Input> {
  switch (input.kind) {
    case 'plan': {
      const plan = o.reviewed!;
      const keys = plan.input.identifier_keys;
      return listedInput(
        input.file,
        { kind: plan.input.id_kind, sha256: plan.hmac_sha256, ids: keys, requested: keys.length },
        { path: input.file },
      );
    }
    case 'selection':
      return listedInput(inputLabel(input), { kind: 'selection', sha256: o.selectionSha256! }, { stem: 'selection' });
    case 'values':
      return input.read;
    case 'own': {
      // The persons are the kind's to name (JobKind.targets): the input binds the journal by its hash.
      const path = input.file !== undefined && input.file !== '-' ? input.file : undefined;
      return listedInput(input.own.label, { kind: 'person_ids', sha256: input.own.sha256 }, path ? { path } : { stem: input.own.stem });
    }
    case 'addresses':
      return checked(ctx, inlineInput(input.addresses), 'emails', { skipInvalid: o.skipInvalid });
    case 'identifiers':
      return { list: identifierList(input), label: inputLabel(input), stem: 'identifiers' };
    case 'emails':
      return checked(ctx, openInput(ctx, input.file, input.flag), 'emails', { ...input, skipInvalid: o.skipInvalid });
    case 'ids':
      return checked(ctx, openInput(ctx, input.file, input.flag), input.ids, { ...input, skipInvalid: o.skipInvalid });
  }
}

export interface Input {
  list: IdList;
  /** The file's path, "stdin", "--email", the selection, or the plan's path. */
  label: string;
  /** The file's path; undefined for standard input, --email and selections. */
  path?: string;
  /** Names the default journal of an input without a path: stdin, email, selection. */
  stem?: string;
}

/** An input that lists no values (a selection), or whose values were read earlier (a plan). */
export function listedInput(
  label: string,
  list: Partial<IdList> & Pick<IdList, 'kind' | 'sha256'>,
  at: { path?: string; stem?: string },
): Input {
  const empty: IdList = { format: 'lines', ids: [], requested: 0, duplicates: 0, invalidCount: 0, invalid: [], integerCount: 0, ...list };
  return { list: empty, label, ...at };
}

/** Reads the values of a file (or --email) and checks every one. */
async function checked(
  ctx: Context,
  input: Opened,
  kind: IdKind,
  s: { format?: IdsFormat; column?: string; skipInvalid?: boolean },
): Promise<Input> {
  // hogctl's own `persons list -o csv` has `id` (the UUID in lists) and, with --fields, `uuid`.
  const defaultColumns = kind === 'person_ids' ? ['uuid', 'id'] : kind === 'emails' ? ['email'] : ['distinct_id'];
  const onColumn = (name: string) => ctx.info(`reading the ids from the "${name}" column of the CSV header (--column picks another)`);
  // A CSV with a column per kind of identifier (email, distinct_id, person_id) is read as such,
  // unless --column, --distinct-ids or --emails says what the values are.
  const mixed = kind === 'person_ids' && s.column === undefined;
  const cancelled = () => new CancelledError('cancelled; nothing was sent');
  let list: IdList;
  try {
    list = await collectIds(
      readIds(input.source, { label: input.label, path: input.path, format: s.format, column: s.column, defaultColumns, onColumn, mixed }),
      { kind, label: input.label },
    );
  } catch (err) {
    // Ctrl-C or SIGTERM destroyed the stream (a FIFO whose writer never came, a slow pipe).
    if (ctx.deps.signal?.aborted) throw cancelled();
    throw err;
  }
  if (ctx.deps.signal?.aborted) throw cancelled();
  if (list.ids.length === 0 && list.invalidCount === 0) {
    throw new InputError(
      input.label,
      1,
      'no ids in the input (it is empty, or holds only blank lines and comments)',
      'pass the file that holds the ids; nothing was sent',
    );
  }
  if (list.invalidCount > 0) {
    if (!s.skipInvalid) throw invalidInputError(list, input.label);
    if (list.ids.length === 0)
      throw new UsageError(
        `no valid ids in ${input.label}: all ${formatNumber(list.invalidCount)} values are invalid; nothing was sent:\n${listBadValues(list)}`,
      );
    ctx.warn(
      `skipping ${formatNumber(list.invalidCount)} invalid ${plural(list.invalidCount, 'value')} (--skip-invalid); the receipt lists them:\n${listBadValues(list)}`,
    );
  }
  return { list, label: input.label, path: input.path, stem: input.stem };
}

function openInput(ctx: Context, file: string, flag: string): Opened {
  if (file === '-') {
    if (ctx.io.stdin.isTTY) {
      throw new UsageError(
        `${flag} - reads the ${flag === '--emails' ? 'addresses' : 'ids'} from standard input, which is a terminal`,
        `pipe them in (\`${flag} - < ${flag === '--emails' ? 'emails' : 'ids'}.txt\`), or pass the file's path`,
      );
    }
    return { source: ctx.io.stdin as AsyncIterable<Buffer | string>, label: 'stdin', stem: 'stdin' };
  }
  return { source: openInputFile(file, flag, ctx.deps.signal), label: file, path: file };
}

type Opened = { source: AsyncIterable<Buffer | string>; label: string; path?: string; stem?: string };

/** Identifiers of the three kinds given on the command line, as the lookups read a mixed file's:
 * `email:…` (ASCII letters lowered), `distinct_id:…` (as given), `person_id:…` (lowered). */
function identifierList(input: Extract<JobInput, { kind: 'identifiers' }>): IdList {
  const tagged = [
    ...input.emails.map((e) => `email:${e.trim().replace(/[A-Z]+/g, (m) => m.toLowerCase())}`),
    ...input.distinctIds.map((d) => `distinct_id:${d}`),
    ...input.persons.map((p) => `person_id:${p.trim().toLowerCase()}`),
  ];
  const ids = [...new Set(tagged)];
  return {
    kind: 'mixed',
    format: 'lines',
    ids,
    requested: tagged.length,
    duplicates: tagged.length - ids.length,
    invalidCount: 0,
    invalid: [],
    integerCount: 0,
    sha256: idListSha256(ids),
  };
}

/** Values given on the command line, read as lines of a file named "--email". */
function inlineInput(values: string[]): Opened {
  return { source: Readable.from([`${values.join('\n')}\n`]), label: '--email', stem: 'email' };
}
