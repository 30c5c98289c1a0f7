// The sandbox's HogQL subset (docs/server-contract.md §7, §14.5): enough of the grammar for
// `SELECT <columns> FROM persons|person_distinct_ids|events [WHERE ...] [GROUP BY ...] [HAVING ...] [ORDER BY ...]
// [LIMIT n] [OFFSET m]`, with `x IN (SELECT ...)` subqueries.
//
// It is written apart from the CLI's own query rewriter on purpose: the CLI's pager is tested
// against this parser, and a lexer shared by both would hide its own mistakes.
//
// Anything outside the subset is a HogQLError, which the route answers with the server's 400
// `validation_error` body; so does any syntax error, with the line and column where it was seen.

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

type TokenKind = 'word' | 'quoted' | 'string' | 'number' | 'placeholder' | 'punct' | 'end';

interface Token {
  kind: TokenKind;
  text: string;
  /** For strings and quoted identifiers: the unescaped value. */
  value: string;
  pos: number;
}

const PUNCT = ['<=', '>=', '!=', '<>', '==', '(', ')', ',', '.', '*', '=', '<', '>', ';', '+', '-', '/', '%', '[', ']', ':', '?'];

/** Words that end an expression or a clause, and so may never be a bare alias. */
const RESERVED = new Set([
  'select',
  'from',
  'where',
  'order',
  'by',
  'limit',
  'offset',
  'and',
  'or',
  'not',
  'is',
  'null',
  'like',
  'ilike',
  'in',
  'as',
  'asc',
  'desc',
  'group',
  'having',
  'join',
  'inner',
  'left',
  'right',
  'full',
  'cross',
  'array',
  'union',
  'on',
  'using',
  'prewhere',
  'settings',
  'with',
  'distinct',
  'sample',
  'final',
  'window',
  'qualify',
  'all',
  'between',
  'case',
]);

function position(text: string, pos: number): string {
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  const column = pos - (before.lastIndexOf('\n') + 1) + 1;
  return `line ${line}, column ${column}`;
}

function unescapeQuoted(body: string, quote: string): string {
  return body
    .replace(new RegExp(`${quote}${quote}`, 'g'), quote)
    .replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', f: '\f' })[c] ?? c);
}

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const syntax = (pos: number, what: string) => new HogQLError(`Syntax error at ${position(text, pos)}: ${what}`);
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (text.startsWith('--', i)) {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      if (end === -1) throw syntax(i, 'unterminated comment');
      i = end + 2;
      continue;
    }
    const start = i;
    if (c === "'" || c === '"' || c === '`') {
      i++;
      let body = '';
      for (;;) {
        if (i >= text.length) throw syntax(start, c === "'" ? 'unterminated string' : 'unterminated quoted identifier');
        if (text[i] === '\\' && i + 1 < text.length) {
          body += text.slice(i, i + 2);
          i += 2;
        } else if (text[i] === c && text[i + 1] === c) {
          body += c + c;
          i += 2;
        } else if (text[i] === c) {
          i++;
          break;
        } else body += text[i++];
      }
      tokens.push({ kind: c === "'" ? 'string' : 'quoted', text: text.slice(start, i), value: unescapeQuoted(body, c), pos: start });
      continue;
    }
    if (/[0-9]/.test(c)) {
      const m = /^(?:\d+\.?\d*(?:[eE][+-]?\d+)?)/.exec(text.slice(i))!;
      i += m[0].length;
      tokens.push({ kind: 'number', text: m[0], value: m[0], pos: start });
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(text.slice(i))!;
      i += m[0].length;
      tokens.push({ kind: 'word', text: m[0], value: m[0], pos: start });
      continue;
    }
    if (c === '{') {
      // `{variables.code_name}` names a query variable (posthog/hogql/variables.py).
      const m = /^\{\s*([A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)?)\s*\}/.exec(text.slice(i));
      if (!m) throw syntax(i, 'a placeholder must look like {name}');
      i += m[0].length;
      tokens.push({ kind: 'placeholder', text: m[0], value: m[1], pos: start });
      continue;
    }
    const p = PUNCT.find((op) => text.startsWith(op, i));
    if (!p) throw syntax(i, `unexpected character "${c}"`);
    i += p.length;
    tokens.push({ kind: 'punct', text: p, value: p, pos: start });
  }
  tokens.push({ kind: 'end', text: '', value: '', pos: text.length });
  return tokens;
}

class Parser {
  private i = 0;

  constructor(
    private readonly text: string,
    private readonly tokens: Token[],
  ) {}

  private get peek(): Token {
    return this.tokens[this.i];
  }

  private next(): Token {
    return this.tokens[this.i++];
  }

  private isWord(word: string, offset = 0): boolean {
    const t = this.tokens[this.i + offset];
    return t !== undefined && t.kind === 'word' && t.text.toLowerCase() === word;
  }

  private acceptWord(word: string): boolean {
    if (!this.isWord(word)) return false;
    this.i++;
    return true;
  }

  private acceptPunct(p: string): boolean {
    if (this.peek.kind === 'punct' && this.peek.text === p) {
      this.i++;
      return true;
    }
    return false;
  }

  private fail(token: Token, expected?: string): HogQLError {
    const seen = token.kind === 'end' ? 'end of input' : `"${token.text}"`;
    return new HogQLError(
      `Syntax error at ${position(this.text, token.pos)}: unexpected ${seen}${expected ? `, expected ${expected}` : ''}`,
    );
  }

  private unsupported(what: string): HogQLError {
    return new HogQLError(
      `${what} is not supported by the hogctl sandbox's HogQL subset (SELECT ... FROM persons|events [WHERE ...] [GROUP BY ...] [HAVING ...] [ORDER BY ...] [LIMIT n] [OFFSET m])`,
    );
  }

  private expectWord(word: string): void {
    if (!this.acceptWord(word)) throw this.fail(this.peek, word.toUpperCase());
  }

  private expectPunct(p: string): void {
    if (!this.acceptPunct(p)) throw this.fail(this.peek, `"${p}"`);
  }

  parseQuery(): SelectQuery {
    const query = this.selectBody();
    if (this.isWord('union') || this.isWord('intersect') || this.isWord('except')) throw this.unsupported(this.peek.text.toUpperCase());
    if (this.isWord('settings')) throw this.unsupported('SETTINGS');
    this.acceptPunct(';');
    if (this.peek.kind !== 'end') throw this.fail(this.peek);
    return query;
  }

  /** One SELECT, up to what follows it (the end, or the `)` of a subquery). */
  private selectBody(): SelectQuery {
    if (this.isWord('with')) throw this.unsupported('WITH');
    this.expectWord('select');
    if (this.isWord('distinct')) throw this.unsupported('SELECT DISTINCT');
    const columns: SelectColumn[] = [];
    do columns.push(this.selectColumn());
    while (this.acceptPunct(','));

    if (!this.acceptWord('from')) {
      if (this.peek.kind === 'end') throw this.unsupported('SELECT without FROM');
      throw this.fail(this.peek, 'FROM');
    }
    if (this.peek.kind === 'punct' && this.peek.text === '(') throw this.unsupported('A subquery');
    const tableToken = this.next();
    if (tableToken.kind !== 'word' && tableToken.kind !== 'quoted') throw this.fail(tableToken, 'a table name');
    const query: SelectQuery = { columns, table: tableToken.value, groupBy: [], orderBy: [] };
    if (this.acceptWord('as')) query.tableAlias = this.identifier();
    else if (this.peek.kind === 'quoted' || (this.peek.kind === 'word' && !RESERVED.has(this.peek.text.toLowerCase())))
      query.tableAlias = this.identifier();
    if (this.isWord('final') || this.isWord('sample')) throw this.unsupported(this.peek.text.toUpperCase());
    for (const join of ['join', 'inner', 'left', 'right', 'full', 'cross', 'array']) if (this.isWord(join)) throw this.unsupported('JOIN');
    if (this.isWord('prewhere')) throw this.unsupported('PREWHERE');

    if (this.acceptWord('where')) query.where = this.expr();
    if (this.acceptWord('group')) {
      this.expectWord('by');
      if (this.isWord('all')) throw this.unsupported('GROUP BY ALL');
      do query.groupBy.push(this.expr());
      while (this.acceptPunct(','));
      if (this.isWord('with')) throw this.unsupported('GROUP BY ... WITH');
    }
    // ClickHouse takes HAVING without GROUP BY too: the whole result is then one group.
    if (this.acceptWord('having')) query.having = this.expr();
    if (this.acceptWord('order')) {
      this.expectWord('by');
      do {
        const expr = this.expr();
        let desc = false;
        if (this.acceptWord('desc') || this.acceptWord('descending')) desc = true;
        else if (!this.acceptWord('asc')) this.acceptWord('ascending');
        if (this.isWord('nulls')) throw this.unsupported('NULLS FIRST/LAST');
        query.orderBy.push({ expr, desc });
      } while (this.acceptPunct(','));
    }
    if (this.acceptWord('limit')) {
      query.limit = this.expr();
      if (this.acceptPunct(',')) {
        // ClickHouse's LIMIT offset, count.
        query.offset = query.limit;
        query.limit = this.expr();
      }
      if (this.isWord('by')) throw this.unsupported('LIMIT BY');
      if (this.isWord('with')) throw this.unsupported('LIMIT ... WITH TIES');
    }
    if (this.acceptWord('offset')) {
      query.offset = this.expr();
      this.acceptWord('rows');
    }
    return query;
  }

  private identifier(): string {
    const t = this.next();
    if (t.kind === 'quoted' || (t.kind === 'word' && !RESERVED.has(t.text.toLowerCase()))) return t.value;
    throw this.fail(t, 'an identifier');
  }

  private selectColumn(): SelectColumn {
    const expr = this.expr();
    if (this.acceptWord('as')) {
      const t = this.next();
      // HogQL accepts `AS "name"`, `AS \`name\`` and `AS 'name'`.
      if (t.kind === 'string' || t.kind === 'quoted' || t.kind === 'word') return { expr, alias: t.value };
      throw this.fail(t, 'an alias');
    }
    return { expr };
  }

  expr(): Expr {
    return this.orExpr();
  }

  private orExpr(): Expr {
    const exprs = [this.andExpr()];
    while (this.acceptWord('or')) exprs.push(this.andExpr());
    return exprs.length === 1 ? exprs[0] : { kind: 'or', exprs };
  }

  private andExpr(): Expr {
    const exprs = [this.notExpr()];
    while (this.acceptWord('and')) exprs.push(this.notExpr());
    return exprs.length === 1 ? exprs[0] : { kind: 'and', exprs };
  }

  private notExpr(): Expr {
    if (this.acceptWord('not')) return { kind: 'not', expr: this.notExpr() };
    return this.comparison();
  }

  private comparison(): Expr {
    const left = this.primary();
    const t = this.peek;
    if (t.kind === 'punct' && ['=', '==', '!=', '<>', '<', '<=', '>', '>='].includes(t.text)) {
      this.i++;
      const op = (t.text === '==' ? '=' : t.text === '<>' ? '!=' : t.text) as CompareOp;
      return { kind: 'compare', op, left, right: this.primary() };
    }
    if (this.isWord('is')) {
      this.i++;
      const negated = this.acceptWord('not');
      this.expectWord('null');
      return { kind: 'isNull', expr: left, negated };
    }
    const negated = this.isWord('not') && (this.isWord('like', 1) || this.isWord('ilike', 1) || this.isWord('in', 1));
    if (negated) this.i++;
    if (this.acceptWord('like')) return { kind: 'compare', op: negated ? 'not like' : 'like', left, right: this.primary() };
    if (this.acceptWord('ilike')) return { kind: 'compare', op: negated ? 'not ilike' : 'ilike', left, right: this.primary() };
    if (this.acceptWord('in')) return { kind: 'compare', op: negated ? 'not in' : 'in', left, right: this.primary() };
    if (this.isWord('between')) throw this.unsupported('BETWEEN');
    if (t.kind === 'punct' && ['+', '-', '*', '/', '%'].includes(t.text)) throw this.unsupported('Arithmetic');
    return left;
  }

  private primary(): Expr {
    const t = this.next();
    if (t.kind === 'string') return { kind: 'constant', value: t.value };
    if (t.kind === 'number') return { kind: 'constant', value: Number(t.text) };
    if (t.kind === 'placeholder') return { kind: 'placeholder', name: t.value };
    if (t.kind === 'punct' && t.text === '-' && this.peek.kind === 'number') return { kind: 'constant', value: -Number(this.next().text) };
    if (t.kind === 'punct' && t.text === '*') return { kind: 'star' };
    if (t.kind === 'punct' && t.text === '(') {
      if (this.isWord('select')) {
        const query = this.selectBody();
        this.expectPunct(')');
        return { kind: 'subquery', query };
      }
      const first = this.expr();
      if (this.acceptPunct(',')) {
        const exprs = [first];
        do exprs.push(this.expr());
        while (this.acceptPunct(','));
        this.expectPunct(')');
        return { kind: 'tuple', exprs };
      }
      this.expectPunct(')');
      return first;
    }
    if (t.kind === 'word' || t.kind === 'quoted') {
      const lower = t.text.toLowerCase();
      if (t.kind === 'word') {
        if (lower === 'null') return { kind: 'constant', value: null };
        if (lower === 'true') return { kind: 'constant', value: true };
        if (lower === 'false') return { kind: 'constant', value: false };
        if (lower === 'case') throw this.unsupported('CASE');
        if (RESERVED.has(lower)) throw this.fail(t, 'an expression');
        if (this.peek.kind === 'punct' && this.peek.text === '(') return this.call(t.text);
      }
      const chain = [t.value];
      while (this.acceptPunct('.')) {
        const part = this.next();
        if (part.kind === 'word' || part.kind === 'quoted') chain.push(part.value);
        else if (part.kind === 'number' && /^\d+$/.test(part.text)) chain.push(part.text);
        else if (part.kind === 'punct' && part.text === '*') throw this.unsupported('table.*');
        else throw this.fail(part, 'a field name');
      }
      return { kind: 'field', chain };
    }
    throw this.fail(t, 'an expression');
  }

  private call(name: string): Expr {
    this.expectPunct('(');
    const args: Expr[] = [];
    const distinct = this.acceptWord('distinct');
    if (distinct && !['count', 'uniq'].includes(name.toLowerCase())) throw this.unsupported(`${name}(DISTINCT ...)`);
    if (!this.acceptPunct(')')) {
      do args.push(this.expr());
      while (this.acceptPunct(','));
      this.expectPunct(')');
    }
    if (this.peek.kind === 'punct' && this.peek.text === '(') throw this.unsupported('Parametric functions');
    if (this.isWord('over')) throw this.unsupported('Window functions');
    return distinct ? { kind: 'call', name, args, distinct } : { kind: 'call', name, args };
  }
}

export function parseSelect(text: string): SelectQuery {
  return new Parser(text, tokenize(text)).parseQuery();
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
