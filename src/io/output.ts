// Renders records in the output formats of ARCHITECTURE.md §3. Records arrive page by page and are
// written as they come in every format, the terminal table included (its column widths come from
// the first page), so listing stays in constant memory and a long list shows rows at once.
import { UsageError } from '../errors.js';
import { suggest } from '../cli/suggest.js';
import { writeAll, type OutStream } from './streams.js';
import { displayWidth, fitColumns, pad, truncate, visible, wrapValue } from './columns.js';
import { applyFilter, type OutputFilter } from './filter.js';

export const FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
export type Format = (typeof FORMATS)[number];

/** What a command knows about the records it prints. */
export interface RecordShape {
  /** Columns shown when --fields is not given. */
  columns: string[];
  /** Every valid top-level field name; undefined means "whatever the records hold". */
  fields?: string[];
  /** Fields holding free-form objects, so that `properties.<anything>` is accepted. */
  openObjects?: string[];
  /** The fields one record shows as `key: value` lines (default: `columns`, or all it has). */
  recordKeys?: string[];
  /** How a column reads in a terminal table or record, when not as its plain value (e.g. `*` for true). */
  display?: Record<string, (value: unknown) => string>;
}

export interface OutputSettings {
  format: Format;
  fields?: string[];
  color: boolean;
  stdout: OutStream;
  /** The format was asked for (-o, HOGCTL_OUTPUT), not the default: a record, not a summary. */
  chosen?: boolean;
  /** --jq or --template (format is then json): what is printed is the JSON, filtered. */
  filter?: OutputFilter;
  /** --wide: a terminal table shows every column in full, however wide. */
  wide?: boolean;
  /** Where a note about the output goes (columns hidden to fit), stderr in real use. */
  notice?: (message: string) => void;
}

export type Row = Record<string, unknown>;

/** How this output joins others. */
export interface WriterOptions {
  /** False when the output continues an earlier one (`>>`): csv then has no header row, so the
   * two files appended are one CSV. */
  csvHeader?: boolean;
}

export function parseFormat(value: string): Format {
  if ((FORMATS as readonly string[]).includes(value)) return value as Format;
  throw new UsageError(`unknown output format "${value}": use one of ${FORMATS.join(', ')}`);
}

export function parseFields(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const fields = value
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  if (fields.length === 0) throw new UsageError('--fields is empty: give a comma-separated list, e.g. --fields id,name');
  return fields;
}

/** Rejects --fields names the records cannot have, listing the valid ones. */
export function checkFields(fields: string[] | undefined, valid: string[], openObjects: string[] = []): void {
  if (!fields) return;
  const unknown = fields.filter((f) => !valid.includes(f) && !openObjects.some((o) => f.startsWith(`${o}.`)));
  if (unknown.length === 0) return;
  const names = [...valid, ...openObjects.map((o) => `${o}.<key>`)].join(', ');
  const meant = unknown.map((f) => suggest(f, valid) ?? (openObjects.includes('properties') && !f.includes('.') ? `properties.${f}` : f));
  const changed = meant.some((m, i) => m !== unknown[i]);
  throw new UsageError(
    `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => `"${f}"`).join(', ')} for --fields: valid fields are ${names}`,
    // A person's email is one of their properties: `--fields email` means properties.email.
    changed ? `did you mean --fields ${fields.map((f) => meant[unknown.indexOf(f)] ?? f).join(',')}?` : undefined,
  );
}

/** Reads `a.b.c` from a record, preferring a literal key of that name (query columns have dots). */
export function getField(record: Row, path: string): unknown {
  if (path in record) return record[path];
  let value: unknown = record;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Row)[part];
  }
  return value;
}

function isPlainObject(value: unknown): value is Row {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((v) => (isPlainObject(v) ? JSON.stringify(v) : String(v))).join(', ');
  if (isPlainObject(value)) return JSON.stringify(value);
  return String(value);
}

/** A cell on one line: tabs and line breaks become spaces, so columns and `cut -f` stay aligned. */
function lineText(value: unknown): string {
  return cellText(value).replace(/[\t\r\n]+/g, ' ');
}

/**
 * The record cut down to `fields`, keeping the nesting (`properties.email` stays inside
 * `properties`, as `gh --json` does) and with `null` for a missing value, so that jq finds every
 * key. A field that is a literal key of the record (query columns have dots) stays as it is.
 */
export function project(record: Row, fields: string[]): Row {
  const out: Row = {};
  for (const f of fields) {
    const value = getField(record, f) ?? null;
    if (f in record || !f.includes('.')) {
      out[f] = value;
      continue;
    }
    const parts = f.split('.');
    let target = out;
    for (const part of parts.slice(0, -1)) {
      // A copy, so that filling in a null never changes the record itself.
      target[part] = isPlainObject(target[part]) ? { ...target[part] } : {};
      target = target[part] as Row;
    }
    target[parts[parts.length - 1]] = value;
  }
  return out;
}

/**
 * Dotted leaf keys of the object-valued column `column` across `records`, sorted; undefined when
 * no record has a non-empty object there, so the column stays instead of vanishing (persons
 * with `properties: {}` are common).
 */
function flattenKeys(records: Row[], column: string): string[] | undefined {
  const keys = new Set<string>();
  const walk = (value: unknown, prefix: string) => {
    if (isPlainObject(value) && Object.keys(value).length > 0) {
      for (const [k, v] of Object.entries(value)) walk(v, `${prefix}.${k}`);
    } else keys.add(prefix);
  };
  for (const r of records) {
    const value = getField(r, column);
    if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) walk(v, `${column}.${k}`);
  }
  return keys.size > 0 ? [...keys].sort() : undefined;
}

/**
 * Ids, UUIDs and timestamps (`id`, `uuid`, `project_id`, `created_at`) keep their width while any
 * other column can give way: a cut UUID is of no use. Every other column is free text.
 */
function isIdentifier(column: string): boolean {
  return /(^|[._])(id|uuid)$|_at$/.test(column);
}

async function bolder(color: boolean): Promise<(s: string) => string> {
  if (!color) return (s) => s;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return (s) => chalk.bold(s);
}

/** The terminal table's layout, fixed by the first page. */
interface Layout {
  columns: string[];
  widths: number[];
  /** Truncate cells to their width (off with --wide and --fields, which show everything). */
  clip: boolean;
}

/** The JSON `value` through --jq or --template, printed. */
export async function writeFiltered(settings: OutputSettings, filter: OutputFilter, value: unknown): Promise<void> {
  const text = await applyFilter(filter, value, Boolean(settings.stdout.isTTY));
  if (text) await writeAll(settings.stdout, text);
}

export class RecordWriter {
  private columns: string[] | undefined;
  private layout: Layout | undefined;
  private written = 0;
  /**
   * With --jq or --template, the records kept until the end: the expression runs over the whole
   * array, as gh's does over a list, so `length` or `sort_by` see every page of `--all`.
   */
  private readonly kept: Row[] = [];
  private readonly terminal: boolean;

  constructor(
    private readonly settings: OutputSettings,
    private readonly shape: RecordShape,
    private readonly options: WriterOptions = {},
  ) {
    if (shape.fields) checkFields(settings.fields, shape.fields, shape.openObjects);
    this.terminal = Boolean(settings.stdout.isTTY);
  }

  get count(): number {
    return this.written;
  }

  async writePage(records: Row[]): Promise<void> {
    if (records.length === 0) return;
    if (!this.columns) this.columns = this.resolveColumns(records);
    const columns = this.columns;
    const { format } = this.settings;
    const shown = (r: Row) => (this.settings.fields ? project(r, columns) : r);
    let text = '';
    if (this.settings.filter) {
      for (const r of records) this.kept.push(shown(r));
    } else if (format === 'ndjson') {
      for (const r of records) text += `${JSON.stringify(shown(r))}\n`;
    } else if (format === 'json') {
      for (const r of records) {
        text += `${this.written === 0 && text === '' ? '[\n' : ',\n'}  ${JSON.stringify(shown(r))}`;
      }
    } else if (format === 'csv') {
      // The CSV renderer loads only for the format that uses it, to keep json and ndjson
      // commands quick to start.
      const { stringify } = await import('csv-stringify/sync');
      if (this.written === 0 && this.options.csvHeader !== false) text += stringify([columns]);
      text += stringify(records.map((r) => columns.map((c) => csvCell(getField(r, c)))));
    } else if (this.terminal) {
      text += await this.tableRows(records);
    } else {
      for (const r of records) text += `${columns.map((c) => lineText(getField(r, c))).join('\t')}\n`;
    }
    this.written += records.length;
    if (text) await writeAll(this.settings.stdout, text);
  }

  async end(): Promise<void> {
    if (this.settings.filter) return writeFiltered(this.settings, this.settings.filter, this.kept);
    if (this.settings.format === 'json') await writeAll(this.settings.stdout, this.written === 0 ? '[]\n' : '\n]\n');
  }

  private cell(record: Row, column: string): string {
    const display = this.shape.display?.[column];
    const value = getField(record, column);
    return visible(display ? display(value) : lineText(value));
  }

  /**
   * A header row and aligned columns, as `gh` and `kubectl get` print them: no box, no row
   * separators. The first page sizes the columns to the terminal; the widest free-text column
   * gives way first, then columns are left out from the right (a note on stderr says so).
   */
  private async tableRows(records: Row[]): Promise<string> {
    let header = '';
    if (!this.layout) {
      const columns = this.columns ?? [];
      const cells = records.map((r) => columns.map((c) => this.cell(r, c)));
      const natural = columns.map((c, i) => Math.max(displayWidth(c), ...cells.map((row) => displayWidth(row[i]))));
      const clip = !this.settings.wide && !this.settings.fields;
      if (clip) {
        const freeText = columns.map((c) => !isIdentifier(c));
        const fit = fitColumns(columns.map(displayWidth), natural, freeText, this.settings.stdout.columns || 80);
        this.layout = { columns: columns.slice(0, fit.length), widths: fit, clip };
        const hidden = columns.length - fit.length;
        if (hidden > 0) this.settings.notice?.(`(${columns.slice(fit.length).join(', ')} left out to fit: --wide shows all)`);
      } else {
        this.layout = { columns, widths: natural, clip };
      }
      const bold = await bolder(this.settings.color);
      header = `${bold(this.line(this.layout.columns))}\n`;
    }
    return header + records.map((r) => `${this.line(this.layout!.columns.map((c) => this.cell(r, c)))}\n`).join('');
  }

  private line(cells: string[]): string {
    const { widths, clip } = this.layout!;
    const last = cells.length - 1;
    return cells
      .map((text, i) => {
        const fitted = clip ? truncate(text, widths[i]) : text;
        return i === last ? fitted : pad(fitted, widths[i]);
      })
      .join('  ')
      .trimEnd();
  }

  private resolveColumns(firstPage: Row[]): string[] {
    const requested = this.settings.fields;
    if (requested && !this.shape.fields) {
      // Records of unknown shape (raw API answers, query rows) are checked against what came back.
      const present = new Set(firstPage.flatMap((r) => Object.keys(r)));
      const valid = [...present];
      const open = valid.filter((k) => firstPage.some((r) => isPlainObject(r[k])));
      checkFields(requested, valid, open);
    }
    const columns = requested ?? (this.shape.columns.length > 0 ? this.shape.columns : Object.keys(firstPage[0] ?? {}));
    if (this.settings.format !== 'csv') return columns;
    return columns.flatMap((c) => flattenKeys(firstPage, c) ?? [c]);
  }
}

function csvCell(value: unknown): string | number | boolean {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return value as string | number | boolean;
}

/** A value inside an expanded object: scalars as they are, nested values as compact JSON. */
function nestedText(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'object') return JSON.stringify(value);
  return lineText(value);
}

/**
 * The `[key, value]` lines of one record: each field on its line, and an object field (a
 * person's `properties`) expanded one key per line, sorted, as `properties.email` when piped and
 * indented under `properties:` on a terminal.
 */
function recordLines(
  record: Row,
  keys: string[],
  shape: RecordShape,
  terminal: boolean,
): { key: string; value: string; indent: boolean }[] {
  const lines: { key: string; value: string; indent: boolean }[] = [];
  for (const key of keys) {
    const value = getField(record, key);
    const display = shape.display?.[key];
    if (display) {
      lines.push({ key, value: display(value), indent: false });
    } else if (isPlainObject(value) && Object.keys(value).length > 0) {
      const entries = Object.keys(value)
        .sort()
        .map((k) => ({ key: terminal ? k : `${key}.${k}`, value: nestedText(value[k]), indent: terminal }));
      if (terminal) lines.push({ key, value: '', indent: false });
      lines.push(...entries);
    } else {
      lines.push({ key, value: lineText(value), indent: false });
    }
  }
  return lines;
}

/**
 * Prints one record. On a terminal, `key: value` lines with objects expanded; piped,
 * `key<TAB>value` lines (so `| grep api_key` works), or, when --fields picked the fields, their
 * values on one tab-separated line (so `$(hogctl ... --fields id)` is just the id). json is one
 * object; ndjson and csv print it as a one-row list.
 */
export async function writeRecord(settings: OutputSettings, record: Row, shape: RecordShape): Promise<void> {
  if (shape.fields) checkFields(settings.fields, shape.fields, shape.openObjects);
  if (settings.format === 'json') {
    const value = settings.fields ? project(record, settings.fields) : record;
    if (settings.filter) return writeFiltered(settings, settings.filter, value);
    await writeAll(settings.stdout, `${JSON.stringify(value, null, 2)}\n`);
    return;
  }
  const keys = settings.fields ?? (shape.columns.length > 0 ? shape.columns : Object.keys(record));
  const terminal = Boolean(settings.stdout.isTTY);
  if (settings.format === 'table' && (terminal || !settings.fields)) {
    const lines = recordLines(record, settings.fields ?? shape.recordKeys ?? keys, shape, terminal);
    if (!terminal) {
      await writeAll(settings.stdout, lines.map((l) => `${l.key}\t${l.value}\n`).join(''));
      return;
    }
    const bold = await bolder(settings.color);
    const width = Math.max(...lines.filter((l) => !l.indent).map((l) => displayWidth(l.key)));
    const nestedWidth = Math.max(0, ...lines.filter((l) => l.indent).map((l) => displayWidth(l.key)));
    const text = lines
      .map((l) => {
        const key = `${visible(l.key)}:`;
        const value = visible(l.value);
        if (!value) return l.indent ? `  ${key}` : bold(key);
        if (l.indent) return `  ${pad(key, nestedWidth + 1)} ${value}`;
        // A long value (a person's many distinct ids) wraps at its commas, under itself, never mid-id.
        const line = `${key}${' '.repeat(width + 1 - displayWidth(key))} ${value}`;
        const fitted = settings.stdout.columns ? wrapValue(line, width + 2, settings.stdout.columns) : line;
        return bold(key) + fitted.slice(key.length);
      })
      .join('\n');
    await writeAll(settings.stdout, `${text}\n`);
    return;
  }
  const writer = new RecordWriter(settings, { ...shape, columns: keys });
  await writer.writePage([record]);
  await writer.end();
}
