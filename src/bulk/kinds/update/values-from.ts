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
  const { count, column, kind, properties } = chooseColumns(rows, path, o.column);
  const read = gatherValues(rows, path, { column, kind, properties, ndjson });
  // The strings the values' map holds already (an IdSet would make each again as it is read).
  const ids = [...read.values.keys()];
  const list: IdList = {
    kind,
    format: ndjson ? 'ndjson' : 'csv',
    ids,
    requested: count,
    duplicates: read.duplicates,
    invalidCount: read.invalidCount,
    invalid: read.invalid,
    integerCount: read.integerCount,
    sha256: idListSha256(ids),
  };
  if (read.invalidCount && !o.skipInvalid) {
    throw new UsageError(
      `${formatNumber(read.invalidCount)} rows of ${path} name no person; nothing was sent:\n${listBadValues(list)}`,
      'fix them, or pass --skip-invalid to change the others and list these in the receipt',
    );
  }
  return { list, column, values: read.values, properties, sha256 };
}

/** How the file's columns are read: which names the persons (and what it holds), which are properties. */
interface Columns {
  column: string;
  kind: IdKind;
  properties: string[];
  ndjson: boolean;
}

/** The rows counted, the identifier column (given, or the first of ID_COLUMNS found) and the
 * property columns; a file without persons, or without a value to set, is refused. */
function chooseColumns(rows: () => Generator<Row>, path: string, given: string | undefined): Omit<Columns, 'ndjson'> & { count: number } {
  const seen = new Set<string>();
  let count = 0;
  for (const row of rows()) {
    count++;
    for (const name of Object.keys(row.values)) seen.add(name);
  }
  if (count === 0)
    throw new InputError(path, 1, 'no rows: the file holds no person', 'pass the file of per-person values; nothing was sent');
  const names = [...seen];
  const column = given ?? ID_COLUMNS.find(([name]) => names.includes(name))?.[0];
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
  return { count, column, kind, properties };
}

/** Each person's values over every row, and the rows that name no one. */
interface Gathered {
  values: Map<string, Record<string, unknown>>;
  /** The line of each person's first row; and, for a person of several rows, where each of its
   * properties was given (a map for each of a million persons would be most of the memory). */
  firstLine: Map<string, number>;
  givenAt: Map<string, Map<string, number>>;
  invalid: BadValue[];
  invalidCount: number;
  duplicates: number;
  integerCount: number;
}

function gatherValues(rows: () => Generator<Row>, path: string, c: Columns): Gathered {
  const g: Gathered = {
    values: new Map(),
    firstLine: new Map(),
    givenAt: new Map(),
    invalid: [],
    invalidCount: 0,
    duplicates: 0,
    integerCount: 0,
  };
  for (const row of rows()) {
    const raw = row.values[c.column];
    const verdict = typeof raw === 'string' || typeof raw === 'number' ? classify(String(raw), c.kind) : { reason: 'empty' };
    if ('reason' in verdict) {
      g.invalidCount++;
      if (g.invalid.length < 10_000) g.invalid.push({ file: path, line: row.line, value: String(raw ?? ''), reason: verdict.reason });
      continue;
    }
    const own = ownValues(row, c);
    const earlier = g.values.get(verdict.id);
    if (!earlier) {
      g.firstLine.set(verdict.id, row.line);
      if (c.kind === 'person_ids' && /^\d+$/.test(verdict.id)) g.integerCount++;
      g.values.set(verdict.id, own);
      continue;
    }
    g.duplicates++;
    g.values.set(verdict.id, mergeRow(g, path, row.line, verdict.id, earlier, own));
  }
  return g;
}

/** The properties one row gives: NDJSON's as they are, CSV cells typed as `--set` types them
 * (an empty cell sets nothing). */
function ownValues(row: Row, c: Columns): Record<string, unknown> {
  const own: Record<string, unknown> = {};
  for (const key of c.properties) {
    if (!(key in row.values)) continue;
    const value = row.values[key];
    if (c.ndjson) own[key] = value;
    else if (value !== '') own[key] = parseSetValue(String(value));
  }
  return own;
}

/** A later row of a person adds its properties to the earlier ones'; noting where each was given. */
function mergeRow(
  g: Gathered,
  path: string,
  line: number,
  id: string,
  earlier: Record<string, unknown>,
  own: Record<string, unknown>,
): Record<string, unknown> {
  let lines = g.givenAt.get(id);
  if (!lines) {
    const first = g.firstLine.get(id)!;
    g.givenAt.set(id, (lines = new Map(Object.keys(earlier).map((key) => [key, first]))));
  }
  for (const [key, value] of Object.entries(own)) {
    // Two rows that give one person two values: which one is meant cannot be guessed.
    if (key in earlier && !sameValue(earlier[key], value))
      throw new InputError(
        path,
        line,
        `lines ${lines.get(key)} and ${line} give ${id} different values of ${key} (${JSON.stringify(earlier[key])} and ${JSON.stringify(value)})`,
        'keep one value of each property per person; nothing was sent',
      );
    if (!lines.has(key)) lines.set(key, line);
  }
  return { ...earlier, ...own };
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
