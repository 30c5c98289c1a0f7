// PostHog's own HogQL grammar: the ANTLR grammar of posthog/hogql/grammar, as PostHog's C++ parser
// compiled to WebAssembly (@posthog/hogql-parser, pinned: the one runtime dependency of the
// sandbox). A query is parsed by it first, so that what PostHog refuses to parse the sandbox
// refuses too, with PostHog's own message ("no viable alternative at input …"); only a query it
// accepts reaches the sandbox's parser (parse.ts), which knows the subset the sandbox can run.
//
// The module is loaded, and its WebAssembly compiled, on the first query that needs it: most runs
// of the sandbox never do. The parser holds no state between calls, so one instance serves all.

interface PostHogParser {
  /** The AST, or `{"error": true, "message": …}`, as JSON text. */
  parseSelect(input: string, isInternal?: boolean): string;
}

let parser: Promise<PostHogParser> | undefined;

function load(): Promise<PostHogParser> {
  parser ??= import('@posthog/hogql-parser').then((module) => {
    const create = (module.default ?? module) as unknown as () => Promise<PostHogParser>;
    return create();
  });
  return parser;
}

/**
 * PostHog's syntax error for `query` as a SELECT (posthog/hogql/parser.py `parse_select`), or null
 * when PostHog's grammar accepts it. Placeholders (`{name}`) are part of the grammar.
 */
export async function postHogSyntaxError(query: string): Promise<string | null> {
  const result = JSON.parse((await load()).parseSelect(query, true)) as { error?: boolean; message?: unknown };
  return result.error === true ? String(result.message) : null;
}
