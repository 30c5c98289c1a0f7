// The sandbox's HogQL AST: what PostHog's grammar parses (posthog-grammar.ts), once converted to the
// subset the sandbox runs (from-posthog-ast.ts), and what execute.ts evaluates
// (docs/server-contract.md §7, §14.5): `SELECT <columns> FROM persons|person_distinct_ids|events
// [WHERE ...] [GROUP BY ...] [HAVING ...] [ORDER BY ...] [LIMIT n] [OFFSET m]`, with
// `x IN (SELECT ...)` subqueries. Its own shapes, not PostHog's, so that execute.ts needs no more
// than it runs.
//
// A query outside the subset, and a syntax error, is a HogQLError, which the routes answer with the
// server's 400 `validation_error` body.

export class HogQLError extends Error {}

export type Literal = string | number | boolean | null;

export type Expr =
  | { kind: 'field'; chain: string[] }
  | { kind: 'constant'; value: Literal }
  | { kind: 'placeholder'; name: string }
  | { kind: 'compare'; op: CompareOp; left: Expr; right: Expr }
  | { kind: 'and' | 'or'; exprs: Expr[] }
  | { kind: 'not'; expr: Expr }
  | { kind: 'isNull'; expr: Expr; negated: boolean }
  | { kind: 'call'; name: string; args: Expr[]; distinct?: boolean }
  | { kind: 'subquery'; query: SelectQuery }
  | { kind: 'tuple'; exprs: Expr[] }
  | { kind: 'star' };

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=' | 'like' | 'ilike' | 'not like' | 'not ilike' | 'in' | 'not in';

export interface SelectColumn {
  expr: Expr;
  alias?: string;
}

export interface OrderItem {
  expr: Expr;
  desc: boolean;
}

export interface SelectQuery {
  columns: SelectColumn[];
  table: string;
  tableAlias?: string;
  where?: Expr;
  groupBy: Expr[];
  having?: Expr;
  orderBy: OrderItem[];
  limit?: Expr;
  offset?: Expr;
}

/** Walks every expression of a query (for placeholder and OFFSET checks). */
export function* expressions(query: SelectQuery): Generator<Expr> {
  const roots: (Expr | undefined)[] = [
    ...query.columns.map((c) => c.expr),
    query.where,
    ...query.groupBy,
    query.having,
    ...query.orderBy.map((o) => o.expr),
    query.limit,
    query.offset,
  ];
  const stack = roots.filter((e): e is Expr => e !== undefined);
  while (stack.length) {
    const e = stack.pop()!;
    yield e;
    if (e.kind === 'compare') stack.push(e.left, e.right);
    else if (e.kind === 'and' || e.kind === 'or' || e.kind === 'tuple') stack.push(...e.exprs);
    else if (e.kind === 'not' || e.kind === 'isNull') stack.push(e.expr);
    else if (e.kind === 'call') stack.push(...e.args);
  }
}

/** How HogQL names a column it was not given an alias for: a field by its last part, anything else by its text. */
export function columnName(column: SelectColumn): string {
  if (column.alias !== undefined) return column.alias;
  return printExpr(column.expr);
}

export function printExpr(e: Expr): string {
  switch (e.kind) {
    case 'field':
      return e.chain[e.chain.length - 1];
    case 'constant':
      return e.value === null ? 'NULL' : typeof e.value === 'string' ? `'${e.value.replace(/'/g, "\\'")}'` : String(e.value);
    case 'placeholder':
      return `{${e.name}}`;
    case 'star':
      return '*';
    case 'call':
      return `${e.name}(${e.distinct ? 'DISTINCT ' : ''}${e.args.map(printExpr).join(', ')})`;
    case 'subquery':
      return '(SELECT ...)';
    case 'tuple':
      return `(${e.exprs.map(printExpr).join(', ')})`;
    case 'not':
      return `not(${printExpr(e.expr)})`;
    case 'isNull':
      return `${e.negated ? 'isNotNull' : 'isNull'}(${printExpr(e.expr)})`;
    case 'and':
    case 'or':
      return `${e.kind}(${e.exprs.map(printExpr).join(', ')})`;
    case 'compare':
      return `${printExpr(e.left)} ${e.op.toUpperCase()} ${printExpr(e.right)}`;
  }
}
