// Runs a parsed query of the sandbox's HogQL subset over the persons or the events of one
// project, and answers with what HogQLQueryRunner returns (docs/server-contract.md §7, §14.5):
// `columns`, `types` pairs, rows as arrays, and the LIMIT 101 / hasMore paginator when the query has
// no LIMIT of its own. Both tables have the same limits: 100 rows by default, LIMIT clamped to
// 50,000 (posthog/hogql/constants.py).
//
// Values follow the server's conventions: a person's `id` and an event's `uuid` and `person_id`
// are UUID strings, `properties` selected whole is a JSON string, and `properties.x` is a string
// (numbers and booleans come back as their JSON text), or null when absent. Comparisons follow
// ClickHouse where it matters for paging: a string compared with a DateTime64 is read as a
// timestamp (microseconds kept), and NULL sorts last in both directions.
//
// An event's `person_id` reads through the merge overrides (events.ts), as PostHog's
// person_id_override_properties_on_events mode does (posthog/hogql/database/database.py).

import { formatTimestampUs, isUuid, type Person, type SandboxStore } from '../store.js';
import type { EventStore } from '../events.js';
import { columnName, expressions, HogQLError, printExpr, type Expr, type Literal, type SelectColumn, type SelectQuery } from './types.js';

/** HogQLHasMorePaginator: 100 rows by default, one more fetched to know whether there are more. */
export const DEFAULT_RETURNED_ROWS = 100;
/** MAX_SELECT_RETURNED_ROWS of the newest servers. */
export const MAX_SELECT_RETURNED_ROWS = 50_000;

export type Value = Literal | Timestamp | Value[];

/** A DateTime64(6) value: compared by microseconds, rendered as the API renders it. The text is
 * made when first read: a WHERE or ORDER BY on `timestamp` compares the microseconds of every
 * event, and rendering each was a tenth of the CPU of an export's keyset walk. */
export class Timestamp {
  private rendered: string | undefined;

  constructor(
    readonly us: number,
    text?: string,
  ) {
    this.rendered = text;
  }

  get text(): string {
    return (this.rendered ??= formatTimestampUs(this.us));
  }
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
  /** The project's events; without them the `events` table is unknown. */
  events?: EventStore;
  teamId: number;
  /** Counts the rows the query reads, subqueries included (the simulated time, query-limits.ts). */
  read?: { rows: number };
}

/** A row of a table: a person, an event's row index, or one distinct id of a person. */
type Row = Person | number | DistinctIdRow;

interface DistinctIdRow {
  distinctId: string;
  person: Person;
}

/** What a query needs from a table: its columns, their types and values, and its rows. */
interface Table {
  name: string;
  fields: Record<string, string>;
  /** What `SELECT *` expands to. */
  star: string[];
  /** The one column whose keys may be read as `properties.x`. */
  json: string;
  scan(visit: (row: Row) => boolean): void;
  value(row: Row, field: string): Value;
  /** The parsed JSON column of a row. */
  document(row: Row): unknown;
}

const PERSON_FIELDS: Record<string, string> = {
  id: 'UUID',
  created_at: "DateTime64(6, 'UTC')",
  team_id: 'Int64',
  properties: 'String',
  is_identified: 'Bool',
};

function personsTable(store: SandboxStore, teamId: number): Table {
  return {
    name: 'persons',
    fields: PERSON_FIELDS,
    star: ['id', 'created_at', 'team_id', 'properties', 'is_identified'],
    json: 'properties',
    scan(visit) {
      store.readEach(visit);
    },
    value(row, field) {
      const person = row as Person;
      switch (field) {
        case 'id':
          return person.uuid;
        case 'created_at':
          return new Timestamp(person.createdAtUs, person.createdAt);
        case 'team_id':
          return teamId;
        case 'is_identified':
          return person.isIdentified;
        default:
          return JSON.stringify(person.properties);
      }
    },
    document: (row) => (row as Person).properties,
  };
}

/** posthog/hogql/database/schema/person_distinct_ids.py PersonDistinctIdsTable: the current
 * distinct id → person mapping of ClickHouse's person_distinct_id2 (the argMax row by version,
 * kept when not is_deleted). A person revived after a deletion (ingestion.ts) is not in it: its
 * rows lose to the deleted ones until reset_person_distinct_id, as for `persons`. */
const PERSON_DISTINCT_ID_FIELDS: Record<string, string> = {
  team_id: 'Int64',
  distinct_id: 'String',
  person_id: 'UUID',
};

function personDistinctIdsTable(store: SandboxStore, teamId: number): Table {
  return {
    name: 'person_distinct_ids',
    fields: PERSON_DISTINCT_ID_FIELDS,
    star: ['team_id', 'distinct_id', 'person_id'],
    // No JSON column: `x.y` is refused as an unknown field.
    json: '',
    scan(visit) {
      store.readEach((person) => {
        for (const distinctId of person.distinctIds) if (!visit({ distinctId, person })) return false;
        return true;
      });
    },
    value(row, field) {
      const r = row as DistinctIdRow;
      switch (field) {
        case 'team_id':
          return teamId;
        case 'distinct_id':
          return r.distinctId;
        default:
          return r.person.uuid;
      }
    },
    document: () => ({}),
  };
}

/** posthog/hogql/database/schema/events.py EventsTable, the columns the sandbox keeps. */
const EVENT_FIELDS: Record<string, string> = {
  uuid: 'UUID',
  event: 'String',
  properties: 'String',
  timestamp: "DateTime64(6, 'UTC')",
  team_id: 'Int64',
  distinct_id: 'String',
  elements_chain: 'String',
  created_at: "DateTime64(6, 'UTC')",
  $session_id: 'Nullable(String)',
  $window_id: 'Nullable(String)',
  person_id: 'UUID',
};

function eventsTable(events: EventStore, teamId: number): Table {
  // The last row whose properties were parsed: a row's keys are usually read together.
  let parsedRow = -1;
  let parsed: unknown = null;
  const document = (row: Row): unknown => {
    if (row !== parsedRow) {
      parsed = JSON.parse(events.propertiesText(row as number));
      parsedRow = row as number;
    }
    return parsed;
  };
  return {
    name: 'events',
    fields: EVENT_FIELDS,
    // `*` leaves out the lazy person fields (events.py avoid_asterisk_fields).
    star: [
      'uuid',
      'event',
      'properties',
      'timestamp',
      'team_id',
      'distinct_id',
      'elements_chain',
      'created_at',
      '$session_id',
      '$window_id',
    ],
    json: 'properties',
    scan(visit) {
      let going = true;
      events.forEachRow((row) => {
        if (going) going = visit(row);
      });
    },
    value(row, field) {
      const i = row as number;
      switch (field) {
        case 'uuid':
          return events.uuid(i);
        case 'event':
          return events.event(i);
        case 'timestamp':
          return new Timestamp(events.timestamp(i));
        case 'created_at':
          return new Timestamp(events.createdAt(i));
        case 'team_id':
          return teamId;
        case 'distinct_id':
          return events.distinctId(i);
        case 'elements_chain':
          return '';
        case '$session_id':
          return events.sessionId(i);
        case '$window_id':
          return jsonText((document(i) as Record<string, unknown>).$window_id);
        case 'person_id':
          return events.personId(i);
        default:
          return events.propertiesText(i);
      }
    },
    document,
  };
}

/** Aggregate functions: ClickHouse's, as HogQL passes them through. */
const AGGREGATES: Record<string, { min: number; max: number }> = {
  count: { min: 0, max: 1 },
  uniq: { min: 1, max: 1 },
  min: { min: 1, max: 1 },
  max: { min: 1, max: 1 },
  sum: { min: 1, max: 1 },
  avg: { min: 1, max: 1 },
};
/**
 * Date conversions, with HogQL's argument counts (posthog/hogql/functions/clickhouse/conversions.py):
 * toDateTime(String[, ...]) is parseDateTime64BestEffortOrNull (NULL when unreadable), and
 * toDateTime64 converts a DateTime (a string is parsed, or refused, as ClickHouse does).
 */
const DATE_FUNCTIONS: Record<string, { min: number; max: number }> = { toDateTime: { min: 1, max: 2 }, toDateTime64: { min: 1, max: 3 } };
/**
 * String functions. HogQL's lower() is ClickHouse's lower(), which changes ASCII letters only
 * (lowerUTF8() is the Unicode one): 'LEE@EXAMPLE.NET' matches, 'É' stays 'É'. toString() of a
 * UUID or a string is the text, of a DateTime64 the server's rendering. trim() with one argument
 * is ClickHouse's trimBoth, which removes ASCII spaces only (HogQL maps trim and btrim to it:
 * posthog/hogql/functions/clickhouse/strings.py POSTGRESQL_TRIM_FUNCTIONS).
 */
const STRING_FUNCTIONS: Record<string, { min: number; max: number }> = {
  lower: { min: 1, max: 1 },
  trim: { min: 1, max: 1 },
  toString: { min: 1, max: 1 },
};
/**
 * toUUID(x) is `accurateCastOrNull(x, 'UUID')` (posthog/hogql/functions/mapping.py), typed
 * Nullable(UUID): the text of a UUID, or null for anything else. Data deletion queries select it
 * on servers whose `events.uuid` is still a String (data-deletion-query.ts).
 */
const UUID_FUNCTIONS: Record<string, { min: number; max: number }> = { toUUID: { min: 1, max: 1 } };
const FUNCTIONS = { ...DATE_FUNCTIONS, ...STRING_FUNCTIONS, ...UUID_FUNCTIONS };
const KNOWN_FUNCTIONS =
  'count(), uniq(), min(), max(), sum(), avg(), lower(), trim(), toString(), toUUID(), toDateTime() and toDateTime64()';

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

/** Each list placeholder converted once, so that IN can index it (see stringSetOf). */
const convertedLists = new WeakMap<unknown[], Value[]>();
/** The strings of a list of strings, for IN: a row is looked up, not compared with every item. */
const stringSets = new WeakMap<Value[], Set<string> | null>();

function stringSetOf(list: Value[]): Set<string> | null {
  let set = stringSets.get(list);
  if (set === undefined) {
    set = list.every((item) => typeof item === 'string') ? new Set(list as string[]) : null;
    stringSets.set(list, set);
  }
  return set;
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
  const raw = values[name];
  if (!Array.isArray(raw)) return toValue(raw);
  let list = convertedLists.get(raw);
  if (!list) {
    list = raw.map(toValue);
    convertedLists.set(raw, list);
  }
  return list;
}

function jsonText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function isAggregate(e: Expr): boolean {
  return e.kind === 'call' && Object.hasOwn(AGGREGATES, e.name);
}

function containsAggregate(e: Expr): boolean {
  if (isAggregate(e)) return true;
  if (e.kind === 'compare') return containsAggregate(e.left) || containsAggregate(e.right);
  if (e.kind === 'and' || e.kind === 'or' || e.kind === 'tuple') return e.exprs.some(containsAggregate);
  if (e.kind === 'not' || e.kind === 'isNull') return containsAggregate(e.expr);
  if (e.kind === 'call') return e.args.some(containsAggregate);
  return false;
}

function unknownFunction(name: string): HogQLError {
  return new HogQLError(`Unknown function: ${name}. The hogctl sandbox's HogQL subset knows ${KNOWN_FUNCTIONS} only`);
}

/** A row, and the rows of its group when the query aggregates. */
interface Scope {
  row: Row | undefined;
  group?: Row[];
}

class Evaluator {
  private readonly fieldCache = new Map<Expr, string[]>();
  /** Aliases being expanded: inside its own expression (`id AS id`) a name means the column. */
  private readonly expanding = new Set<string>();
  /** Results of `IN (SELECT ...)` subqueries, run once per query. */
  private readonly subqueries = new Map<Expr, Set<string>>();
  /** Calls of constants, with their value; `value` undefined for a call that reads the row. */
  private readonly constants = new Map<Expr, { value: Value | undefined }>();
  /** Each placeholder's value, converted once a query rather than once a row. */
  private readonly placeholders = new Map<string, Value>();

  constructor(
    private readonly input: RunInput,
    private readonly query: SelectQuery,
    private readonly table: Table,
    private readonly aliases: Map<string, Expr>,
  ) {}

  /** The field path inside the table, without a table qualifier. */
  fieldPath(e: Expr & { kind: 'field' }): string[] {
    const cached = this.fieldCache.get(e);
    if (cached) return cached;
    let chain = e.chain;
    const { query, table } = this;
    if (chain.length > 1 && (chain[0] === query.tableAlias || (query.tableAlias === undefined && chain[0] === query.table)))
      chain = chain.slice(1);
    const [head, ...rest] = chain;
    if (!Object.hasOwn(table.fields, head) || (rest.length > 0 && head !== table.json)) {
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
        return path.length > 1 ? 'Nullable(String)' : this.table.fields[path[0]];
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
        if (UUID_FUNCTIONS[e.name]) return 'Nullable(UUID)';
        if (DATE_FUNCTIONS[e.name]) return "DateTime64(6, 'UTC')";
        if (e.name === 'min' || e.name === 'max') return this.typeOf(e.args[0]);
        if (e.name === 'avg') return 'Float64';
        if (e.name === 'sum') return 'Float64';
        return 'UInt64';
      case 'star':
      case 'tuple':
        return 'Tuple';
      default:
        return 'UInt8';
    }
  }

  eval(e: Expr, scope: Scope): Value {
    switch (e.kind) {
      case 'constant':
        return e.value;
      case 'placeholder': {
        let value = this.placeholders.get(e.name);
        if (value === undefined) this.placeholders.set(e.name, (value = placeholderValue(this.input.values, e.name)));
        return value;
      }
      case 'field': {
        // A select alias shadows a column of the same name, as in ClickHouse.
        const alias = this.alias(e);
        if (alias) return this.within(alias, () => this.eval(this.aliases.get(alias)!, scope));
        if (scope.row === undefined) return null;
        return this.field(this.fieldPath(e), scope.row);
      }
      case 'tuple':
        return e.exprs.map((x) => this.eval(x, scope));
      case 'subquery':
        throw new HogQLError('A subquery is only supported on the right of IN');
      case 'not': {
        const v = truthy(this.eval(e.expr, scope));
        return v === null ? null : v ? 0 : 1;
      }
      case 'and': {
        let sawNull = false;
        for (const x of e.exprs) {
          const v = truthy(this.eval(x, scope));
          if (v === false) return 0;
          if (v === null) sawNull = true;
        }
        return sawNull ? null : 1;
      }
      case 'or': {
        let sawNull = false;
        for (const x of e.exprs) {
          const v = truthy(this.eval(x, scope));
          if (v === true) return 1;
          if (v === null) sawNull = true;
        }
        return sawNull ? null : 0;
      }
      case 'isNull': {
        const isNull = this.eval(e.expr, scope) === null;
        return isNull !== e.negated ? 1 : 0;
      }
      case 'compare':
        if ((e.op === 'in' || e.op === 'not in') && e.right.kind === 'subquery') {
          const left = this.eval(e.left, scope);
          if (left === null) return null;
          const found = this.subquery(e.right).has(String(output(left)));
          return found !== (e.op === 'not in') ? 1 : 0;
        }
        return compareOp(e.op, this.eval(e.left, scope), this.eval(e.right, scope));
      case 'call': {
        if (isAggregate(e)) return this.aggregate(e as Expr & { kind: 'call' }, scope);
        if (!FUNCTIONS[e.name]) throw unknownFunction(e.name);
        return this.constant(e) ?? this.call(e, scope);
      }
      case 'star':
        throw new HogQLError('* can only be used as a whole column');
    }
  }

  /**
   * A call of constants (`toDateTime({until})`) is worked out once a query, not once a row: it was
   * parsed again for each of an export's 120,000 events. Undefined for any other call.
   */
  private constant(e: Expr & { kind: 'call' }): Value | undefined {
    let known = this.constants.get(e);
    if (known === undefined) {
      known = { value: isConstant(e) ? this.call(e, { row: undefined }) : undefined };
      this.constants.set(e, known);
    }
    return known.value;
  }

  /** A function of one row's values (FUNCTIONS). */
  private call(e: Expr & { kind: 'call' }, scope: Scope): Value {
    const v = this.eval(e.args[0], scope);
    if (e.name === 'lower')
      return v === null ? null : String(v instanceof Timestamp ? v.text : v).replace(/[A-Z]+/g, (m) => m.toLowerCase());
    if (e.name === 'trim') return v === null ? null : String(v instanceof Timestamp ? v.text : v).replace(/^ +| +$/g, '');
    if (e.name === 'toUUID') return typeof v === 'string' && isUuid(v) ? v.toLowerCase() : null;
    if (e.name === 'toString')
      return v === null ? null : v instanceof Timestamp ? v.text : typeof v === 'object' ? JSON.stringify(output(v)) : String(v);
    if (v === null || v instanceof Timestamp) return v;
    const us = typeof v === 'string' ? parseTimestampUs(v) : typeof v === 'number' ? v * 1e6 : null;
    if (us === null) {
      if (e.name === 'toDateTime') return null;
      throw new HogQLError(`Cannot parse ${JSON.stringify(v)} as DateTime64`);
    }
    return new Timestamp(us, formatTimestampUs(us));
  }

  /** count(), count(x), count(DISTINCT x), uniq, min, max, sum, avg over the scope's group. */
  private aggregate(e: Expr & { kind: 'call' }, scope: Scope): Value {
    const group = scope.group;
    if (group === undefined) throw new HogQLError(`Aggregate function ${e.name}() is not allowed here`);
    const arg = e.args[0];
    if (e.name === 'count' && (arg === undefined || arg.kind === 'star')) return group.length;
    if (containsAggregate(arg)) throw new HogQLError(`Aggregate function ${e.name}() cannot take another aggregate`);
    const values: Value[] = [];
    for (const row of group) {
      const v = this.eval(arg, { row });
      if (v !== null) values.push(v);
    }
    if (e.name === 'count' && !e.distinct) return values.length;
    if (e.name === 'count' || e.name === 'uniq') return new Set(values.map((v) => String(output(v)))).size;
    if (e.name === 'min' || e.name === 'max') {
      let best: Value = null;
      for (const v of values) if (best === null || compareValues(v, best) * (e.name === 'min' ? -1 : 1) > 0) best = v;
      return best;
    }
    const numbers = values.map((v) => (typeof v === 'number' ? v : Number(v)));
    if (numbers.some((n) => Number.isNaN(n))) throw new HogQLError(`Function ${e.name}() takes numbers`);
    const total = numbers.reduce((a, b) => a + b, 0);
    if (e.name === 'sum') return total;
    return numbers.length === 0 ? null : total / numbers.length;
  }

  /** The first column of an `IN (SELECT ...)`, as text, over its own table. */
  private subquery(e: Expr & { kind: 'subquery' }): Set<string> {
    let result = this.subqueries.get(e);
    if (!result) {
      const rows = execute({ ...this.input, query: e.query }, false).rows;
      result = new Set(rows.map((r) => String(r[0])));
      this.subqueries.set(e, result);
    }
    return result;
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

  private field(path: string[], row: Row): Value {
    const [head, ...rest] = path;
    if (rest.length === 0) return this.table.value(row, head);
    let value: unknown = this.table.document(row);
    for (const key of rest) {
      if (value === null || typeof value !== 'object') return null;
      value = Array.isArray(value) ? value[Number(key) - 1] : (value as Record<string, unknown>)[key];
    }
    return jsonText(value);
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
    // A string against a list of strings compares equal only to the same string.
    const strings = typeof left === 'string' && Array.isArray(right) ? stringSetOf(right) : null;
    if (strings) return strings.has(left as string) !== (op === 'not in') ? 1 : 0;
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

function tableFor(input: RunInput, name: string): Table {
  if (name === 'persons') return personsTable(input.store, input.teamId);
  if (name === 'person_distinct_ids') return personDistinctIdsTable(input.store, input.teamId);
  if (name === 'events' && input.events) return eventsTable(input.events, input.teamId);
  throw new HogQLError(
    `Unknown table \`${name}\`. The hogctl sandbox knows the ${input.events ? 'persons, person_distinct_ids and events tables' : 'persons and person_distinct_ids tables'} only`,
  );
}

/** Functions that answer every value, null included, without an error. */
const NEVER_FAIL = new Set(['lower', 'trim', 'toString', 'toUUID', 'toDateTime']);

/** Whether an expression answers every row without an error: a column, a constant, or such
 * functions of them. Select aliases count as failing: what they stand for is not looked at. */
function cannotFail(e: Expr, aliases: Map<string, Expr>): boolean {
  if (e.kind === 'constant' || e.kind === 'placeholder') return true;
  if (e.kind === 'field') return !(e.chain.length === 1 && aliases.has(e.chain[0]));
  return e.kind === 'call' && NEVER_FAIL.has(e.name) && e.args.every((a) => cannotFail(a, aliases));
}

/** Whether an expression can be computed from the GROUP BY keys alone (or is constant). */
function groupedOnly(e: Expr, keys: Set<string>, aliases: Map<string, Expr>): boolean {
  if (keys.has(printExpr(e)) || isAggregate(e)) return true;
  switch (e.kind) {
    case 'constant':
    case 'placeholder':
    case 'subquery':
      return true;
    case 'field':
      if (e.chain.length === 1 && aliases.has(e.chain[0]) && keys.has(e.chain[0])) return true;
      return false;
    case 'compare':
      return groupedOnly(e.left, keys, aliases) && groupedOnly(e.right, keys, aliases);
    case 'and':
    case 'or':
    case 'tuple':
      return e.exprs.every((x) => groupedOnly(x, keys, aliases));
    case 'not':
    case 'isNull':
      return groupedOnly(e.expr, keys, aliases);
    case 'call':
      return e.args.every((x) => groupedOnly(x, keys, aliases));
    default:
      return false;
  }
}

export function runSelect(input: RunInput): QueryResult {
  const { columns, types, rows, paginate } = execute(input, true);
  const result: QueryResult = { columns, types, results: rows, hasMore: null, limit: null, offset: null };
  if (paginate) {
    result.hasMore = rows.length > DEFAULT_RETURNED_ROWS;
    result.results = rows.slice(0, DEFAULT_RETURNED_ROWS);
    result.limit = DEFAULT_RETURNED_ROWS;
    result.offset = input.query.offset ? countArg(input.query.offset, input) : 0;
  }
  return result;
}

/**
 * Every row a query selects, without the default LIMIT or the 50,000 cap: what a data deletion
 * counts and queues ("must not modify the eventual UUID set with an implicit limit",
 * docs/plans/2026-09-03-self-service-event-deletion.md in PostHog/posthog PR #104278).
 */
export function selectAll(input: RunInput): { columns: string[]; types: [string, string][]; rows: unknown[][] } {
  const { columns, types, rows } = execute(input, false);
  return { columns, types, rows };
}

/** A range of event timestamps (µs, inclusive) a WHERE keeps rows in. */
interface TimeRange {
  from: number;
  to: number;
}

function outside(range: TimeRange, us: number): boolean {
  return us < range.from || us > range.to;
}

/**
 * The range that `timestamp <op> <constant>` conditions joined by AND at the top of the WHERE keep:
 * ClickHouse reads no rows outside it (the events table is partitioned and sorted by time), so
 * the simulated time of a query does not count them. Undefined when the WHERE bounds nothing.
 */
function timestampRange(where: Expr | undefined, ev: Evaluator): TimeRange | undefined {
  if (!where) return undefined;
  const range: TimeRange = { from: -Infinity, to: Infinity };
  for (const e of where.kind === 'and' ? where.exprs : [where]) {
    if (e.kind !== 'compare' || !['<', '<=', '>', '>='].includes(e.op)) continue;
    const [field, other, op] = isTimestamp(e.left) ? [e.left, e.right, e.op] : [e.right, e.left, flip(e.op)];
    if (!isTimestamp(field) || !isConstant(other)) continue;
    const value = ev.eval(other, { row: undefined });
    const us = value instanceof Timestamp ? value.us : typeof value === 'string' ? parseTimestampUs(value) : null;
    if (us === null) continue;
    if (op === '<' || op === '<=') range.to = Math.min(range.to, us);
    else range.from = Math.max(range.from, us);
  }
  return range.from === -Infinity && range.to === Infinity ? undefined : range;
}

function isTimestamp(e: Expr): boolean {
  return e.kind === 'field' && e.chain.length === 1 && e.chain[0] === 'timestamp';
}

function isConstant(e: Expr): boolean {
  if (e.kind === 'constant' || e.kind === 'placeholder') return true;
  return e.kind === 'call' && !isAggregate(e) && e.args.every(isConstant);
}

function flip(op: string): string {
  return op.startsWith('<') ? op.replace('<', '>') : op.replace('>', '<');
}

/** Runs one SELECT; only the top level gets the default LIMIT and the 50,000 cap. */
function execute(
  input: RunInput,
  topLevel: boolean,
): { columns: string[]; types: [string, string][]; rows: unknown[][]; paginate: boolean } {
  const { query } = input;
  const table = tableFor(input, query.table);

  // `*` becomes the table's columns; every other column keeps its expression.
  const columns: SelectColumn[] = query.columns.flatMap((c) =>
    c.expr.kind === 'star' ? table.star.map((f) => ({ expr: { kind: 'field', chain: [f] } as Expr })) : [c],
  );
  const aliases = new Map<string, Expr>();
  for (const c of columns) if (c.alias !== undefined) aliases.set(c.alias, c.expr);
  const ev = new Evaluator(input, query, table, aliases);

  // Resolve every field and placeholder up front, so a bad name fails even on an empty table.
  for (const e of expressions(query)) {
    if (e.kind === 'field' && !(e.chain.length === 1 && aliases.has(e.chain[0]))) ev.fieldPath(e);
    if (e.kind === 'placeholder') placeholderValue(input.values, e.name);
    if (e.kind === 'call') {
      const arity = AGGREGATES[e.name] ?? FUNCTIONS[e.name];
      if (!arity) throw unknownFunction(e.name);
      if (e.args.length < arity.min || e.args.length > arity.max) {
        throw new HogQLError(`Function '${e.name}' expects between ${arity.min} and ${arity.max} arguments, found ${e.args.length}`);
      }
    }
    if (e.kind === 'subquery') tableFor(input, e.query.table);
  }
  if (query.where && containsAggregate(query.where)) throw new HogQLError('Aggregate functions are not allowed in WHERE');
  if (query.groupBy.some(containsAggregate)) throw new HogQLError('Aggregate functions are not allowed in GROUP BY');

  let limit = query.limit ? countArg(query.limit, input) : undefined;
  if (limit !== undefined && topLevel) limit = Math.min(limit, MAX_SELECT_RETURNED_ROWS);
  const offset = query.offset ? countArg(query.offset, input) : 0;
  const paginate = topLevel && limit === undefined;
  if (paginate) limit = DEFAULT_RETURNED_ROWS + 1;
  const end = limit === undefined ? Infinity : offset + limit;

  const aggregated = query.groupBy.length > 0 || query.having !== undefined || columns.some((c) => containsAggregate(c.expr));

  // The store yields persons newest first. When the order starts with created_at DESC and nothing
  // aggregates, the rows past the page are older than its last one: the scan stops there (rows
  // of that same created_at are still taken, for the rest of the ORDER BY to decide).
  const first = query.orderBy[0];
  const newestFirst =
    table.name === 'persons' &&
    first !== undefined &&
    first.desc &&
    first.expr.kind === 'field' &&
    first.expr.chain.length === 1 &&
    first.expr.chain[0] === 'created_at' &&
    !aliases.has('created_at');
  const enough = newestFirst && !aggregated ? end : Infinity;
  const matching: Row[] = [];
  let boundaryUs: number | undefined;
  const range = table.name === 'events' ? timestampRange(query.where, ev) : undefined;
  table.scan((row) => {
    if (boundaryUs !== undefined && (row as Person).createdAtUs < boundaryUs) return false;
    if (input.read && !(range && outside(range, input.events!.timestamp(row as number)))) input.read.rows++;
    if (!query.where || truthy(ev.eval(query.where, { row })) === true) {
      matching.push(row);
      if (matching.length === enough) boundaryUs = (row as Person).createdAtUs;
    }
    return true;
  });

  // One scope per output row: each matching row, or each group.
  let scopes: Scope[];
  if (aggregated) {
    const keys = new Set<string>();
    for (const g of query.groupBy) {
      keys.add(printExpr(g));
      // GROUP BY an alias groups by its expression.
      if (g.kind === 'field' && g.chain.length === 1 && aliases.has(g.chain[0])) keys.add(printExpr(aliases.get(g.chain[0])!));
    }
    for (const c of columns) {
      if (!groupedOnly(c.expr, keys, aliases)) {
        throw new HogQLError(`Column \`${columnName(c)}\` is not under an aggregate function and not in GROUP BY`);
      }
    }
    if (query.groupBy.length === 0) scopes = [{ row: matching[0], group: matching }];
    else {
      const groups = new Map<string, Row[]>();
      for (const row of matching) {
        const key = JSON.stringify(query.groupBy.map((g) => output(ev.eval(g, { row }))));
        let rows = groups.get(key);
        if (!rows) groups.set(key, (rows = []));
        rows.push(row);
      }
      scopes = [...groups.values()].map((rows) => ({ row: rows[0], group: rows }));
    }
    if (query.having) scopes = scopes.filter((scope) => truthy(ev.eval(query.having!, scope)) === true);
  } else scopes = matching.map((row) => ({ row }));

  if (query.orderBy.length > 0) {
    // A key after the first is worked out only for rows the keys before it do not tell apart: an
    // export orders 50,000 events by (timestamp, toString(uuid)), and rendering every uuid was a
    // third of the sort.
    const keyed = scopes.map((scope) => ({ scope, keys: new Array<Value | undefined>(query.orderBy.length) }));
    const key = (k: (typeof keyed)[number], i: number): Value => {
      if (!(i in k.keys)) k.keys[i] = ev.eval(query.orderBy[i].expr, k.scope);
      return k.keys[i] as Value;
    };
    // A key that could fail on some row (a conversion, a condition) is still worked out for every row.
    query.orderBy.forEach((o, i) => {
      if (i === 0 || !cannotFail(o.expr, aliases)) keyed.forEach((k) => key(k, i));
    });
    keyed.sort((a, b) => {
      for (let i = 0; i < query.orderBy.length; i++) {
        const c = orderValues(key(a, i), key(b, i), query.orderBy[i].desc);
        if (c !== 0) return c;
      }
      return 0;
    });
    scopes = keyed.map((k) => k.scope);
  }
  const rows = scopes.slice(offset, end).map((scope) => columns.map((c) => output(ev.eval(c.expr, scope))));
  const names = columns.map(columnName);
  return { columns: names, types: columns.map((c, i) => [names[i], ev.typeOf(c.expr)]), rows, paginate };
}
