// PostHog's HogQL AST, as its grammar's parser gives it (posthog-grammar.ts: the nodes of
// posthog/hogql/ast.py as JSON, `{"node": "SelectQuery", …}`), converted to the subset the sandbox
// runs (types.ts, docs/server-contract.md §7, §14.5). What PostHog parses but the sandbox cannot
// run is a HogQLError naming the construct; nothing is dropped silently: a clause or field this
// module does not know is refused too, so a newer grammar cannot widen a query unseen.

import { HogQLError, type CompareOp, type Expr, type Literal, type OrderItem, type SelectColumn, type SelectQuery } from './types.js';

/** One node of PostHog's AST: its class name in `node`, its fields beside it. */
export interface PostHogNode {
  node: string;
  [field: string]: unknown;
}

const SUBSET =
  'SELECT ... FROM persons|person_distinct_ids|events [WHERE ...] [GROUP BY ...] [HAVING ...] [ORDER BY ...] [LIMIT n] [OFFSET m]';

function unsupported(what: string): HogQLError {
  return new HogQLError(`${what} is not supported by the hogctl sandbox's HogQL subset (${SUBSET})`);
}

/** A field is set when PostHog's JSON has it with a value: null, false and [] mean "absent". */
function isSet(value: unknown): boolean {
  return value !== null && value !== undefined && value !== false && !(Array.isArray(value) && value.length === 0);
}

/** Refuses every field of `node` that is set and is not in `handled`, by the name `names` gives it. */
function refuseOthers(node: PostHogNode, handled: ReadonlySet<string>, names: Record<string, string>): void {
  for (const [field, value] of Object.entries(node)) {
    if (!handled.has(field) && isSet(value)) throw unsupported(names[field] ?? `${node.node}.${field}`);
  }
}

const SELECT_FIELDS = new Set(['node', 'select', 'select_from', 'where', 'group_by', 'having', 'order_by', 'limit', 'offset']);
const SELECT_CLAUSES: Record<string, string> = {
  ctes: 'WITH',
  distinct: 'SELECT DISTINCT',
  prewhere: 'PREWHERE',
  qualify: 'QUALIFY',
  window_exprs: 'WINDOW',
  limit_by: 'LIMIT BY',
  limit_with_ties: 'LIMIT ... WITH TIES',
  array_join_op: 'ARRAY JOIN',
  array_join_list: 'ARRAY JOIN',
  settings: 'SETTINGS',
  group_by_mode: 'GROUP BY ALL',
};

/** The whole query: one SELECT (a UNION, INTERSECT or EXCEPT of several is outside the subset). */
export function fromPostHogAst(root: PostHogNode): SelectQuery {
  if (root.node === 'SelectSetQuery') {
    const [first] = (root.subsequent_select_queries as { set_operator?: string }[] | undefined) ?? [];
    throw unsupported((first?.set_operator ?? 'UNION').split(' ')[0]);
  }
  if (root.node !== 'SelectQuery') throw unsupported(root.node);
  return selectQuery(root);
}

function selectQuery(node: PostHogNode): SelectQuery {
  refuseOthers(node, SELECT_FIELDS, SELECT_CLAUSES);
  if (!isSet(node.select_from)) throw unsupported('SELECT without FROM');
  const query: SelectQuery = {
    columns: (node.select as PostHogNode[]).map(column),
    ...source(node.select_from as PostHogNode),
    groupBy: ((node.group_by as PostHogNode[] | null) ?? []).map(expr),
    orderBy: ((node.order_by as PostHogNode[] | null) ?? []).map(orderItem),
  };
  if (isSet(node.where)) query.where = expr(node.where as PostHogNode);
  if (isSet(node.having)) query.having = expr(node.having as PostHogNode);
  if (isSet(node.limit)) query.limit = expr(node.limit as PostHogNode);
  if (isSet(node.offset)) query.offset = expr(node.offset as PostHogNode);
  return query;
}

const JOIN_FIELDS = new Set(['node', 'table', 'alias']);
const JOIN_CLAUSES: Record<string, string> = {
  next_join: 'JOIN',
  join_type: 'JOIN',
  constraint: 'JOIN',
  sample: 'SAMPLE',
  table_final: 'FINAL',
  table_args: 'A table function',
  column_aliases: 'Column aliases of a table',
};

/** FROM: one table by name, with or without an alias. */
function source(from: PostHogNode): { table: string; tableAlias?: string } {
  refuseOthers(from, JOIN_FIELDS, JOIN_CLAUSES);
  const table = from.table as PostHogNode;
  if (table.node === 'SelectQuery' || table.node === 'SelectSetQuery') throw unsupported('A subquery');
  if (table.node !== 'Field') throw unsupported(`FROM ${table.node}`);
  const name = (table.chain as (string | number)[]).join('.');
  return typeof from.alias === 'string' ? { table: name, tableAlias: from.alias } : { table: name };
}

function column(node: PostHogNode): SelectColumn {
  if (node.node === 'Alias') return { expr: expr(node.expr as PostHogNode), alias: node.alias as string };
  return { expr: expr(node) };
}

function orderItem(node: PostHogNode): OrderItem {
  return { expr: expr(node.expr as PostHogNode), desc: node.order === 'DESC' };
}

/** What the refusal calls a node of PostHog's AST that the subset has no place for. */
const CONSTRUCTS: Record<string, string> = {
  ArithmeticOperation: 'Arithmetic',
  BetweenExpr: 'BETWEEN',
  WindowFunction: 'Window functions',
  Array: 'An array',
  ArrayAccess: 'Array access',
  TupleAccess: 'Tuple access',
  Lambda: 'A lambda',
  Alias: 'An alias inside an expression',
  SelectSetQuery: 'UNION',
  Dict: 'A dictionary',
  ExprCall: 'Calling an expression',
  HogQLXTag: 'A HogQLX tag',
};

function expr(node: PostHogNode): Expr {
  switch (node.node) {
    case 'Field':
      return field(node.chain as (string | number)[]);
    case 'Constant':
      return constant(node.value);
    case 'Placeholder':
      return placeholder(node);
    case 'CompareOperation':
      return compare(node);
    case 'And':
    case 'Or':
      return { kind: node.node === 'And' ? 'and' : 'or', exprs: (node.exprs as PostHogNode[]).map(expr) };
    case 'Not':
      return { kind: 'not', expr: expr(node.expr as PostHogNode) };
    case 'Call':
      return call(node);
    case 'Tuple':
      return { kind: 'tuple', exprs: (node.exprs as PostHogNode[]).map(expr) };
    case 'SelectQuery':
      return { kind: 'subquery', query: selectQuery(node) };
    default:
      throw unsupported(CONSTRUCTS[node.node] ?? node.node);
  }
}

/** `*` alone is every column; `t.*` is outside the subset. */
function field(chain: (string | number)[]): Expr {
  if (chain.length === 1 && chain[0] === '*') return { kind: 'star' };
  if (chain[chain.length - 1] === '*') throw unsupported('table.*');
  return { kind: 'field', chain: chain.map(String) };
}

function constant(value: unknown): Expr {
  if (value === undefined || value === null) return { kind: 'constant', value: null };
  if (['string', 'number', 'boolean'].includes(typeof value)) return { kind: 'constant', value: value as Literal };
  throw unsupported(`The constant ${JSON.stringify(value)}`);
}

/**
 * `{name}` and `{variables.code_name}`: PostHog's placeholder holds the expression between the
 * braces, and only a plain field chain names one (posthog/hogql/placeholders.py refuses any other
 * expression with these words).
 */
function placeholder(node: PostHogNode): Expr {
  if (typeof node.field === 'string') return { kind: 'placeholder', name: node.field };
  const inner = node.expr as PostHogNode | undefined;
  if (inner?.node !== 'Field') throw new HogQLError('Placeholder expressions are not yet supported');
  return { kind: 'placeholder', name: (inner.chain as (string | number)[]).join('.') };
}

/** PostHog's comparison operators (ast.CompareOperationOp) the sandbox evaluates, by its own names. */
const COMPARE_OPS: Record<string, CompareOp> = {
  '==': '=',
  '!=': '!=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
  like: 'like',
  ilike: 'ilike',
  'not like': 'not like',
  'not ilike': 'not ilike',
  in: 'in',
  'not in': 'not in',
};

function compare(node: PostHogNode): Expr {
  const left = expr(node.left as PostHogNode);
  // `x IS [NOT] NULL` is PostHog's `x == NULL` (`!=`), marked as written in the IS style.
  if (node.is_null_comparison_style === true && (node.op === '==' || node.op === '!='))
    return { kind: 'isNull', expr: left, negated: node.op === '!=' };
  const op = COMPARE_OPS[node.op as string];
  if (op === undefined) throw unsupported(`The ${String(node.op)} comparison`);
  return { kind: 'compare', op, left, right: expr(node.right as PostHogNode) };
}

/** Aggregates that take DISTINCT in the subset. */
const DISTINCT_CALLS = new Set(['count', 'uniq']);

/** A function call. `not(x)`, `and(…)` and `or(…)` are HogQL functions as well as operators: written
 * `NOT (a OR b)`, PostHog's grammar reads a call of `NOT`. */
function call(node: PostHogNode): Expr {
  const name = node.name as string;
  if (isSet(node.params)) throw unsupported('Parametric functions');
  if (isSet(node.filter_expr)) throw unsupported(`${name}() FILTER`);
  if (isSet(node.order_by)) throw unsupported(`${name}(... ORDER BY ...)`);
  const args = (node.args as PostHogNode[]).map(expr);
  const distinct = node.distinct === true;
  if (distinct && !DISTINCT_CALLS.has(name.toLowerCase())) throw unsupported(`${name}(DISTINCT ...)`);
  if (!distinct) {
    const lower = name.toLowerCase();
    if (lower === 'not' && args.length === 1) return { kind: 'not', expr: args[0] };
    if ((lower === 'and' || lower === 'or') && args.length >= 2) return { kind: lower, exprs: args };
  }
  return distinct ? { kind: 'call', name, args, distinct } : { kind: 'call', name, args };
}
