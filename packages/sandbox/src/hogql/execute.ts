// Runs a parsed query of the sandbox's HogQL subset over the persons of one project, and answers
// with what HogQLQueryRunner returns (docs/server-contract.md §7): `columns`, `types` pairs, rows as
// arrays, and the LIMIT 101 / hasMore paginator when the query has no LIMIT of its own.
//
// Values follow the server's conventions: `id` is the person's UUID, `properties` selected whole
// is a JSON string, and `properties.x` is a string (numbers and booleans come back as their JSON
// text), or null when the person lacks it. Comparisons follow ClickHouse where it matters for
// paging: a string compared with `created_at` is read as a timestamp (microseconds kept), and
// NULL sorts last in both directions.

import { formatTimestampUs, type Person, type SandboxStore } from '../store.js';
import { columnName, expressions, HogQLError, printExpr, type Expr, type Literal, type SelectColumn, type SelectQuery } from './parse.js';

/** HogQLHasMorePaginator: 100 rows by default, one more fetched to know whether there are more. */
export const DEFAULT_RETURNED_ROWS = 100;
/** MAX_SELECT_RETURNED_ROWS of the newest servers. */
export const MAX_SELECT_RETURNED_ROWS = 50_000;

export type Value = Literal | Timestamp | Value[];

/** A DateTime64(6) value: compared by microseconds, rendered as the API renders it. */
export class Timestamp {
  constructor(
    readonly us: number,
    readonly text: string,
  ) {}
}

export interface QueryResult {
  columns: string[];
  types: [string, string][];
  results: unknown[][];
  hasMore: boolean | null;
  limit: number | null;
  offset: number | null;
}

export interface RunInput {
  query: SelectQuery;
  values: Record<string, unknown>;
  store: SandboxStore;
  teamId: number;
}

const TABLE_FIELDS: Record<string, string> = {
  id: 'UUID',
  created_at: "DateTime64(6, 'UTC')",
  team_id: 'Int64',
  properties: 'String',
  is_identified: 'Bool',
};
/** What `SELECT *` expands to. */
const STAR_FIELDS = ['id', 'created_at', 'team_id', 'properties', 'is_identified'];
const AGGREGATES = new Set(['count']);
/**
 * Date conversions, with HogQL's argument counts (posthog/hogql/functions/clickhouse/conversions.py):
 * toDateTime(String[, ...]) is parseDateTime64BestEffortOrNull (NULL when unreadable), and
 * toDateTime64 converts a DateTime (a string is parsed, or refused, as ClickHouse does).
 */
const DATE_FUNCTIONS: Record<string, { min: number; max: number }> = { toDateTime: { min: 1, max: 2 }, toDateTime64: { min: 1, max: 3 } };
/**
 * String functions. HogQL's lower() is ClickHouse's lower(), which changes ASCII letters only
 * (lowerUTF8() is the Unicode one): 'LEE@EXAMPLE.NET' matches, 'É' stays 'É'.
 */
const STRING_FUNCTIONS: Record<string, { min: number; max: number }> = { lower: { min: 1, max: 1 } };
const FUNCTIONS = { ...DATE_FUNCTIONS, ...STRING_FUNCTIONS };
const KNOWN_FUNCTIONS = 'count(), lower(), toDateTime() and toDateTime64()';

/** `2025-01-15T08:00:00.123456Z`, `2025-01-15 08:00:00`, `2025-01-15`, with an optional offset. */
export function parseTimestampUs(text: string): number | null {
  const m = /^\s*(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?\s*$/i.exec(text);
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(ms)) return null;
  let offsetMinutes = 0;
  if (zone && zone.toUpperCase() !== 'Z') {
    const z = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
    offsetMinutes = (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3] ?? 0));
  }
  const micros = Number(frac.padEnd(6, '0').slice(0, 6));
  return (ms - offsetMinutes * 60_000) * 1000 + micros;
}

function isAggregate(e: Expr): boolean {
  return e.kind === 'call' && AGGREGATES.has(e.name.toLowerCase());
}

function containsAggregate(e: Expr): boolean {
  if (isAggregate(e)) return true;
  if (e.kind === 'compare') return containsAggregate(e.left) || containsAggregate(e.right);
  if (e.kind === 'and' || e.kind === 'or' || e.kind === 'tuple') return e.exprs.some(containsAggregate);
  if (e.kind === 'not' || e.kind === 'isNull') return containsAggregate(e.expr);
  if (e.kind === 'call') return e.args.some(containsAggregate);
  return false;
}

function placeholderValue(values: Record<string, unknown>, name: string): Value {
  if (!Object.prototype.hasOwnProperty.call(values, name)) {
    const known = Object.keys(values);
    throw new HogQLError(
      `Placeholder {${name}} is not available in this context. You can use the following: ${known.length ? known.join(', ') : 'none'}`,
    );
  }
  const toValue = (v: unknown): Value => {
    if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
    if (Array.isArray(v)) return v.map(toValue);
    throw new HogQLError(`Placeholder {${name}} must be a string, number, boolean, null or a list of them`);
  };
  return toValue(values[name]);
}

function jsonText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

class Evaluator {
  private readonly fieldCache = new Map<Expr, string[]>();
  /** Aliases being expanded: inside its own expression (`id AS id`) a name means the column. */
  private readonly expanding = new Set<string>();

  constructor(
    private readonly input: RunInput,
    private readonly aliases: Map<string, Expr>,
  ) {}

  /** The field path inside the persons table, without a table qualifier. */
  fieldPath(e: Expr & { kind: 'field' }): string[] {
    const cached = this.fieldCache.get(e);
    if (cached) return cached;
    let chain = e.chain;
    const { query } = this.input;
    if (chain.length > 1 && (chain[0] === query.tableAlias || (query.tableAlias === undefined && chain[0] === query.table)))
      chain = chain.slice(1);
    const [head, ...rest] = chain;
    if (!(head in TABLE_FIELDS) || (rest.length > 0 && head !== 'properties')) {
      throw new HogQLError(`Unable to resolve field: ${e.chain.join('.')}`);
    }
    this.fieldCache.set(e, chain);
    return chain;
  }

  typeOf(e: Expr): string {
    switch (e.kind) {
      case 'field': {
        const alias = this.alias(e);
        if (alias) return this.within(alias, () => this.typeOf(this.aliases.get(alias)!));
        const path = this.fieldPath(e);
        return path.length > 1 ? 'Nullable(String)' : TABLE_FIELDS[path[0]];
      }
      case 'constant':
      case 'placeholder': {
        const v = e.kind === 'constant' ? e.value : placeholderValue(this.input.values, e.name);
        if (v === null) return 'Nullable(Nothing)';
        if (typeof v === 'string') return 'String';
        if (typeof v === 'boolean') return 'Bool';
        if (typeof v === 'number') return Number.isInteger(v) ? 'Int64' : 'Float64';
        return 'Array(String)';
      }
      case 'call':
        if (STRING_FUNCTIONS[e.name]) return 'Nullable(String)';
        return DATE_FUNCTIONS[e.name] ? "DateTime64(6, 'UTC')" : 'UInt64';
      case 'star':
      case 'tuple':
        return 'Tuple';
      default:
        return 'UInt8';
    }
  }

  eval(e: Expr, person: Person): Value {
    switch (e.kind) {
      case 'constant':
        return e.value;
      case 'placeholder':
        return placeholderValue(this.input.values, e.name);
      case 'field': {
        // A select alias shadows a column of the same name, as in ClickHouse.
        const alias = this.alias(e);
        if (alias) return this.within(alias, () => this.eval(this.aliases.get(alias)!, person));
        return this.field(this.fieldPath(e), person);
      }
      case 'tuple':
        return e.exprs.map((x) => this.eval(x, person));
      case 'not': {
        const v = truthy(this.eval(e.expr, person));
        return v === null ? null : v ? 0 : 1;
      }
      case 'and': {
        let sawNull = false;
        for (const x of e.exprs) {
          const v = truthy(this.eval(x, person));
          if (v === false) return 0;
          if (v === null) sawNull = true;
        }
        return sawNull ? null : 1;
      }
      case 'or': {
        let sawNull = false;
        for (const x of e.exprs) {
          const v = truthy(this.eval(x, person));
          if (v === true) return 1;
          if (v === null) sawNull = true;
        }
        return sawNull ? null : 0;
      }
      case 'isNull': {
        const isNull = this.eval(e.expr, person) === null;
        return isNull !== e.negated ? 1 : 0;
      }
      case 'compare':
        return compareOp(e.op, this.eval(e.left, person), this.eval(e.right, person));
      case 'call': {
        if (!FUNCTIONS[e.name])
          throw new HogQLError(`Unknown function: ${e.name}. The hogctl sandbox's HogQL subset knows ${KNOWN_FUNCTIONS} only`);
        const v = this.eval(e.args[0], person);
        if (e.name === 'lower')
          return v === null ? null : String(v instanceof Timestamp ? v.text : v).replace(/[A-Z]+/g, (m) => m.toLowerCase());
        if (v === null || v instanceof Timestamp) return v;
        const us = typeof v === 'string' ? parseTimestampUs(v) : typeof v === 'number' ? v * 1e6 : null;
        if (us === null) {
          if (e.name === 'toDateTime') return null;
          throw new HogQLError(`Cannot parse ${JSON.stringify(v)} as DateTime64`);
        }
        return new Timestamp(us, formatTimestampUs(us));
      }
      case 'star':
        throw new HogQLError('* can only be used as a whole column');
    }
  }

  private alias(e: Expr & { kind: 'field' }): string | undefined {
    const name = e.chain[0];
    return e.chain.length === 1 && this.aliases.has(name) && !this.expanding.has(name) ? name : undefined;
  }

  private within<T>(alias: string, fn: () => T): T {
    this.expanding.add(alias);
    try {
      return fn();
    } finally {
      this.expanding.delete(alias);
    }
  }

  private field(path: string[], person: Person): Value {
    const [head, ...rest] = path;
    switch (head) {
      case 'id':
        return person.uuid;
      case 'created_at':
        return new Timestamp(person.createdAtUs, person.createdAt);
      case 'team_id':
        return this.input.teamId;
      case 'is_identified':
        return person.isIdentified;
      default: {
        if (rest.length === 0) return JSON.stringify(person.properties);
        let value: unknown = person.properties;
        for (const key of rest) {
          if (value === null || typeof value !== 'object') return null;
          value = Array.isArray(value) ? value[Number(key) - 1] : (value as Record<string, unknown>)[key];
        }
        return jsonText(value);
      }
    }
  }
}

function truthy(v: Value): boolean | null {
  if (v === null) return null;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') {
    if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v) !== 0;
    throw new HogQLError(`Cannot use the string '${v}' as a condition`);
  }
  throw new HogQLError('Cannot use this value as a condition');
}

/** Orders two non-null values the way ClickHouse would after its implicit conversions. */
function compareValues(a: Value, b: Value): number {
  if (a instanceof Timestamp || b instanceof Timestamp) {
    const us = (v: Value): number => {
      if (v instanceof Timestamp) return v.us;
      if (typeof v === 'string') {
        const parsed = parseTimestampUs(v);
        if (parsed === null) throw new HogQLError(`Cannot parse '${v}' as a DateTime64`);
        return parsed;
      }
      if (typeof v === 'number') return v * 1e6;
      throw new HogQLError('Cannot compare a DateTime64 with this value');
    };
    return Math.sign(us(a) - us(b));
  }
  if (Array.isArray(a) || Array.isArray(b)) throw new HogQLError('Cannot compare a list; use IN');
  const num = (v: Literal): number | null =>
    typeof v === 'number'
      ? v
      : typeof v === 'boolean'
        ? Number(v)
        : typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))
          ? Number(v)
          : null;
  if (typeof a === 'number' || typeof b === 'number' || typeof a === 'boolean' || typeof b === 'boolean') {
    const x = num(a as Literal);
    const y = num(b as Literal);
    if (x !== null && y !== null) return Math.sign(x - y);
  }
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function likePattern(pattern: string, insensitive: boolean): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) re += pattern[++i].replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (c === '%') re += '[\\s\\S]*';
    else if (c === '_') re += '[\\s\\S]';
    else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, insensitive ? 'i' : '');
}

function compareOp(op: string, left: Value, right: Value): Value {
  if (op === 'in' || op === 'not in') {
    if (left === null) return null;
    const list = Array.isArray(right) ? right : [right];
    const found = list.some((item) => item !== null && compareValues(left, item) === 0);
    return found !== (op === 'not in') ? 1 : 0;
  }
  if (left === null || right === null) return null;
  if (op.endsWith('like')) {
    const matched = likePattern(String(right), op.endsWith('ilike')).test(left instanceof Timestamp ? left.text : String(left));
    return matched !== op.startsWith('not') ? 1 : 0;
  }
  const c = compareValues(left, right);
  const result = op === '=' ? c === 0 : op === '!=' ? c !== 0 : op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
  return result ? 1 : 0;
}

/** NULL last in either direction, as ClickHouse sorts by default. */
function orderValues(a: Value, b: Value, desc: boolean): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  const c = compareValues(a, b);
  return desc ? -c : c;
}

function output(v: Value): unknown {
  if (v instanceof Timestamp) return v.text;
  if (Array.isArray(v)) return v.map(output);
  return v;
}

function countArg(value: Expr, input: RunInput): number {
  if (value.kind !== 'constant' && value.kind !== 'placeholder') throw new HogQLError(`LIMIT and OFFSET take a number`);
  const v = value.kind === 'constant' ? value.value : placeholderValue(input.values, value.name);
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
    throw new HogQLError(`LIMIT and OFFSET take a whole number, not ${printExpr(value)}`);
  return n;
}

export function runSelect(input: RunInput): QueryResult {
  const { query } = input;
  if (query.table !== 'persons') throw new HogQLError(`Unknown table \`${query.table}\`. The hogctl sandbox knows the persons table only`);

  // `*` becomes the table's columns; every other column keeps its expression.
  const columns: SelectColumn[] = query.columns.flatMap((c) =>
    c.expr.kind === 'star' ? STAR_FIELDS.map((f) => ({ expr: { kind: 'field', chain: [f] } as Expr })) : [c],
  );
  const aliases = new Map<string, Expr>();
  for (const c of columns) if (c.alias !== undefined) aliases.set(c.alias, c.expr);
  const ev = new Evaluator(input, aliases);

  // Resolve every field and placeholder up front, so a bad name fails even on an empty table.
  for (const e of expressions(query)) {
    if (e.kind === 'field' && !(e.chain.length === 1 && aliases.has(e.chain[0]))) ev.fieldPath(e);
    if (e.kind === 'placeholder') placeholderValue(input.values, e.name);
    if (e.kind === 'call' && !isAggregate(e)) {
      const arity = FUNCTIONS[e.name];
      if (!arity) throw new HogQLError(`Unknown function: ${e.name}. The hogctl sandbox's HogQL subset knows ${KNOWN_FUNCTIONS} only`);
      if (e.args.length < arity.min || e.args.length > arity.max) {
        throw new HogQLError(`Function '${e.name}' expects between ${arity.min} and ${arity.max} arguments, found ${e.args.length}`);
      }
    }
  }
  if (query.where && containsAggregate(query.where)) throw new HogQLError('Aggregate functions are not allowed in WHERE');

  let limit = query.limit ? Math.min(countArg(query.limit, input), MAX_SELECT_RETURNED_ROWS) : undefined;
  const offset = query.offset ? countArg(query.offset, input) : 0;
  const paginate = limit === undefined;
  if (paginate) limit = DEFAULT_RETURNED_ROWS + 1;

  // The store yields persons newest first. When the order starts with created_at DESC and nothing
  // aggregates, the rows past the page are older than its last one: the scan stops there (rows
  // of that same created_at are still taken, for the rest of the ORDER BY to decide).
  const first = query.orderBy[0];
  const newestFirst =
    first !== undefined &&
    first.desc &&
    first.expr.kind === 'field' &&
    first.expr.chain.length === 1 &&
    first.expr.chain[0] === 'created_at' &&
    !aliases.has('created_at');
  const enough = newestFirst && !columns.some((c) => containsAggregate(c.expr)) ? offset + limit! : Infinity;
  const matching: Person[] = [];
  let boundaryUs: number | undefined;
  for (const person of input.store) {
    if (boundaryUs !== undefined && person.createdAtUs < boundaryUs) break;
    if (!query.where || truthy(ev.eval(query.where, person)) === true) {
      matching.push(person);
      if (matching.length === enough) boundaryUs = person.createdAtUs;
    }
  }

  let rows: unknown[][];
  const aggregated = columns.some((c) => containsAggregate(c.expr));
  if (aggregated) {
    const bad = columns.find((c) => !isAggregate(c.expr) && c.expr.kind !== 'constant' && c.expr.kind !== 'placeholder');
    if (bad) throw new HogQLError(`Column \`${columnName(bad)}\` is not under an aggregate function and not in GROUP BY`);
    const row = columns.map((c) => {
      if (!isAggregate(c.expr)) return output(ev.eval(c.expr, matching[0] ?? ({} as Person)));
      const args = (c.expr as Expr & { kind: 'call' }).args;
      if (args.length > 1) throw new HogQLError('count() takes at most one argument');
      return args.length === 0 || args[0].kind === 'star' ? matching.length : matching.filter((p) => ev.eval(args[0], p) !== null).length;
    });
    rows = offset === 0 && limit! > 0 ? [row] : [];
  } else {
    let ordered = matching;
    if (query.orderBy.length > 0) {
      const keyed = matching.map((person) => ({ person, keys: query.orderBy.map((o) => ev.eval(o.expr, person)) }));
      keyed.sort((a, b) => {
        for (let i = 0; i < query.orderBy.length; i++) {
          const c = orderValues(a.keys[i], b.keys[i], query.orderBy[i].desc);
          if (c !== 0) return c;
        }
        return 0;
      });
      ordered = keyed.map((k) => k.person);
    }
    rows = ordered.slice(offset, offset + limit!).map((person) => columns.map((c) => output(ev.eval(c.expr, person))));
  }

  const names = columns.map(columnName);
  const result: QueryResult = {
    columns: names,
    types: columns.map((c, i) => [names[i], ev.typeOf(c.expr)]),
    results: rows,
    hasMore: null,
    limit: null,
    offset: null,
  };
  if (paginate) {
    result.hasMore = rows.length > DEFAULT_RETURNED_ROWS;
    result.results = rows.slice(0, DEFAULT_RETURNED_ROWS);
    result.limit = DEFAULT_RETURNED_ROWS;
    result.offset = offset;
  }
  return result;
}
