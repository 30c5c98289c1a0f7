// PostHog's own HogQL grammar: the ANTLR grammar of posthog/hogql/grammar, as PostHog's C++ parser
// compiled to WebAssembly (@posthog/hogql-parser, pinned: the one runtime dependency of the
// sandbox). Every HogQL query the sandbox runs is parsed by it, so what PostHog refuses to parse
// the sandbox refuses too, with PostHog's own message ("no viable alternative at input …"); its
// AST is then converted to the subset the sandbox runs (from-posthog-ast.ts,
// docs/server-contract.md §7).
//
// The module is loaded, and its WebAssembly compiled, once per process, on the first query that
// needs it (about a quarter of a second): most runs of the sandbox never do. The parser holds no
// state between calls, so one instance serves all. A parse costs milliseconds, and the CLI sends
// the same query text page after page, so the last converted queries are kept by their text.

import { fromPostHogAst, type PostHogNode } from './from-posthog-ast.js';
import { HogQLError, type SelectQuery } from './types.js';

interface PostHogParser {
  /** The AST, or `{"error": true, "message": …}`, as JSON text. */
  parseSelect(input: string, isInternal?: boolean): string;
}

let parser: Promise<PostHogParser> | undefined;
let loaded: PostHogParser | undefined;

/** Loads PostHog's parser, once per process; `parseSelect` may be called once this has resolved. */
export function loadHogQLParser(): Promise<void> {
  parser ??= import('@posthog/hogql-parser').then(async (module) => {
    const create = (module.default ?? module) as unknown as () => Promise<PostHogParser>;
    loaded = await create();
    return loaded;
  });
  return parser.then(() => undefined);
}

/** How many converted queries are kept: far more than the distinct texts of one CLI run. */
const MEMO_SIZE = 500;

/** Query text → its converted AST, or the HogQLError it is; the oldest use is forgotten first. */
const memo = new Map<string, SelectQuery | HogQLError>();

/**
 * `query` as a SELECT of the sandbox's subset, parsed by PostHog's grammar as
 * posthog/hogql/parser.py `parse_select` parses it (placeholders `{name}` are part of the grammar
 * and stay placeholders, filled from the request's `values` when the query runs). A syntax error
 * is a HogQLError with PostHog's message; so is a construct outside the subset. The result is
 * frozen: it is shared by every query of the same text.
 */
export function parseSelect(query: string): SelectQuery {
  let result = memo.get(query);
  if (result === undefined) {
    if (loaded === undefined) throw new Error('The HogQL parser is not loaded: await loadHogQLParser() before parsing');
    result = convert(loaded.parseSelect(query, true));
    if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value!);
  } else memo.delete(query);
  memo.set(query, result);
  if (result instanceof HogQLError) throw result;
  return result;
}

function convert(json: string): SelectQuery | HogQLError {
  const ast = JSON.parse(json) as PostHogNode & { error?: boolean; message?: unknown };
  if (ast.error === true) return new HogQLError(String(ast.message));
  try {
    return deepFreeze(fromPostHogAst(ast));
  } catch (error) {
    if (error instanceof HogQLError) return error;
    throw error;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
