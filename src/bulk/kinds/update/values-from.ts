// `persons bulk-update --values-from <file>`: each person's own values. A CSV (with a header) or
// NDJSON (one object a line) names a person in one column (person_id, uuid or id; distinct_id;
// or email, first found, or --column) and gives the values in the others: a column is a property.
// CSV cells are typed as `--set` types a value (30 is a number, true a boolean, null null, JSON
// stays JSON, anything else text); an empty cell sets nothing. NDJSON values are taken as they
// are. The file is the job's input too: its identifier column chooses the persons, read and
// checked whole before anything is sent, like any other input. Several rows may name one person
// and add properties to each other; two that give one property two values are an input error
// naming both lines (which one is meant cannot be guessed).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { UsageError } from '../../../errors.js';
import { fileError } from '../../../config/secret-file.js';
import { parseSetValue } from '../../../api/set-value.js';
import { parseCsvRecords } from '../../../io/csv-records.js';
import { InputError } from '../../input/read-ids.js';
import { sameValue } from '../../engine/same-value.js';
import { classify, idListSha256, listBadValues, type BadValue, type IdKind, type IdList } from '../../input/validate.js';
import { formatNumber } from '../../../io/counts.js';

/** The identifier columns, first found wins, and what their values are. */
const ID_COLUMNS: [string, IdKind][] = [
  ['person_id', 'person_ids'],
  ['uuid', 'person_ids'],
  ['id', 'person_ids'],
  ['distinct_id', 'distinct_ids'],
  ['email', 'emails'],
];

export interface PerPersonValues {
  /** The identifiers, as a file of ids would give them. */
  list: IdList;
  /** The identifier column. */
  column: string;
  /** The properties of each identifier (as the list names it); a later row may add properties to
   * an earlier one, never give one of them another value. */
  values: Map<string, Record<string, unknown>>;
  /** The property columns. */
  properties: string[];
  /** SHA-256 of the file's bytes: a changed file is another job. */
  sha256: string;
}

export async function readValues(path: string, o: { column?: string; skipInvalid?: boolean } = {}): Promise<PerPersonValues> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw fileError(err, path, 'read');
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const ndjson = /\.(nd)?jsonl?$/i.test(path) || text.trimStart().startsWith('{');
  // Rows are made as they are read, twice (once for the columns, once for the values): a
  // million of them kept as objects would be a gigabyte.
  const rows = ndjson ? ndjsonRows(text, path) : await csvRows(text, path);
  const seen = new Set<string>();
  let count = 0;
  for (const row of rows()) {
    count++;
    for (const name of Object.keys(row.values)) seen.add(name);
  }
  if (count === 0)
    throw new InputError(path, 1, 'no rows: the file holds no person', 'pass the file of per-person values; nothing was sent');
  const names = [...seen];
  const column = o.column ?? ID_COLUMNS.find(([name]) => names.includes(name))?.[0];
  if (column === undefined || !names.includes(column)) {
    throw new InputError(
      path,
      1,
      column === undefined
        ? `no column names the persons (columns: ${names.join(', ')})`
        : `no column "${column}" (columns: ${names.join(', ')})`,
      'name them in a person_id, distinct_id or email column, or say which with --column; nothing was sent',
    );
  }
  const kind = ID_COLUMNS.find(([name]) => name === column)?.[1] ?? 'person_ids';
  const properties = names.filter((name) => name !== column);
  if (properties.length === 0)
    throw new InputError(path, 1, `no column besides "${column}": no value to set`, 'add a column per property; nothing was sent');

  const values = new Map<string, Record<string, unknown>>();
  /** The line of each person's first row; and, for a person of several rows, where each of its
   * properties was given (a map for each of a million persons would be most of the memory). */
  const firstLine = new Map<string, number>();
  const givenAt = new Map<string, Map<string, number>>();
  const invalid: BadValue[] = [];
  let invalidCount = 0;
  let duplicates = 0;
  let integerCount = 0;
  for (const row of rows()) {
    const raw = row.values[column];
    const verdict = typeof raw === 'string' || typeof raw === 'number' ? classify(String(raw), kind) : { reason: 'empty' };
    if ('reason' in verdict) {
      invalidCount++;
      if (invalid.length < 10_000) invalid.push({ file: path, line: row.line, value: String(raw ?? ''), reason: verdict.reason });
      continue;
    }
    const own: Record<string, unknown> = {};
    for (const key of properties) {
      if (!(key in row.values)) continue;
      const value = row.values[key];
      if (ndjson) own[key] = value;
      else if (value !== '') own[key] = parseSetValue(String(value));
    }
    const earlier = values.get(verdict.id);
    if (!earlier) {
      firstLine.set(verdict.id, row.line);
      if (kind === 'person_ids' && /^\d+$/.test(verdict.id)) integerCount++;
      values.set(verdict.id, own);
      continue;
    }
    duplicates++;
    let lines = givenAt.get(verdict.id);
    if (!lines) {
      const first = firstLine.get(verdict.id)!;
      givenAt.set(verdict.id, (lines = new Map(Object.keys(earlier).map((key) => [key, first]))));
    }
    for (const [key, value] of Object.entries(own)) {
      // Two rows that give one person two values: which one is meant cannot be guessed.
      if (key in earlier && !sameValue(earlier[key], value))
        throw new InputError(
          path,
          row.line,
          `lines ${lines.get(key)} and ${row.line} give ${verdict.id} different values of ${key} (${JSON.stringify(earlier[key])} and ${JSON.stringify(value)})`,
          'keep one value of each property per person; nothing was sent',
        );
      if (!lines.has(key)) lines.set(key, row.line);
    }
    values.set(verdict.id, { ...earlier, ...own });
  }
  // The strings the values' map holds already (an IdSet would make each again as it is read).
  const ids = [...values.keys()];
  const list: IdList = {
    kind,
    format: ndjson ? 'ndjson' : 'csv',
    ids,
    requested: count,
    duplicates,
    invalidCount,
    invalid,
    integerCount,
    sha256: idListSha256(ids),
  };
  if (invalidCount && !o.skipInvalid) {
    throw new UsageError(
      `${formatNumber(invalidCount)} rows of ${path} name no person; nothing was sent:\n${listBadValues(list)}`,
      'fix them, or pass --skip-invalid to change the others and list these in the receipt',
    );
  }
  return { list, column, values, properties, sha256 };
}

interface Row {
  line: number;
  values: Record<string, unknown>;
}

/** The rows of an NDJSON text, made as they are read (each call reads the text again). */
function ndjsonRows(text: string, path: string): () => Generator<Row> {
  return function* () {
    let line = 0;
    for (let at = 0; at < text.length;) {
      const nl = text.indexOf('\n', at);
      const end = nl === -1 ? text.length : nl;
      const source = text.slice(at, end);
      at = end + 1;
      line++;
      if (source.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(source);
      } catch {
        throw new InputError(path, line, 'not a JSON line', 'each line must be one JSON object; nothing was sent');
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        throw new InputError(
          path,
          line,
          'not a JSON object',
          'each line must be one object of a person, e.g. {"email": "lee@example.net", "plan": "team"}',
        );
      yield { line, values: value as Record<string, unknown> };
    }
  };
}

/** The rows of a CSV text, each made from its record as it is read. */
async function csvRows(text: string, path: string): Promise<() => Generator<Row>> {
  let records: { record: string[]; line: number }[];
  try {
    records = await parseCsvRecords(text);
  } catch (err) {
    throw new InputError(path, (err as { lines?: number }).lines ?? 1, `not valid CSV (${(err as Error).message})`);
  }
  const [header] = records;
  const names = header ? header.record.map((h) => h.trim()) : [];
  return function* () {
    for (let i = 1; i < records.length; i++) {
      const { record, line } = records[i];
      yield { line, values: Object.fromEntries(names.map((name, k) => [name, record[k] ?? ''])) };
    }
  };
}
