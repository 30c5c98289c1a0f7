// Reads the values of an ids file: one per line, CSV (one column), a JSON array or NDJSON, from a
// file or stdin. Everything is streamed: a line (or a JSON array element) is the most that is
// ever held, and it is bounded, so a binary file or a 10 MB line is refused with its file and
// line instead of being swallowed. What a value means (UUID, integer id, distinct id) is decided
// later, by validate.ts; here a value only has to exist.
import type { Parser } from 'csv-parse';
import { isUtf8 } from 'node:buffer';
import { UsageError } from '../../errors.js';

export const ID_FORMATS = ['lines', 'csv', 'json', 'ndjson'] as const;
export type IdsFormat = (typeof ID_FORMATS)[number];

/** A value read from the input, or why the entry at that line holds none. In a mixed CSV a value
 * carries the kind of its column. */
export type RawItem = { line: number; value: string; tag?: IdentifierTag } | { line: number; problem: string; raw: string };

/** The kinds of identifier a mixed CSV holds, one column each. */
export type IdentifierTag = 'email' | 'distinct_id' | 'person_id';

/**
 * The columns of a mixed CSV: `email`, `distinct_id` and `person_id` (or `uuid`, or `id`, as
 * hogctl's own lists name it). A header with two or more of these kinds, read without --column,
 * makes every non-empty cell of them an identifier of its column's kind.
 */
export const MIXED_COLUMNS: Record<string, IdentifierTag> = {
  email: 'email',
  distinct_id: 'distinct_id',
  person_id: 'person_id',
  uuid: 'person_id',
  id: 'person_id',
};

export interface ReadOptions {
  /** The name to show in messages: the path as given, or "stdin". */
  label: string;
  /** The path, for picking a format from the extension; undefined for stdin. */
  path?: string;
  format?: IdsFormat;
  column?: string;
  /** Without --column, the CSV columns to take the ids from, first found wins (e.g. uuid, id). */
  defaultColumns?: string[];
  /** Told which column was picked by default, for a note to the user. */
  onColumn?: (column: string) => void;
  /** Without --column, a header naming two kinds of MIXED_COLUMNS is read as mixed identifiers. */
  mixed?: boolean;
  /** Longest accepted line (or JSON element), in bytes. */
  maxLineBytes?: number;
}

export const MAX_LINE_BYTES = 1024 * 1024;

/** Input that cannot be read as ids at all; always names the file and line. */
export class InputError extends UsageError {
  constructor(
    readonly label: string,
    readonly line: number,
    problem: string,
    hint?: string,
  ) {
    super(`${label}:${line}: ${problem}`, hint ?? 'fix the file and run the command again; nothing was sent');
  }
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function kib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

/** A quoted, shortened rendering of a value for messages. */
export function showValue(value: string, max = 60): string {
  const cut = value.length > max ? `${value.slice(0, max)}…` : value;
  return JSON.stringify(cut);
}

function checkNotUtf16(bytes: Buffer, label: string): void {
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    throw new InputError(
      label,
      1,
      'the file is UTF-16 text',
      'save it as UTF-8 (e.g. `iconv -f UTF-16 -t UTF-8`) and run the command again; nothing was sent',
    );
  }
}

function checkBytes(bytes: Buffer, label: string, line: number): void {
  if (line === 1) checkNotUtf16(bytes, label);
  if (bytes.indexOf(0) !== -1)
    throw new InputError(
      label,
      line,
      'binary data (a NUL byte): this is not a text file of ids',
      'pass a text file with one id per line, a CSV, a JSON array or NDJSON; nothing was sent',
    );
  if (!isUtf8(bytes))
    throw new InputError(
      label,
      line,
      'not valid UTF-8 text: this looks like a binary file',
      'pass a UTF-8 text file of ids; nothing was sent',
    );
}

export interface Line {
  line: number;
  text: string;
}

/**
 * Splits a byte stream into lines, batch by batch, without ever holding more than one line plus
 * the chunk in hand. CRLF and a leading UTF-8 BOM are dropped; NUL bytes, invalid UTF-8 and lines
 * over `maxLineBytes` are errors naming the line.
 */
export async function* splitLines(
  source: AsyncIterable<Buffer | string>,
  label: string,
  maxLineBytes = MAX_LINE_BYTES,
): AsyncGenerator<Line[]> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let line = 1;
  const finish = (bytes: Buffer): Line => {
    let b = bytes;
    if (line === 1 && b.subarray(0, 3).equals(UTF8_BOM)) b = b.subarray(3);
    if (b.length > 0 && b[b.length - 1] === 0x0d) b = b.subarray(0, b.length - 1);
    checkBytes(b, label, line);
    return { line: line++, text: b.toString('utf8') };
  };
  for await (const raw of source) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
    const batch: Line[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      if (pendingBytes + (end - start) > maxLineBytes) {
        throw new InputError(
          label,
          line,
          `line longer than ${kib(maxLineBytes)}: an id is never this long`,
          'check that this is the right file (one id per line); nothing was sent',
        );
      }
      if (nl === -1) {
        // Copy, so that the rest of a large chunk is not kept alive by a short tail.
        pending.push(Buffer.from(chunk.subarray(start)));
        pendingBytes += chunk.length - start;
        break;
      }
      const piece = chunk.subarray(start, nl);
      batch.push(finish(pending.length ? Buffer.concat([...pending, piece]) : piece));
      pending = [];
      pendingBytes = 0;
      start = nl + 1;
    }
    if (batch.length) yield batch;
  }
  if (pendingBytes > 0) yield [finish(Buffer.concat(pending))];
}

/** The format from --format, the file extension, or the first character of the content. */
export function detectFormat(options: Pick<ReadOptions, 'format' | 'path' | 'column'>, firstBytes: Buffer): IdsFormat {
  if (options.format) return options.format;
  const ext = /\.([a-z0-9]+)$/i.exec(options.path ?? '')?.[1]?.toLowerCase();
  if (ext === 'csv' || ext === 'tsv') return 'csv';
  if (ext === 'json') return 'json';
  if (ext === 'ndjson' || ext === 'jsonl') return 'ndjson';
  let text = firstBytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const first = /\S/.exec(text)?.[0];
  if (first === '[') return 'json';
  if (first === '{') return 'ndjson';
  if (first === '"' && isJsonString(firstLine(text))) return 'ndjson';
  if (options.column !== undefined || looksLikeCsvHeader(text)) return 'csv';
  return 'lines';
}

function firstLine(text: string): string {
  return /^[^\n]*/.exec(text.replace(/^\s+/, ''))![0].replace(/\r$/, '');
}

/**
 * A line that is one JSON string, as `jq '.uuid'` prints them: NDJSON of strings. An id of a
 * plain list never starts with a quote, and a quoted CSV header (`"id","email"`) is no one string.
 */
function isJsonString(line: string): boolean {
  try {
    return typeof JSON.parse(line) === 'string';
  } catch {
    return false;
  }
}

/**
 * A first line such as `id,uuid,properties.email` (hogctl's own `-o csv`, or a spreadsheet
 * export): several names, none of them an id. A line of one id never holds a comma.
 */
function looksLikeCsvHeader(text: string): boolean {
  const fields = firstLine(text)
    .split(',')
    .map((f) => f.trim().replace(/^"(.*)"$/, '$1'));
  return fields.length > 1 && fields.every((f) => /^[A-Za-z_$][\w.$-]*$/.test(f));
}

/** Re-yields `first` and then the rest of the iterator it came from. */
async function* prepend(first: Buffer | undefined, rest: AsyncIterator<Buffer | string>): AsyncGenerator<Buffer | string> {
  if (first) yield first;
  for (;;) {
    const next = await rest.next();
    if (next.done) return;
    yield next.value;
  }
}

/**
 * The values of an ids source, in batches. Detects the format from the first chunk (unless
 * given), then streams. Structural problems (binary data, an absurd line, JSON that is not an
 * array, a CSV without the column) throw InputError; a single bad entry is yielded as a problem
 * so that every one of them can be listed.
 */
export async function* readIds(source: AsyncIterable<Buffer | string>, options: ReadOptions): AsyncGenerator<RawItem[], IdsFormat> {
  const iterator = source[Symbol.asyncIterator]();
  const head = await iterator.next();
  const first = head.done ? undefined : typeof head.value === 'string' ? Buffer.from(head.value, 'utf8') : head.value;
  const format = detectFormat(options, first ?? Buffer.alloc(0));
  if (options.column !== undefined && format === 'lines') {
    throw new UsageError(
      '--column picks a column of a CSV file or a field of JSON objects, not of a plain list of ids',
      'drop --column, or pass --format csv (or ndjson/json) if the file is one',
    );
  }
  const stream = prepend(first, iterator);
  const max = options.maxLineBytes ?? MAX_LINE_BYTES;
  if (format === 'json') yield* readJsonArray(stream, options, max);
  else if (format === 'csv') yield* readCsv(stream, options, max);
  else if (format === 'ndjson') yield* readNdjson(stream, options, max);
  else yield* readPlainLines(stream, options, max);
  return format;
}

async function* readPlainLines(source: AsyncIterable<Buffer | string>, options: ReadOptions, max: number): AsyncGenerator<RawItem[]> {
  for await (const lines of splitLines(source, options.label, max)) {
    const items: RawItem[] = [];
    for (const { line, text } of lines) {
      const value = text.trim();
      if (value === '' || value.startsWith('#')) continue;
      items.push({ line, value });
    }
    if (items.length) yield items;
  }
}

/** A JSON value read as an id: a string, an integer, or (with --column) that field of an object. */
function jsonItem(value: unknown, line: number, column: string | undefined): RawItem {
  let v = value;
  if (column !== undefined) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      return { line, problem: `expected an object with a "${column}" field`, raw: JSON.stringify(v) ?? String(v) };
    }
    // Own fields only: every object inherits "toString", "constructor" and the like.
    if (!Object.hasOwn(v as object, column)) return { line, problem: `no "${column}" field`, raw: JSON.stringify(v) };
    v = (v as Record<string, unknown>)[column];
  }
  if (typeof v === 'string') return { line, value: v };
  if (typeof v === 'number' && Number.isSafeInteger(v)) return { line, value: String(v) };
  const raw = JSON.stringify(v) ?? String(v);
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && column === undefined) {
    return { line, problem: 'an object, not an id: pass --column <field> to take the id from a field', raw };
  }
  return { line, problem: 'not a string or an integer', raw };
}

async function* readNdjson(source: AsyncIterable<Buffer | string>, options: ReadOptions, max: number): AsyncGenerator<RawItem[]> {
  for await (const lines of splitLines(source, options.label, max)) {
    const items: RawItem[] = [];
    for (const { line, text } of lines) {
      if (text.trim() === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (err) {
        items.push({ line, problem: `not valid JSON (${(err as Error).message})`, raw: text });
        continue;
      }
      items.push(jsonItem(parsed, line, options.column));
    }
    if (items.length) yield items;
  }
}

/** Locates the first byte that is not valid UTF-8, for the error message of a JSON input. */
function firstInvalidUtf8(bytes: Buffer): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    const n = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (n === 0) return i;
    for (let k = 1; k < n; k++) if (i + k >= bytes.length || (bytes[i + k] & 0xc0) !== 0x80) return i;
    i += n;
  }
  return bytes.length;
}

/** The bytes of a multi-byte character cut off at the end of `bytes` (never holds a newline). */
function incompleteTail(bytes: Buffer): Buffer {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 3); i--) {
    const b = bytes[i];
    if ((b & 0xc0) === 0x80) continue;
    const needed = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return bytes.length - i < needed ? Buffer.from(bytes.subarray(i)) : Buffer.alloc(0);
  }
  return Buffer.alloc(0);
}

function countNewlines(bytes: Buffer, end: number): number {
  let n = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < end; i = bytes.indexOf(0x0a, i + 1)) n++;
  return n;
}

/**
 * Text of a byte stream with the line it starts at; NUL bytes and invalid UTF-8 are errors naming
 * their line. Unlike splitLines it allows long lines, because a JSON array is often one line.
 */
async function* decodeText(source: AsyncIterable<Buffer | string>, label: string): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let line = 1;
  let carry: Buffer = Buffer.alloc(0);
  let first = true;
  for await (const raw of source) {
    let chunk = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
    if (first) {
      first = false;
      // Only the BOM test here: two bytes may be half of a character (a UTF-8 BOM is three).
      checkNotUtf16(chunk, label);
      if (chunk.subarray(0, 3).equals(UTF8_BOM)) chunk = chunk.subarray(3);
    }
    const nul = chunk.indexOf(0);
    if (nul !== -1) checkBytes(Buffer.from([0]), label, line + countNewlines(chunk, nul));
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      const joined = Buffer.concat([carry, chunk]);
      checkBytes(Buffer.from([0xff]), label, line + countNewlines(joined, firstInvalidUtf8(joined)));
      throw new Error('unreachable');
    }
    // Keep the bytes of a character cut at the end of the chunk, to locate a later error.
    carry = incompleteTail(chunk);
    line += countNewlines(chunk, chunk.length);
    yield text;
  }
  try {
    const rest = decoder.decode();
    if (rest) yield rest;
  } catch {
    checkBytes(Buffer.from([0xff]), label, line);
  }
}

function describeJsonStart(ch: string): string {
  if (ch === '{') return 'an object';
  if (ch === '"') return 'a string';
  if (ch === 'n') return 'null';
  if (ch === 't' || ch === 'f') return 'a boolean';
  if (/[-0-9]/.test(ch)) return 'a number';
  return `"${ch}"`;
}

/**
 * A JSON array of ids, streamed: a small scanner finds where each element starts and ends
 * (strings, escapes and nesting included) and only one element at a time is parsed and kept.
 */
async function* readJsonArray(source: AsyncIterable<Buffer | string>, options: ReadOptions, max: number): AsyncGenerator<RawItem[]> {
  const scan: ArrayScan = {
    state: 'start',
    line: 1,
    carried: '',
    elementLine: 1,
    depth: 0,
    inString: false,
    escaped: false,
    sawAnything: false,
  };
  for await (const text of decodeText(source, options.label)) {
    const items = scanJsonChunk(scan, text, options, max);
    if (items.length) yield items;
  }
  checkArrayClosed(scan, options.label);
}

const JSON_FIX = 'fix the JSON and run the command again; nothing was sent';

/** Where the scan of a JSON array is, kept from one chunk of text to the next. */
interface ArrayScan {
  /** start: before "["; value-or-end: just after "["; value: after ","; element: inside one (an
   * element runs up to the "," or "]" that ends it); done: after "]". */
  state: 'start' | 'value-or-end' | 'value' | 'element' | 'done';
  line: number;
  /** The start of an element a chunk ended in. */
  carried: string;
  elementLine: number;
  depth: number;
  inString: boolean;
  escaped: boolean;
  sawAnything: boolean;
}

/** The elements that end in one chunk of text, parsed; the one it ends in is carried over. */
function scanJsonChunk(scan: ArrayScan, text: string, options: ReadOptions, max: number): RawItem[] {
  const items: RawItem[] = [];
  let elementStart = scan.state === 'element' ? 0 : -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (scan.state === 'element') {
      if (elementEnds(scan, c)) {
        items.push(parseElement(scan.carried + text.slice(elementStart, i), scan.elementLine, options));
        scan.carried = '';
        scan.state = c === 0x5d ? 'done' : 'value';
      }
      continue;
    }
    if (c === 0x0a) {
      scan.line++;
      continue;
    }
    if (c === 0x20 || c === 0x09 || c === 0x0d) continue;
    scan.sawAnything = true;
    if (elementStarts(scan, text[i], options.label)) {
      elementStart = i;
      i--; // scan this character again as the element's first
    }
  }
  if (scan.state === 'element') {
    scan.carried += text.slice(elementStart);
    if (scan.carried.length > max)
      throw new InputError(
        options.label,
        scan.elementLine,
        `array element longer than ${kib(max)}: an id is never this long`,
        'check that this is the right file; nothing was sent',
      );
  }
  return items;
}

/** One character inside an element: whether it is the "," or "]" that ends it (outside strings
 * and nested arrays or objects). */
function elementEnds(scan: ArrayScan, c: number): boolean {
  if (c === 0x0a) scan.line++;
  if (scan.inString) {
    if (scan.escaped) scan.escaped = false;
    else if (c === 0x5c) scan.escaped = true;
    else if (c === 0x22) scan.inString = false;
  } else if (c === 0x22) scan.inString = true;
  else if (c === 0x5b || c === 0x7b) scan.depth++;
  else if ((c === 0x5d || c === 0x7d) && scan.depth > 0) scan.depth--;
  else if ((c === 0x5d || c === 0x2c) && scan.depth === 0) return true;
  return false;
}

/** One character between elements (not a space): the array's brackets and commas, or whether an
 * element starts here. Anything else out of place is an input error. */
function elementStarts(scan: ArrayScan, ch: string, label: string): boolean {
  if (scan.state === 'start') {
    if (ch !== '[') {
      throw new InputError(
        label,
        scan.line,
        `expected a JSON array of ids, found ${describeJsonStart(ch)}`,
        'give a JSON array such as ["id1", "id2"], one id per line, CSV (--column) or NDJSON; nothing was sent',
      );
    }
    scan.state = 'value-or-end';
  } else if (scan.state === 'done') {
    throw new InputError(label, scan.line, 'unexpected text after the end of the JSON array', JSON_FIX);
  } else if (ch === ']' && scan.state === 'value-or-end') {
    scan.state = 'done';
  } else if (ch === ']' || ch === ',') {
    throw new InputError(label, scan.line, `invalid JSON: unexpected "${ch}" in the array`, JSON_FIX);
  } else {
    Object.assign(scan, { state: 'element', elementLine: scan.line, depth: 0, inString: false, escaped: false });
    return true;
  }
  return false;
}

function parseElement(raw: string, line: number, options: ReadOptions): RawItem {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new InputError(options.label, line, `invalid JSON in the array (${(err as Error).message})`, JSON_FIX);
  }
  return jsonItem(parsed, line, options.column);
}

/** At the end of the input: an empty file, or an array not closed, is an input error. */
function checkArrayClosed(scan: ArrayScan, label: string): void {
  if (!scan.sawAnything)
    throw new InputError(label, 1, 'the file is empty: there are no ids to delete', 'pass the file that holds the ids; nothing was sent');
  if (scan.state !== 'done')
    throw new InputError(
      label,
      scan.line,
      'the JSON array is not closed (the file ends before "]")',
      'the file may have been cut short; nothing was sent',
    );
}

/** The identifier columns of a mixed CSV header, or undefined when it names fewer than two kinds. */
function mixedColumns(header: string[]): { index: number; tag: IdentifierTag }[] | undefined {
  const found = new Map<IdentifierTag, number>();
  for (const name of Object.keys(MIXED_COLUMNS)) {
    const index = header.findIndex((h) => h.toLowerCase() === name);
    const tag = MIXED_COLUMNS[name];
    if (index !== -1 && !found.has(tag)) found.set(tag, index);
  }
  if (found.size < 2) return undefined;
  return [...found].map(([tag, index]) => ({ tag, index })).sort((a, b) => a.index - b.index);
}

async function* readCsv(source: AsyncIterable<Buffer | string>, options: ReadOptions, max: number): AsyncGenerator<RawItem[]> {
  const { label, column } = options;
  const { parse } = await import('csv-parse');
  const delimiter = /\.tsv$/i.test(options.path ?? '') ? '\t' : ',';
  const parser = parse({ delimiter, relax_column_count: true, skip_empty_lines: true, info: true });
  const cols: CsvColumns = { index: -1, delimiter };
  let failure: Error | undefined;
  parser.on('error', (err) => (failure = err));
  const check = () => throwIfCsvFailed((parser as unknown as { errored?: Error | null }).errored ?? failure, label);
  for await (const lines of splitLines(source, label, max)) {
    let text = '';
    for (const l of lines) text += `${l.text}\n`;
    parser.write(text);
    check();
    const items = drainCsv(parser, cols, options);
    if (items.length) yield items;
  }
  await new Promise<void>((resolve) => {
    parser.once('finish', resolve);
    parser.once('error', () => resolve());
    parser.once('close', resolve);
    parser.end();
  });
  check();
  const items = drainCsv(parser, cols, options);
  if (items.length) yield items;
  if (cols.index === -1 && column !== undefined)
    throw new InputError(label, 1, 'the file is empty: there are no ids to delete', 'pass the file that holds the ids; nothing was sent');
}

/** Which columns of a CSV hold the ids, known once its header is read (index -1 until then). */
interface CsvColumns {
  index: number;
  /** In a mixed CSV: the column of each kind (the first of uuid, person_id, id for person ids). */
  tagged?: { index: number; tag: IdentifierTag }[];
  delimiter: string;
}

function throwIfCsvFailed(err: Error | null | undefined, label: string): void {
  if (err) {
    const at = (err as { lines?: number }).lines ?? 1;
    throw new InputError(
      label,
      at,
      `not valid CSV (${err.message.replace(/^[A-Za-z ]+: /, '').replace(/ at line \d+$/, '')})`,
      'fix the CSV and run the command again; nothing was sent',
    );
  }
}

/** The records the parser holds: the header first (choosing the columns), then ids. */
function drainCsv(parser: Parser, cols: CsvColumns, options: ReadOptions): RawItem[] {
  const items: RawItem[] = [];
  for (let rec = parser.read(); rec !== null; rec = parser.read()) {
    const { record, info } = rec as { record: string[]; info: { lines: number } };
    if (cols.tagged) {
      const row = cols.tagged.filter((t) => (record[t.index] ?? '').trim() !== '');
      if (row.length === 0)
        items.push({ line: info.lines, problem: 'the row has no identifier in any column', raw: record.join(cols.delimiter) });
      for (const t of row) items.push({ line: info.lines, value: record[t.index], tag: t.tag });
      continue;
    }
    if (cols.index === -1) {
      readCsvHeader(record, cols, options, info.lines);
      continue;
    }
    const value = record[cols.index];
    if (value === undefined)
      items.push({ line: info.lines, problem: `the row has no "${options.column ?? 'id'}" column`, raw: record.join(cols.delimiter) });
    else items.push({ line: info.lines, value });
  }
  return items;
}

/** The header names the id column: --column, else a mixed header's columns, else the first of
 * the default columns found. */
function readCsvHeader(record: string[], cols: CsvColumns, options: ReadOptions, line: number): void {
  const { column } = options;
  const header = record.map((h) => h.trim());
  if (column === undefined && options.mixed) {
    cols.tagged = mixedColumns(header);
    if (cols.tagged) {
      cols.index = cols.tagged[0].index;
      options.onColumn?.(cols.tagged.map((t) => header[t.index]).join(', '));
      return;
    }
  }
  cols.index = column === undefined ? defaultCsvColumn(header, options, line) : namedCsvColumn(header, column, options.label, line);
}

function defaultCsvColumn(header: string[], options: ReadOptions, line: number): number {
  for (const name of options.defaultColumns ?? []) {
    const index = header.findIndex((h) => h.toLowerCase() === name);
    if (index !== -1) {
      options.onColumn?.(header[index]);
      return index;
    }
  }
  throw new InputError(
    options.label,
    line,
    `a CSV file needs --column <name> to say which column holds the ids (columns: ${header.join(', ')})`,
    'pass e.g. --column ' + (header[0] || 'id'),
  );
}

/** --column as written, else the one named so but for case and spaces. */
function namedCsvColumn(header: string[], column: string, label: string, line: number): number {
  let index = header.indexOf(column);
  if (index === -1) index = header.findIndex((h) => h.toLowerCase() === column.trim().toLowerCase());
  if (index === -1) {
    throw new InputError(
      label,
      line,
      `no column "${column}" in the CSV header (columns: ${header.map((h) => `"${h}"`).join(', ')})`,
      'pass the name of the column that holds the ids with --column; nothing was sent',
    );
  }
  return index;
}
