// Rewrites a user's `SELECT ... FROM persons [WHERE ...]` into the pages of a keyset walk
// (docs/server-contract.md §7): personal API keys may not use OFFSET, so every page after the first asks
// for the rows that sort after the last one seen, on `created_at DESC, id DESC`, with the cursor
// passed through `values` placeholders (never spliced into the text).
//
// This is not a HogQL parser: it finds the top-level clauses with a lexer that knows strings,
// quoted names, comments and brackets, and refuses whatever it cannot page safely (its own ORDER
// BY, LIMIT, OFFSET, GROUP BY, aggregates, joins, other tables). The server parses the result.
import { UsageError } from '../errors.js';
import { isUuid } from '../api/uuid.js';

export const CURSOR_CREATED_AT = 'hogctl_cursor_created_at';
export const CURSOR_ID = 'hogctl_cursor_id';
/** The columns added at the end of every page; the caller drops them from the output. */
export const HIDDEN_COLUMNS = 2;

export interface Cursor {
  createdAt: unknown;
  id: unknown;
}

export interface PageQuery {
  query: string;
  values: Record<string, unknown>;
}

export interface KeysetPlan {
  page(pageSize: number, after?: Cursor): PageQuery;
}

interface Token {
  kind: 'word' | 'quoted' | 'string' | 'number' | 'placeholder' | 'punct';
  text: string;
  start: number;
  end: number;
  depth: number;
}

const AGGREGATE =
  /^(count|countIf|countDistinct|sum|sumIf|avg|avgIf|min|minIf|max|maxIf|any|anyIf|anyLast|anyHeavy|uniq\w*|groupArray\w*|groupUniqArray\w*|groupBitmap\w*|argMin\w*|argMax\w*|median\w*|quantile\w*|stddev\w*|var(Pop|Samp)\w*|covar\w*|corr\w*|topK\w*|histogram|sumMap|minMap|maxMap)$/i;
const CLAUSES_AFTER_WHERE = [
  'order',
  'limit',
  'offset',
  'group',
  'having',
  'union',
  'intersect',
  'except',
  'settings',
  'window',
  'qualify',
];
const BETWEEN_FROM_AND_WHERE = [
  'join',
  'inner',
  'left',
  'right',
  'full',
  'cross',
  'array',
  'any',
  'all',
  'asof',
  'semi',
  'anti',
  'global',
  'paste',
  'final',
  'sample',
  'prewhere',
];

function usage(why: string): UsageError {
  return new UsageError(
    `--all cannot page this query: ${why}`,
    '--all pages `SELECT <columns> FROM persons [WHERE <condition>]` by created_at and id (keyset paging); drop --all to run the query as written, with its own LIMIT',
  );
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (text.startsWith('--', i) || text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      if (end === -1) throw usage('a /* comment is not closed');
      i = end + 2;
      continue;
    }
    const start = i;
    let kind: Token['kind'];
    if (c === "'" || c === '"' || c === '`') {
      i++;
      while (i < text.length && text[i] !== c) i += text[i] === '\\' ? 2 : 1;
      if (i >= text.length) throw usage(`a ${c === "'" ? 'string' : 'quoted name'} is not closed`);
      i++;
      kind = c === "'" ? 'string' : 'quoted';
    } else if (/[A-Za-z_$]/.test(c)) {
      i += /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(text.slice(i))![0].length;
      kind = 'word';
    } else if (/[0-9]/.test(c)) {
      i += /^[0-9][0-9A-Za-z_.]*/.exec(text.slice(i))![0].length;
      kind = 'number';
    } else if (c === '{') {
      const close = text.indexOf('}', i);
      if (close === -1) throw usage('a {placeholder} is not closed');
      i = close + 1;
      kind = 'placeholder';
    } else {
      i++;
      kind = 'punct';
      if (c === '(' || c === '[') depth++;
      if (c === ')' || c === ']') depth--;
      if (depth < 0) throw usage(`"${c}" has no opening bracket`);
    }
    tokens.push({
      kind,
      text: text.slice(start, i),
      start,
      end: i,
      depth: kind === 'punct' && (c === '(' || c === '[') ? depth - 1 : depth,
    });
  }
  if (depth !== 0) throw usage('a bracket is not closed');
  return tokens;
}

/** Keywords that may be followed by a bracket without being a function call. */
const NEVER_FUNCTIONS = ['from', 'where', 'union', 'intersect', 'except'];

const lower = (t: Token | undefined) => (t?.kind === 'word' ? t.text.toLowerCase() : undefined);

/** A keyword at the top level: not a field part (`properties.order`) and not a call (`left(...)`). */
function isTopKeyword(tokens: Token[], i: number, words: string[]): boolean {
  const t = tokens[i];
  if (t.depth !== 0 || t.kind !== 'word' || !words.includes(t.text.toLowerCase())) return false;
  const before = tokens[i - 1];
  const after = tokens[i + 1];
  const call = after?.kind === 'punct' && after.text === '(' && !NEVER_FUNCTIONS.includes(t.text.toLowerCase());
  return !(before?.kind === 'punct' && before.text === '.') && !call;
}

function clauseName(t: Token): string {
  const word = t.text.toUpperCase();
  return word === 'ORDER' || word === 'GROUP' ? `${word} BY` : word;
}

function unquote(t: Token): string {
  return t.kind === 'quoted' || t.kind === 'string' ? t.text.slice(1, -1) : t.text;
}

/**
 * A created_at as HogQL returns it (text in the team's time zone, e.g.
 * `2025-01-15T09:00:00.123456+01:00`) as UTC with its microseconds kept:
 * `2025-01-15T08:00:00.123456Z`. Anything else is passed on as it is.
 */
export function utcTime(value: unknown): unknown {
  return (typeof value === 'string' && readTime(value)) || value;
}

function readTime(value: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, sec, frac = '', zone] = m;
  let offsetMinutes = 0;
  if (zone && zone.toUpperCase() !== 'Z') {
    const z = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
    offsetMinutes = (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3] ?? 0));
  }
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec)) - offsetMinutes * 60_000;
  if (Number.isNaN(ms)) return undefined;
  return `${new Date(ms).toISOString().slice(0, 19)}.${frac.padEnd(6, '0').slice(0, 6)}Z`;
}

/** `--after <created_at>,<id>`: where a stopped `--all` continues. */
export function formatCursor(c: Cursor): string {
  return `${String(utcTime(c.createdAt))},${String(c.id)}`;
}

export function parseCursor(raw: string): Cursor {
  const comma = raw.lastIndexOf(',');
  const createdAt = raw.slice(0, comma).trim();
  const id = raw.slice(comma + 1).trim();
  const time = readTime(createdAt);
  if (comma === -1 || !time || !isUuid(id)) {
    throw new UsageError(
      `invalid --after "${raw}": expected <created_at>,<id> as an interrupted --all printed it`,
      'e.g. --after 2025-01-15T08:00:00.123456Z,01900000-aaaa-7bbb-8ccc-000000000001',
    );
  }
  return { createdAt: time, id: id.toLowerCase() };
}

export function planKeyset(query: string, values: Record<string, unknown> = {}): KeysetPlan {
  const tokens = tokenize(query);
  while (tokens.length && tokens[tokens.length - 1].text === ';') tokens.pop();
  checkStart(tokens, query, values);
  const from = theFrom(tokens);
  checkColumns(tokens.slice(1, from));
  const { alias, next } = readTable(tokens, from);
  const where = readWhere(query, tokens, next);
  const selectText = query.slice(tokens[0].end, tokens[from].start).trim();
  return pagesOf(selectText, `FROM persons${alias !== undefined ? ` AS ${alias}` : ''}`, where, values);
}

/** A SELECT, not empty, without DISTINCT or a WITH, that leaves the cursor's names to --all. */
function checkStart(tokens: Token[], query: string, values: Record<string, unknown>): void {
  if (tokens.length === 0) throw usage('the query is empty');
  if (lower(tokens[0]) === 'with') throw usage('WITH (common table expressions) is not supported');
  if (lower(tokens[0]) !== 'select') throw usage('it does not start with SELECT');
  if (['distinct', 'all'].includes(lower(tokens[1]) ?? ''))
    throw usage(`SELECT ${tokens[1].text.toUpperCase()} changes which rows exist, so pages would not add up`);
  for (const name of [CURSOR_CREATED_AT, CURSOR_ID]) {
    if (name in values || query.includes(name)) throw usage(`the name ${name} is taken by --all's own paging`);
  }
}

/** The one top-level FROM, with something selected before it. */
function theFrom(tokens: Token[]): number {
  const froms = tokens.map((_, i) => i).filter((i) => isTopKeyword(tokens, i, ['from']));
  if (froms.length === 0) throw usage('it has no FROM persons');
  if (froms.length > 1) throw usage('it has more than one FROM');
  if (froms[0] === 1) throw usage('it selects no columns');
  return froms[0];
}

/** Columns that page: no aggregate, window or subquery, and no alias hiding id or created_at. */
function checkColumns(select: Token[]): void {
  for (let i = 0; i < select.length; i++) {
    const t = select[i];
    const next = select[i + 1];
    if (t.kind === 'word' && next?.text === '(' && AGGREGATE.test(t.text) && select[i - 1]?.text !== '.') {
      throw usage(`${t.text}() aggregates rows, and aggregates cannot be paged`);
    }
    if (lower(t) === 'over') throw usage('window functions (OVER) cannot be paged');
    if (lower(t) === 'select') throw usage('subqueries are not supported');
    if (lower(t) === 'as' && next && ['id', 'created_at'].includes(unquote(next))) {
      throw usage(`the alias "${unquote(next)}" hides the column --all pages by; choose another alias`);
    }
  }
}

/** `persons`, and its alias if it has one; `next` is the token after them. */
function readTable(tokens: Token[], from: number): { alias: string | undefined; next: number } {
  const table = tokens[from + 1];
  if (table?.text === '(') throw usage('subqueries are not supported');
  if (!table || (table.kind !== 'word' && table.kind !== 'quoted') || unquote(table) !== 'persons') {
    throw usage(`it reads from ${table ? table.text : 'nothing'}, not from persons`);
  }
  let next = from + 2;
  let alias: string | undefined;
  const after = tokens[next];
  if (lower(after) === 'as') {
    alias = tokens[next + 1] && unquote(tokens[next + 1]);
    next += 2;
  } else if (
    after &&
    (after.kind === 'quoted' ||
      (after.kind === 'word' && ![...BETWEEN_FROM_AND_WHERE, 'where', ...CLAUSES_AFTER_WHERE].includes(lower(after)!)))
  ) {
    alias = unquote(after);
    next += 1;
  }
  if (alias !== undefined && !/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(alias))
    throw usage(`the table alias ${JSON.stringify(alias)} is not a plain name`);
  return { alias, next };
}

/** The WHERE condition's text (undefined without one); nothing else may follow FROM persons. */
function readWhere(query: string, tokens: Token[], at: number): string | undefined {
  const rest = tokens[at];
  if (!rest) return undefined;
  if (lower(rest) !== 'where') {
    if (['final', 'sample', 'prewhere'].includes(lower(rest) ?? '')) throw usage(`${rest.text.toUpperCase()} is not supported`);
    if (BETWEEN_FROM_AND_WHERE.includes(lower(rest) ?? '') || rest.text === ',') throw usage('joins and other tables are not supported');
    if (CLAUSES_AFTER_WHERE.includes(lower(rest) ?? '')) throw usage(`it has its own ${clauseName(rest)}`);
    throw usage(`unexpected "${rest.text}" after FROM persons`);
  }
  for (let k = at + 1; k < tokens.length; k++) {
    if (lower(tokens[k]) === 'select') throw usage('subqueries are not supported');
    if (isTopKeyword(tokens, k, CLAUSES_AFTER_WHERE)) throw usage(`it has its own ${clauseName(tokens[k])}`);
  }
  if (at + 1 >= tokens.length) throw usage('WHERE has no condition');
  return query.slice(rest.end, tokens[tokens.length - 1].end).trim();
}

/** The pages: the columns asked for and the cursor's, newest first, after the last row seen. */
function pagesOf(selectText: string, fromText: string, where: string | undefined, values: Record<string, unknown>): KeysetPlan {
  const ts = `{${CURSOR_CREATED_AT}}`;
  const id = `{${CURSOR_ID}}`;
  return {
    page(pageSize, after) {
      const conditions: string[] = [];
      // Each user fragment ends with a newline, so a trailing `-- comment` cannot swallow ours.
      if (where !== undefined) conditions.push(`(\n${where}\n)`);
      // The cursor is typed: HogQL's toDateTime(String) is parseDateTime64BestEffortOrNull, which
      // reads the UTC time with its microseconds; toDateTime64 takes a DateTime only
      // (posthog/hogql/functions/clickhouse/conversions.py). A bare string placeholder would be
      // compared as ClickHouse converts it implicitly, which does not read every ISO form.
      if (after) conditions.push(`(created_at < toDateTime(${ts}) OR (created_at = toDateTime(${ts}) AND id < ${id}))`);
      const text = [
        `SELECT ${selectText}\n, created_at AS ${CURSOR_CREATED_AT}, id AS ${CURSOR_ID}`,
        fromText,
        ...(conditions.length ? [`WHERE ${conditions.join(' AND ')}`] : []),
        'ORDER BY created_at DESC, id DESC',
        `LIMIT ${pageSize}`,
      ].join('\n');
      return {
        query: text,
        values: after ? { ...values, [CURSOR_CREATED_AT]: utcTime(after.createdAt), [CURSOR_ID]: after.id } : { ...values },
      };
    },
  };
}
