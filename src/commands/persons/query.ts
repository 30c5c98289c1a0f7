import { Command } from 'commander';
import type { Context } from '../../context.js';
import { ApiError, UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { rerunCommand } from '../../cli/rerun.js';
import { stoppedError } from '../../cli/stopped.js';
import { collect } from '../../cli/flags.js';
import { RecordWriter, type OutputSettings } from '../../io/output.js';
import { underQueryLimit } from '../../cli/wait-out-limit.js';
import { parseCount, parseDuration } from '../../cli/flags.js';
import { planKeyset, parseCursor, formatCursor } from '../../hogql/keyset.js';
import { MAX_QUERY_ROWS, walkKeyset, type KeysetWalk } from '../../hogql/walk.js';
import { runHogQL } from '../../api/query.js';
import { rowShape, toRecords } from '../../hogql/rows.js';
import { counted, formatNumber } from '../../io/counts.js';

export interface PersonsQueryOptions {
  all?: boolean;
  pageSize?: string;
  after?: string;
  maxWait?: string;
  values?: string;
  value?: string[];
}

/** The newest servers' MAX_SELECT_RETURNED_ROWS; older servers stop at 10,000. */
const MAX_PAGE_SIZE = MAX_QUERY_ROWS;
/** The largest page the server allows, so an export needs the fewest queries: teams on the
 * legacy limit get 120 HogQL queries an hour (docs/server-contract.md §7.2). */
const DEFAULT_PAGE_SIZE = MAX_PAGE_SIZE;
/** The longest single Retry-After waited out by default; the legacy limit's can approach an hour. */
const DEFAULT_MAX_WAIT = '60m';
const QUERY_NAME = 'hogctl-persons-query';

export function personsQueryCommand(): Command {
  return new Command('query')
    .summary('run a HogQL query over persons')
    .description(
      "Run a HogQL query (PostHog's SQL) and print its rows, with the returned columns as field names.\n\n" +
        'Without --all the query runs as written; the server returns at most 100 rows unless the query has its own LIMIT. ' +
        'With --all, a query of the form `SELECT <columns> FROM persons [WHERE <condition>]` is paged by keyset on created_at and id ' +
        '(personal API keys may not use OFFSET), newest first, and every matching row is printed, 50,000 rows a query. ' +
        'When the server limits queries (120 an hour on some teams), --all waits as long as it asks, up to --max-wait; ' +
        'stopped for any reason, it prints the command that continues: the one given, every flag kept, with --after <cursor>, which picks up exactly there, so the two outputs appended together hold every row once.',
    )
    .argument('<hogql>', 'the query, e.g. "SELECT id, properties.email FROM persons WHERE properties.plan = \'team\'"')
    .option('--all', 'every matching row, paged by created_at and id')
    .option('--page-size <n>', `rows per request with --all (default and most: ${MAX_PAGE_SIZE})`)
    .option(
      '--after <cursor>',
      'with --all: continue after this row, as an interrupted --all printed it (<created_at>,<id>); -o csv then prints no header row, so the output appends to the first',
    )
    .option(
      '--max-wait <duration>',
      `with --all: the longest single wait the server may ask for (each wait, not their sum); a longer one stops --all, which prints how to continue, e.g. 90s, 1h (default ${DEFAULT_MAX_WAIT})`,
    )
    .option('--values <json>', 'values for {placeholders} in the query, as a JSON object')
    .option('--value <name=value>', 'one placeholder value; parsed as JSON when it parses, else a string (repeatable)', collect)
    .addHelpText(
      'after',
      examples(
        'hogctl persons query "SELECT id, properties.email FROM persons WHERE properties.plan = \'team\' LIMIT 20"',
        'hogctl persons query "SELECT id, properties.email FROM persons" --all -o ndjson > persons.ndjson',
        'hogctl persons query "SELECT id FROM persons WHERE created_at > {since}" --value since=2025-01-01 --all -o csv',
        'hogctl persons query "SELECT id, properties.email FROM persons" --all --after 2025-01-15T08:00:00.123456Z,01900000-aaaa-7bbb-8ccc-000000000001 -o ndjson >> persons.ndjson',
        'hogctl persons query "SELECT count() FROM persons WHERE is_identified"',
      ),
    )
    .action(withContext(personsQueryRun));
}

/** Placeholder values from --values and --value; --value wins. */
export function parseValues(options: PersonsQueryOptions): Record<string, unknown> {
  let values: Record<string, unknown> = {};
  if (options.values !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(options.values);
    } catch {
      throw new UsageError(`invalid --values: not JSON`, 'give an object, e.g. --values \'{"plan": "team"}\'');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new UsageError('invalid --values: expected a JSON object', 'e.g. --values \'{"plan": "team"}\'');
    }
    values = parsed as Record<string, unknown>;
  }
  for (const pair of options.value ?? []) {
    const eq = pair.indexOf('=');
    const name = eq === -1 ? '' : pair.slice(0, eq).trim();
    if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name))
      throw new UsageError(`invalid --value "${pair}": expected name=value, e.g. --value plan=team`);
    const raw = pair.slice(eq + 1);
    try {
      values[name] = JSON.parse(raw);
    } catch {
      values[name] = raw;
    }
  }
  return values;
}

export async function personsQueryRun(ctx: Context, options: PersonsQueryOptions, hogql: string): Promise<void> {
  const { values, start, maxWaitMs, pageSize } = queryFlags(options, hogql);
  // Refuse what cannot be paged before anything is sent.
  const plan = options.all ? planKeyset(hogql, values) : undefined;
  const output = await ctx.output();
  const run = await querySender(ctx, maxWaitMs, plan !== undefined);
  const printer = rowPrinter(output, start);

  if (!plan) {
    const res = await run(hogql, values);
    await printer.print(res.columns, res.types, res.results);
    await printer.end();
    if (res.hasMore === true) {
      ctx.warn(
        `the server returned the first ${res.results.length} rows and has more: add a LIMIT (up to ${formatNumber(MAX_PAGE_SIZE)}) to the query, or use --all to page through every row`,
      );
    }
    return;
  }

  const walk: KeysetWalk = { after: start, pages: 0 };
  try {
    for await (const page of walkKeyset(plan, pageSize, walk, run)) await printer.print(page.columns, page.types, page.rows);
  } catch (error) {
    // However it stops, say how to go on: the rows printed so far are complete up to the cursor,
    // and the command is the one typed with --after moved there.
    const { after, pages } = walk;
    await printer.end();
    throw stoppedError(ctx, error, {
      printed: printer.count(),
      noun: ['row', 'rows'],
      requests: pages,
      requestNoun: ['query', 'queries'],
      command: rerunCommand(ctx.invocation, { '--after': after ? formatCursor(after) : null }),
      continues: after !== undefined,
    });
  }
  await printer.end();
  ctx.info(`${formatNumber(printer.count())} rows in ${counted(walk.pages, 'query', 'queries')}`);
}

/** The flags' values, checked before anything is sent: the paging flags only with --all. */
function queryFlags(options: PersonsQueryOptions, hogql: string) {
  if (hogql.trim() === '')
    throw new UsageError('the query is empty', 'e.g. hogctl persons query "SELECT id, properties.email FROM persons LIMIT 10"');
  const values = parseValues(options);
  for (const [flag, given] of [
    ['--page-size', options.pageSize],
    ['--after', options.after],
    ['--max-wait', options.maxWait],
  ] as const) {
    if (given !== undefined && !options.all) throw new UsageError(`${flag} only applies with --all`);
  }
  const start = options.after === undefined ? undefined : parseCursor(options.after);
  const maxWaitMs = parseDuration(options.maxWait ?? DEFAULT_MAX_WAIT, '--max-wait');
  const pageSize = options.pageSize === undefined ? DEFAULT_PAGE_SIZE : parseCount(options.pageSize, '--page-size');
  if (pageSize > MAX_PAGE_SIZE)
    throw new UsageError(`invalid --page-size ${pageSize}: the server returns at most ${MAX_PAGE_SIZE} rows per query`);
  return { values, start, maxWaitMs, pageSize };
}

/** Sends one HogQL query. With --all (`paging`) the server's query limit is waited out, with a
 * countdown; a single query leaves the waiting to the client. */
async function querySender(ctx: Context, maxWaitMs: number, paging: boolean) {
  const projectId = await ctx.projectId();
  const client = await ctx.api();
  const cap = { maxWaitMs, flag: '--max-wait' };
  const send = (query: string, vals: Record<string, unknown>, retry?: { maxRetryAfterMs: number }) =>
    runHogQL(
      client,
      projectId,
      { query, values: vals, name: QUERY_NAME },
      { signal: ctx.deps.signal, sleep: ctx.clock.sleep, now: ctx.clock.now, retry },
    );
  return (query: string, vals: Record<string, unknown>) =>
    (paging ? underQueryLimit(ctx, cap, (retry) => send(query, vals, retry)) : send(query, vals)).catch((error) => {
      throw explainQueryError(error);
    });
}

/** Prints pages of rows as records, their shape taken from the first page. A continuation
 * (--after, `start`) is appended to the first output: no second CSV header. */
function rowPrinter(output: OutputSettings, start: unknown) {
  let writer: InstanceType<typeof RecordWriter> | undefined;
  let shape: ReturnType<typeof rowShape> | undefined;
  return {
    async print(columns: string[], types: unknown, rows: unknown[][]): Promise<void> {
      if (!shape) {
        shape = rowShape(columns, types);
        writer = new RecordWriter(
          output,
          { columns: shape.keys, fields: shape.keys, openObjects: [...shape.jsonKeys] },
          { csvHeader: start === undefined },
        );
      }
      await writer!.writePage(toRecords(shape, rows));
    },
    end: async () => writer?.end(),
    count: () => writer?.count ?? 0,
  };
}

/** Adds what to do about the errors a query typically meets. */
function explainQueryError(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.status !== 400) return error;
  const hint = /OFFSET is not supported/i.test(error.server.detail ?? '')
    ? 'personal API keys may not use OFFSET: drop OFFSET and use --all, which pages by keyset on created_at and id'
    : (error.hint ?? "the server could not run the query: check the HogQL (PostHog's SQL editor shows where it fails)");
  return new ApiError(error.message, error.status, error.server, hint, error.exitCode);
}
