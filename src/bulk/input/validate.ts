// Decides what each value of an ids file is, before anything is sent: person UUIDs are kept (in
// lower case, so that case variants count as duplicates), integer person ids are kept to be
// resolved to UUIDs (bulk_delete matches UUIDs only), e-mail addresses (--emails) are kept with
// their ASCII letters lowered, as they are matched, and anything else is a bad value unless the
// values are distinct ids. In a mixed CSV each value is checked as its column's kind and kept as
// `<kind>:<value>`. Duplicates are dropped and counted; the SHA-256 of the sorted unique list is
// what a receipt and a journal are bound to.
import { createHash } from 'node:crypto';
import { UsageError } from '../../errors.js';
import { showValue, type IdentifierTag, type IdsFormat, type RawItem } from './read-ids.js';
import { isUuid } from '../../api/uuid.js';
import { lowerAscii } from './identifiers.js';
import { IdSet, type Ids } from './id-set.js';
import { formatNumber, plural } from '../../io/counts.js';

/** What the values of the input are; `selection` has none: --where, --cohort or --query chose the persons. */
export type IdKind = 'person_ids' | 'distinct_ids' | 'emails' | 'mixed' | 'selection';

/** An address: something@something, no white space; the server decides whether any person has it. */
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export interface BadValue {
  file: string;
  line: number;
  value: string;
  reason: string;
}

export interface IdList {
  kind: IdKind;
  format: IdsFormat;
  /** Unique valid values in the order they first appear, compactly (16 bytes a UUID, id-set.ts):
   * ten million of them as strings would be 640 MB. */
  ids: Ids;
  /** Values read, bad ones and duplicates included. */
  requested: number;
  duplicates: number;
  invalidCount: number;
  /** The first bad values (at most `keepInvalid`). */
  invalid: BadValue[];
  /** How many of `ids` are integer person ids that need resolving. */
  integerCount: number;
  /** SHA-256 of the sorted unique ids, one per line, each followed by "\n". */
  sha256: string;
}

const INTEGER = /^\+?\d+$/;

export function isIntegerId(value: string): boolean {
  return INTEGER.test(value) && !isUuid(value);
}

const TAG_KIND: Record<IdentifierTag, IdKind> = { email: 'emails', distinct_id: 'distinct_ids', person_id: 'person_ids' };

/** A mixed identifier, `email:lee@example.net`, taken apart. */
export function splitTagged(id: string): { tag: IdentifierTag; value: string } {
  const at = id.indexOf(':');
  return { tag: id.slice(0, at) as IdentifierTag, value: id.slice(at + 1) };
}

const MAX_EMAIL_LENGTH = 254;
/** A first line such as `email`, `E-mail address` or `mail`: a column's name, not an address. */
const HEADER_WORD = /^[\w -]*\be-?mail\b[\w -]*$/i;

/** The value to send (or resolve) for one entry, or why it cannot be a person id. */
export function classify(value: string, kind: IdKind, tag?: IdentifierTag): { id: string } | { reason: string } {
  if (tag) {
    const verdict = classify(value, TAG_KIND[tag]);
    return 'id' in verdict ? { id: `${tag}:${verdict.id}` } : { reason: `${verdict.reason} (column ${tag})` };
  }
  if (kind === 'distinct_ids') {
    return value === '' ? { reason: 'empty' } : { id: value };
  }
  const v = value.trim();
  if (v === '') return { reason: 'empty' };
  if (kind === 'emails') {
    // RFC 5321 §4.5.3.1: a path holds at most 256 octets, so an address at most 254 characters.
    if (v.length > MAX_EMAIL_LENGTH)
      return {
        reason: `not an e-mail address: ${formatNumber(v.length)} characters, and an address has at most ${MAX_EMAIL_LENGTH}`,
      };
    if (!EMAIL.test(v)) return { reason: HEADER_WORD.test(v) ? 'not an e-mail address (a header?)' : 'not an e-mail address' };
    return { id: lowerAscii(v) };
  }
  if (isUuid(v)) return { id: v.toLowerCase() };
  if (INTEGER.test(v)) {
    const n = BigInt(v.replace(/^\+/, ''));
    if (n < 1n || n > 9223372036854775807n) return { reason: 'not a valid person id (integer ids start at 1)' };
    return { id: n.toString() };
  }
  return { reason: 'not a person UUID or integer id' };
}

export interface ValidateOptions {
  kind: IdKind;
  label: string;
  /** How many bad values to keep for the receipt. */
  keepInvalid?: number;
}

/** Reads every batch of `items` and returns the validated list; memory is the unique ids, 16
 * bytes a UUID (in place of an array and a Set of strings). */
export async function collectIds(items: AsyncGenerator<RawItem[], IdsFormat>, options: ValidateOptions): Promise<IdList> {
  const keep = options.keepInvalid ?? 10_000;
  const seen = new IdSet();
  const invalid: BadValue[] = [];
  let requested = 0;
  let duplicates = 0;
  let invalidCount = 0;
  let integerCount = 0;
  // A CSV read as mixed identifiers says so with the first value it yields.
  let kind = options.kind;
  let format: IdsFormat = 'lines';
  for (;;) {
    const next = await items.next();
    if (next.done) {
      format = next.value;
      break;
    }
    for (const item of next.value) {
      requested++;
      if ('tag' in item && item.tag) kind = 'mixed';
      const verdict = 'value' in item ? classify(item.value, options.kind, 'tag' in item ? item.tag : undefined) : { reason: item.problem };
      if ('reason' in verdict) {
        invalidCount++;
        if (invalid.length < keep)
          invalid.push({ file: options.label, line: item.line, value: 'value' in item ? item.value : item.raw, reason: verdict.reason });
        continue;
      }
      if (!seen.add(verdict.id)) {
        duplicates++;
        continue;
      }
      const personId = verdict.id.startsWith('person_id:') ? verdict.id.slice(10) : kind === 'person_ids' ? verdict.id : null;
      if (personId !== null && isIntegerId(personId)) integerCount++;
    }
  }
  return { kind, format, ids: seen, requested, duplicates, invalidCount, invalid, integerCount, sha256: idListSha256(seen) };
}

/** SHA-256 of the sorted ids, one per line: `LC_ALL=C sort -u ids.txt | sha256sum` for a clean file. */
export function idListSha256(ids: readonly string[] | IdSet): string {
  // An IdSet gives its ids sorted one at a time; an array is sorted in a copy.
  const sorted = ids instanceof IdSet ? ids.sorted() : [...ids].sort();
  const hash = createHash('sha256');
  // Hash in slices so that no single multi-megabyte string is built.
  let slice: string[] = [];
  for (const id of sorted) {
    slice.push(id);
    if (slice.length === 4096) {
      hash.update(`${slice.join('\n')}\n`);
      slice = [];
    }
  }
  if (slice.length) hash.update(`${slice.join('\n')}\n`);
  return hash.digest('hex');
}

/** Bad values as the lines of an error message: the first `show`, then how many more. */
export function listBadValues(list: Pick<IdList, 'invalid' | 'invalidCount'>, show = 20): string {
  const lines = list.invalid.slice(0, show).map((b) => `  ${b.file}:${b.line}: ${showValue(b.value)}: ${b.reason}`);
  if (list.invalidCount > show) lines.push(`  … and ${formatNumber(list.invalidCount - show)} more`);
  return lines.join('\n');
}

/** The refusal when bad values were found and --skip-invalid was not given. */
export function invalidInputError(list: IdList, label: string): UsageError {
  const n = list.invalidCount;
  const header = list.invalid[0]?.line === 1 && /\(a header\?\)$/.test(list.invalid[0].reason);
  const hint = header
    ? `line 1 looks like a header: pass --format csv --column ${list.invalid[0]!.value.trim()} to read the file as a CSV column (or name it .csv)`
    : list.kind === 'person_ids'
      ? 'fix or remove them; pass --distinct-ids if these are distinct ids, --emails if they are e-mail addresses, or --skip-invalid to send the valid ones and list these in the receipt'
      : 'fix or remove them, or pass --skip-invalid to send the valid ones and list these in the receipt';
  return new UsageError(`${formatNumber(n)} invalid ${plural(n, 'value')} in ${label}; nothing was sent:\n${listBadValues(list)}`, hint);
}
