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
import { UsageError } from '../errors.js';
import { fileError } from '../config/secret-file.js';
import { parseSetValue } from '../api/set-value.js';
import { parseCsvRecords } from '../io/csv-records.js';
import { InputError } from './read-ids.js';
import { sameValue } from './update-verify.js';
import { classify, idListSha256, listBadValues, type BadValue, type IdKind, type IdList } from './validate.js';
import { formatNumber } from '../io/counts.js';

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
  const rows = ndjson ? readNdjson(text, path) : await readCsv(text, path);
  if (rows.length === 0)
    throw new InputError(path, 1, 'no rows: the file holds no person', 'pass the file of per-person values; nothing was sent');
  const names = [...new Set(rows.flatMap((r) => Object.keys(r.values)))];
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
  /** Where each person's value of each property was given: the line. */
  const givenAt = new Map<string, Map<string, number>>();
  const invalid: BadValue[] = [];
  let invalidCount = 0;
  let duplicates = 0;
  let integerCount = 0;
  for (const row of rows) {
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
    const lines = givenAt.get(verdict.id) ?? new Map<string, number>();
    for (const [key, value] of Object.entries(own)) {
      // Two rows that give one person two values: which one is meant cannot be guessed.
      if (earlier && key in earlier && !sameValue(earlier[key], value))
        throw new InputError(
          path,
          row.line,
          `lines ${lines.get(key)} and ${row.line} give ${verdict.id} different values of ${key} (${JSON.stringify(earlier[key])} and ${JSON.stringify(value)})`,
          'keep one value of each property per person; nothing was sent',
        );
      if (!lines.has(key)) lines.set(key, row.line);
    }
    givenAt.set(verdict.id, lines);
    if (earlier) duplicates++;
    else if (kind === 'person_ids' && /^\d+$/.test(verdict.id)) integerCount++;
    values.set(verdict.id, { ...earlier, ...own });
  }
  const ids = [...values.keys()];
  const list: IdList = {
    kind,
    format: ndjson ? 'ndjson' : 'csv',
    ids,
    requested: rows.length,
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

function readNdjson(text: string, path: string): Row[] {
  const rows: Row[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new InputError(path, i + 1, 'not a JSON line', 'each line must be one JSON object; nothing was sent');
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new InputError(
        path,
        i + 1,
        'not a JSON object',
        'each line must be one object of a person, e.g. {"email": "lee@example.net", "plan": "team"}',
      );
    rows.push({ line: i + 1, values: value as Record<string, unknown> });
  });
  return rows;
}

async function readCsv(text: string, path: string): Promise<Row[]> {
  let records: { record: string[]; line: number }[];
  try {
    records = await parseCsvRecords(text);
  } catch (err) {
    throw new InputError(path, (err as { lines?: number }).lines ?? 1, `not valid CSV (${(err as Error).message})`);
  }
  const [header, ...body] = records;
  if (!header) return [];
  const names = header.record.map((h) => h.trim());
  return body.map(({ record, line }) => ({
    line,
    values: Object.fromEntries(names.map((name, i) => [name, record[i] ?? ''])),
  }));
}
