// --jq and --template, as gh has them (ARCHITECTURE.md §3): the JSON a command would print with
// -o json, filtered through jq or formatted by a template. jq is jq itself (jq-wasm: jq 1.8
// compiled to WebAssembly), and templates are Handlebars (`{{field}}`, `{{#each this}}`), the
// JavaScript engine closest to gh's Go templates. Both load only when a flag asks for them.
import { readFileSync } from 'node:fs';
import type { Jq } from 'jq-wasm';
import { UsageError } from '../errors.js';

export interface OutputFilter {
  kind: 'jq' | 'template';
  expression: string;
}

/** A valid --jq expression or --template that failed on the data itself (the compile check
 * passed): exit 2 for a read, where nothing else happened; a command that changed something
 * first says so, and exits 9 (src/bulk/engine/finish.ts). */
export class FilterFailedError extends UsageError {}

const JQ_HINT = "jq's manual: https://jqlang.org/manual/ (try the expression on `-o json` output)";
const TEMPLATE_HINT = 'templates are Handlebars: https://handlebarsjs.com/guide/ (a list is `this`: {{#each this}}…{{/each}})';

/** The flag as typed, for messages: `--jq ".[] | .id"`. */
function named(filter: OutputFilter): string {
  return `--${filter.kind} ${JSON.stringify(filter.expression)}`;
}

/** jq's own message, without the count of compile errors and the input's name (`/dev/stdin`). */
function jqMessage(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^jq: \d+ compile errors?$/.test(line))
    .map((line) => line.replace(/^jq: error \(at [^)]*\): /, ''))
    .join('\n')
    .trim();
}

let jqPromise: Promise<Jq> | undefined;

/**
 * jq's WebAssembly module. In the bundle it is `dist/jq.wasm`, beside the bundle (dist/main.cjs)
 * that holds this code (scripts/bundle/README.md); from source jq-wasm finds its own copy.
 */
function loadJqOnce(): Promise<Jq> {
  // As for undici's parser (src/http/client.ts): V8's quick compile runs jq's WebAssembly well
  // enough for one expression, and the optimising one would cost more than it saves (the first
  // expression took ~140 ms without this, ~60 ms with it).
  jqPromise ??= import('jq-wasm').then(({ loadJq }) => {
    process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');
    let wasmBinary: Uint8Array | undefined;
    try {
      wasmBinary = readFileSync(new URL('./jq.wasm', import.meta.url));
    } catch {
      wasmBinary = undefined;
    }
    return loadJq(wasmBinary ? { wasmBinary } : undefined);
  });
  return jqPromise;
}

type TemplateFn = (data: unknown) => string;

/**
 * Handlebars without HTML escaping (this is a terminal, not a web page), with gh's most used
 * helpers: `json` (a value as JSON), `join` (a list with a separator).
 */
async function compileTemplate(text: string): Promise<TemplateFn> {
  const { default: Handlebars } = await import('handlebars');
  const hb = Handlebars.create();
  hb.registerHelper('json', (value: unknown) => JSON.stringify(value ?? null));
  hb.registerHelper('join', (list: unknown, separator: unknown) =>
    Array.isArray(list) ? list.join(typeof separator === 'string' ? separator : ', ') : String(list ?? ''),
  );
  // Parsing first reports a syntax error now, not on the first render; and what would fail only
  // when rendered (a helper that does not exist, a partial, #if without its value) is refused
  // here too, before anything is sent: after a deletion, a failed render could only be reported.
  checkCalls(hb.parse(text), new Set(Object.keys(hb.helpers)));
  return hb.compile(text, { noEscape: true, strict: false });
}

/** What a node of a Handlebars template may hold (hbs.AST, as far as this check reads it). */
interface TemplateNode {
  type: string;
  path?: { type: string; original?: unknown };
  params?: TemplateNode[];
  hash?: { pairs: { value: TemplateNode }[] };
  body?: TemplateNode[];
  program?: TemplateNode;
  inverse?: TemplateNode;
}

/** Built-in block helpers that take exactly one value. */
const ONE_VALUE = new Set(['if', 'unless', 'with', 'each']);

/** Throws, naming the first call in the template that would fail whatever the data. */
function checkCalls(node: TemplateNode | undefined, helpers: Set<string>): void {
  if (!node) return;
  if (node.type === 'PartialStatement' || node.type === 'PartialBlockStatement' || node.type === 'DecoratorBlock')
    throw new Error('partials and decorators are not available in --template');
  const name = node.path?.type === 'PathExpression' ? String(node.path.original) : undefined;
  const args = (node.params?.length ?? 0) + (node.hash?.pairs.length ?? 0);
  if (name !== undefined && ['MustacheStatement', 'BlockStatement', 'SubExpression'].includes(node.type)) {
    // A name with arguments is a helper call; without, a value (a block over it is a section).
    if (!helpers.has(name) && (args > 0 || node.type === 'SubExpression'))
      throw new Error(`there is no helper "${name}" (the helpers are ${[...helpers].sort().join(', ')})`);
    if (helpers.has(name) && ONE_VALUE.has(name) && node.params?.length !== 1) throw new Error(`#${name} takes exactly one value`);
  }
  for (const child of [...(node.params ?? []), ...(node.hash?.pairs.map((p) => p.value) ?? []), ...(node.body ?? [])])
    checkCalls(child, helpers);
  checkCalls(node.program, helpers);
  checkCalls(node.inverse, helpers);
}

/**
 * Checks the expression or template before anything is sent: a jq compile error or a template
 * that does not parse is a usage error naming it.
 */
export async function checkFilter(filter: OutputFilter): Promise<void> {
  if (filter.kind === 'template') {
    try {
      await compileTemplate(filter.expression);
    } catch (err) {
      throw new UsageError(`${named(filter)}: ${(err as Error).message.trim()}`, TEMPLATE_HINT);
    }
    return;
  }
  const jq = await loadJqOnce();
  // Compiled behind `empty`, so that checking runs none of it; jq compiles the whole program first.
  const checked = jq.raw('null', `empty | (\n${filter.expression}\n)`);
  if (checked.exitCode === 0) return;
  // The expression's own message, with its own line numbers. A program that does not compile is
  // never run, so this runs nothing either.
  const bare = jq.raw('null', filter.expression);
  const message = jqMessage(bare.exitCode === 3 ? bare.stderr : checked.stderr);
  throw new UsageError(`${named(filter)} is not a valid jq expression: ${message}`, JQ_HINT);
}

/**
 * The text to print for `value`: jq's outputs with strings raw (`jq -r`) and other values as
 * JSON, indented on a terminal and compact in a pipe, as gh prints them; or the template's text.
 */
export async function applyFilter(filter: OutputFilter, value: unknown, terminal: boolean): Promise<string> {
  if (filter.kind === 'template') {
    const render = await compileTemplate(filter.expression);
    try {
      return render(value);
    } catch (err) {
      throw new FilterFailedError(`${named(filter)}: ${(err as Error).message.trim()}`, TEMPLATE_HINT);
    }
  }
  const jq = await loadJqOnce();
  const result = jq.raw(JSON.stringify(value), filter.expression, terminal ? ['-r'] : ['-r', '-c']);
  if (result.exitCode !== 0) throw new FilterFailedError(`${named(filter)} failed on the data: ${jqMessage(result.stderr)}`, JQ_HINT);
  return result.stdout === '' || result.stdout.endsWith('\n') ? result.stdout : `${result.stdout}\n`;
}
