// What the insight-backed persons commands share once they run: building the request
// parameters from --params, --param and the named flags, and printing the legacy people pages.
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { PERSON_FIELDS } from '../../../api/persons.js';
import { peoplePage, type PeopleEndpoint, type Params } from '../../../api/person-insights.js';
import type { InsightKind } from '../../../api/actors.js';
import { RecordWriter } from '../../../io/output.js';
import { DEFAULT_ACTORS_MAX_WAIT, type ActorsOptions, type InsightParamOptions, type PeopleOptions } from './insight-options.js';
import { readFile } from 'node:fs/promises';
import { underRateLimit, type RateLimitName } from '../../../cli/wait-out-limit.js';
import { actorsPage, actorsSource, MAX_ACTORS_PAGE } from '../../../api/actors.js';
import { parseCount, parseDuration } from '../../../cli/flags.js';
import { rerunCommand } from '../../../cli/rerun.js';
import { stoppedError } from '../../../cli/stopped.js';
import { PERSON_COLUMNS } from './person-columns.js';
import { counted, formatNumber } from '../../../io/counts.js';

function parseJsonFlag(raw: string, flag: string, example: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new UsageError(`invalid ${flag}: not JSON`, `e.g. ${flag} '${example}'`);
  }
}

/** `--params @file` (or `@-` for standard input) reads the JSON object from there. */
export async function readParamsFile<O extends InsightParamOptions>(ctx: Context, options: O): Promise<O> {
  const raw = options.params;
  if (raw === undefined || !raw.startsWith('@')) return options;
  const source = raw.slice(1);
  if (source === '') throw new UsageError('invalid --params "@": name a file after @, or use @- for standard input');
  let text: string;
  if (source === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    text = Buffer.concat(chunks).toString('utf8');
  } else {
    try {
      text = await readFile(source, 'utf8');
    } catch (error) {
      throw new UsageError(
        `cannot read --params file ${source}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      );
    }
  }
  return { ...options, params: text };
}

/** --funnel-step: a whole number other than 0 (negative for drop-offs). */
export function parseFunnelStep(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw.trim()) || Number(raw) === 0) {
    throw new UsageError(
      `invalid --funnel-step "${raw}": expected a step number such as 2, or -2 for the persons who dropped off at step 2`,
    );
  }
  return Number(raw);
}

/** --params, then --param, then the named flags (undefined ones left out): later wins. */
export function buildParams(options: InsightParamOptions, named: Params = {}): Params {
  const params: Params = {};
  if (options.params !== undefined) {
    const parsed = parseJsonFlag(options.params, '--params', '{"interval": "day"}');
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new UsageError('invalid --params: expected a JSON object', 'e.g. --params \'{"interval": "day"}\'');
    }
    Object.assign(params, parsed);
  }
  for (const pair of options.param ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`invalid --param "${pair}": expected key=value`, 'e.g. --param interval=day');
    params[pair.slice(0, eq).trim()] = pair.slice(eq + 1);
  }
  if (options.events !== undefined) {
    const events = parseJsonFlag(options.events, '--events', '[{"id": "$pageview"}]');
    if (!Array.isArray(events))
      throw new UsageError('invalid --events: expected a JSON list', 'e.g. --events \'[{"id": "$pageview"}, {"id": "signed_up"}]\'');
    params.events = events;
  }
  if (options.dateFrom !== undefined) params.date_from = options.dateFrom;
  if (options.dateTo !== undefined) params.date_to = options.dateTo;
  for (const [k, v] of Object.entries(named)) if (v !== undefined) params[k] = v;
  return params;
}

/**
 * Prints the people of a legacy people endpoint, page by page. With a POST, a following page is
 * asked for by sending the same body with the `offset` of the `next` link, since a GET link would
 * drop the body.
 */
export async function printPeople(
  ctx: Context,
  endpoint: PeopleEndpoint,
  params: Params,
  options: PeopleOptions & ActorsOptions,
  kind?: InsightKind,
): Promise<void> {
  // A key asks the query endpoint (the legacy lists refuse keys); a session alone, or --legacy,
  // the legacy list.
  if (kind && !options.legacy && (await ctx.settings()).apiKey) return printActors(ctx, kind, params, options);
  for (const [flag, given] of [
    ['--page-size', options.pageSize],
    ['--offset', options.offset],
    ['--max-wait', options.maxWait],
  ] as const) {
    if (given !== undefined)
      throw new UsageError(
        `${flag} applies to the query endpoint's actors query, not to the legacy list`,
        'drop it, or use a personal API key without --legacy',
      );
  }
  const output = await ctx.output();
  const projectId = await ctx.projectId();
  const client = await ctx.api({ auth: 'prefer-session' });
  const writer = new RecordWriter(output, { columns: PERSON_COLUMNS, fields: PERSON_FIELDS, openObjects: ['properties'] });
  let page = await peoplePage(client, projectId, endpoint, params, { post: options.post });
  const seen = new Set<string>();
  for (;;) {
    const people = (Array.isArray(page?.results) ? page.results : []).flatMap((group) =>
      Array.isArray(group?.people) ? group.people : [],
    );
    await writer.writePage(people);
    const next = page?.next;
    if (!options.all || !next || people.length === 0 || seen.has(next)) break;
    seen.add(next);
    if (options.post) {
      // Correlation persons page with their own parameter names (docs/server-contract.md §6.7).
      const offsetName = endpoint === 'funnel/correlation/' ? 'funnel_correlation_person_offset' : 'offset';
      const offset = new URL(next, 'http://x').searchParams.get(offsetName);
      if (offset === null) break;
      page = await peoplePage(client, projectId, endpoint, { ...params, [offsetName]: Number(offset) }, { post: true });
    } else {
      page = await peoplePage(client, projectId, endpoint, params, { url: client.link(next) });
    }
  }
  await writer.end();
  if (writer.count === 0) ctx.info('no persons matched');
  else if (!options.all && page?.next) ctx.info(`${counted(writer.count, 'person')} shown; there are more: add --all to print every page`);
}

/** How a wait for the query endpoint's limit reads when the query is not HogQL. */
const ACTORS_LIMIT: RateLimitName = {
  waiting: 'rate-limited by the server (queries per hour)',
  limits: 'the server limits queries',
};

/** A page without --all: what a person reads at a terminal. */
const FIRST_PAGE = 100;

/**
 * The persons behind an insight from an actors query, page by page (offset and hasMore). The query
 * endpoint is rate-limited by the hour (an actors query is not a HogQLQuery, so on teams with the
 * legacy HogQL limit it counts against the ClickHouse limits, 240 a minute and 1,200 an hour;
 * elsewhere against the API queries' 2,400 an hour: docs/server-contract.md §5): each wait is
 * waited out up to --max-wait, pages are as large as the server pages on, so an export needs the
 * fewest queries, and a stop prints the command that continues at the offset reached.
 */
async function printActors(ctx: Context, kind: InsightKind, params: Params, options: PeopleOptions & ActorsOptions): Promise<void> {
  if (options.pageSize !== undefined && !options.all) throw new UsageError('--page-size only applies with --all');
  const pageSize = options.pageSize === undefined ? MAX_ACTORS_PAGE : parseCount(options.pageSize, '--page-size');
  if (pageSize > MAX_ACTORS_PAGE) {
    throw new UsageError(
      `invalid --page-size ${pageSize}: the server says whether more persons follow only on pages of up to ${formatNumber(MAX_ACTORS_PAGE)}`,
      `use --page-size ${MAX_ACTORS_PAGE} or less`,
    );
  }
  const start = options.offset === undefined ? 0 : parseCount(options.offset, '--offset', 0);
  const cap = { maxWaitMs: parseDuration(options.maxWait ?? DEFAULT_ACTORS_MAX_WAIT, '--max-wait'), flag: '--max-wait' };
  const source = actorsSource(kind, params);
  const [output, projectId] = await Promise.all([ctx.output(), ctx.projectId()]);
  const client = await ctx.api({ auth: 'key' });
  // A continuation (--offset) is appended to the first output: no second CSV header.
  const writer = new RecordWriter(
    output,
    { columns: PERSON_COLUMNS, fields: PERSON_FIELDS, openObjects: ['properties'] },
    { csvHeader: options.offset === undefined },
  );
  let offset = start;
  let queries = 0;
  let more = false;
  try {
    for (;;) {
      const page = await underRateLimit(
        ctx,
        cap,
        (retry) =>
          actorsPage(client, projectId, source, { limit: options.all ? pageSize : FIRST_PAGE, offset, signal: ctx.deps.signal, retry }),
        ACTORS_LIMIT,
      );
      queries++;
      await writer.writePage(page.persons);
      offset += page.persons.length;
      more = page.hasMore;
      if (!options.all || !more || page.persons.length === 0) break;
    }
  } catch (error) {
    await writer.end();
    // --params @- was read from standard input, which the command printed cannot read again.
    const fromStdin: Record<string, string> = options.params === '@-' ? { '--params': JSON.stringify(params) } : {};
    throw stoppedError(ctx, error, {
      printed: writer.count,
      noun: ['person', 'persons'],
      requests: queries,
      requestNoun: ['query', 'queries'],
      command: rerunCommand(ctx.invocation, { ...fromStdin, '--offset': offset > 0 ? String(offset) : null }),
      continues: offset > 0,
    });
  }
  await writer.end();
  if (writer.count === 0) ctx.info('no persons matched');
  else if (!options.all && more)
    ctx.info(
      `${counted(writer.count, 'person')} shown; there are more: add --all to print every page, or --offset ${offset} for the next ones`,
    );
}
