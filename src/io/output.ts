// Renders records in the output formats of design.md §3. Records arrive page by page and are
// written as they come (json, ndjson, csv and plain lines), so listing stays in constant memory;
// only the terminal table waits for the end, because cli-table3 needs every row to size columns.
import { UsageError } from '../errors.js';
import { writeAll, type OutStream } from './streams.js';

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
}

export interface OutputSettings {
  format: Format;
  fields?: string[];
  color: boolean;
  stdout: OutStream;
}

export type Row = Record<string, unknown>;

export function parseFormat(value: string): Format {
  if ((FORMATS as readonly string[]).includes(value)) return value as Format;
  throw new UsageError(`unknown output format "${value}": use one of ${FORMATS.join(', ')}`);
}

export function parseFields(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const fields = value.split(',').map((f) => f.trim()).filter(Boolean);
  if (fields.length === 0) throw new UsageError('--fields is empty: give a comma-separated list, e.g. --fields id,name');
  return fields;
}

/** Rejects --fields names the records cannot have, listing the valid ones. */
export function checkFields(fields: string[] | undefined, valid: string[], openObjects: string[] = []): void {
  if (!fields) return;
  const unknown = fields.filter((f) => !valid.includes(f) && !openObjects.some((o) => f.startsWith(`${o}.`)));
  if (unknown.length === 0) return;
  const names = [...valid, ...openObjects.map((o) => `${o}.<key>`)].join(', ');
  throw new UsageError(
    `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => `"${f}"`).join(', ')} for --fields: valid fields are ${names}`,
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

function project(record: Row, fields: string[]): Row {
  const out: Row = {};
  for (const f of fields) out[f] = getField(record, f);
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

async function tableRenderer(color: boolean) {
  const [{ default: Table }, { Chalk }] = await Promise.all([import('cli-table3'), import('chalk')]);
  const chalk = new Chalk({ level: color ? 1 : 0 });
  return { Table, bold: (s: string) => chalk.bold(s) };
}

export class RecordWriter {
  private columns: string[] | undefined;
  private readonly buffered: Row[] = [];
  private written = 0;
  private readonly terminal: boolean;

  constructor(
    private readonly settings: OutputSettings,
    private readonly shape: RecordShape,
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
    let text = '';
    if (format === 'ndjson') {
      for (const r of records) text += `${JSON.stringify(this.settings.fields ? project(r, columns) : r)}\n`;
    } else if (format === 'json') {
      for (const r of records) {
        text += `${this.written === 0 && text === '' ? '[\n' : ',\n'}  ${JSON.stringify(this.settings.fields ? project(r, columns) : r)}`;
      }
    } else if (format === 'csv') {
      // The table and CSV renderers load only for the formats that use them, to keep json and
      // ndjson commands quick to start.
      const { stringify } = await import('csv-stringify/sync');
      if (this.written === 0) text += stringify([columns]);
      text += stringify(records.map((r) => columns.map((c) => csvCell(getField(r, c)))));
    } else if (this.terminal) {
      this.buffered.push(...records);
    } else {
      for (const r of records) text += `${columns.map((c) => cellText(getField(r, c)).replace(/[\t\r\n]+/g, ' ')).join('\t')}\n`;
    }
    this.written += records.length;
    if (text) await writeAll(this.settings.stdout, text);
  }

  async end(): Promise<void> {
    const { format } = this.settings;
    if (format === 'json') await writeAll(this.settings.stdout, this.written === 0 ? '[]\n' : '\n]\n');
    if (format === 'table' && this.terminal && this.buffered.length > 0) {
      const columns = this.columns ?? [];
      const { Table, bold } = await tableRenderer(this.settings.color);
      const table = new Table({
        head: columns.map((c) => bold(c)),
        style: { head: [], border: [] },
      });
      for (const r of this.buffered) table.push(columns.map((c) => cellText(getField(r, c))));
      await writeAll(this.settings.stdout, `${table.toString()}\n`);
    }
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

/** Prints one record: a two-column table on a terminal, otherwise the same as a one-row list. */
export async function writeRecord(settings: OutputSettings, record: Row, shape: RecordShape): Promise<void> {
  if (settings.format === 'json') {
    if (shape.fields) checkFields(settings.fields, shape.fields, shape.openObjects);
    const value = settings.fields ? project(record, settings.fields) : record;
    await writeAll(settings.stdout, `${JSON.stringify(value, null, 2)}\n`);
    return;
  }
  if (settings.format === 'table' && settings.stdout.isTTY) {
    if (shape.fields) checkFields(settings.fields, shape.fields, shape.openObjects);
    const { Table, bold } = await tableRenderer(settings.color);
    const table = new Table({ style: { head: [], border: [] } });
    const keys = settings.fields ?? Object.keys(record);
    for (const k of keys) table.push({ [bold(k)]: cellText(getField(record, k)) });
    await writeAll(settings.stdout, `${table.toString()}\n`);
    return;
  }
  const writer = new RecordWriter(settings, { ...shape, columns: shape.columns.length ? shape.columns : Object.keys(record) });
  await writer.writePage([record]);
  await writer.end();
}
