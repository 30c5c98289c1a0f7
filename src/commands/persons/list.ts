import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { writeAll } from '../../io/streams.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { parseCount, parseDuration, collect } from '../../cli/flags.js';
import { rerunCommand } from '../../cli/rerun.js';
import { stoppedError } from '../../cli/stopped.js';
import { underRateLimit, type RateLimitName } from '../../cli/wait-out-limit.js';
import { RecordWriter, type OutputSettings } from '../../io/output.js';
import { countCsvRecords } from '../../io/csv-records.js';
import { emailFilter, parseWhere, parsePropertiesJson } from '../../api/person-filters.js';
import { listAllPersons, type ListPosition } from '../../api/list-all-persons.js';
import * as api from '../../api/persons.js';
import type { ApiClient } from '../../http/client.js';
import { PERSON_COLUMNS } from './shared/person-columns.js';
import { counted, formatNumber } from '../../io/counts.js';

export interface PersonsListOptions {
  email?: string;
  distinctId?: string;
  search?: string;
  where?: string[];
  properties?: string;
  limit?: string;
  all?: boolean;
  pageSize?: string;
  serverFormat?: 'csv' | 'json';
  offset?: string;
  after?: string;
  maxWait?: string;
}

/** The longest single wait for the read limit by default, as for persons query. */
const DEFAULT_MAX_WAIT = '60m';

const READ_LIMIT: RateLimitName = {
  waiting: 'rate-limited by the server (reading persons)',
  limits: 'the server limits reads',
};

export function personsListCommand(): Command {
  return new Command('list')
    .alias('ls')
    .summary('list persons, with filters and paging')
    .description(
      'List the persons of a project, newest first. Pages are fetched as they are printed, so --all streams any number of persons in constant memory.\n\n' +
        "Persons print under the server's names in every format: `uuid` is the person's UUID, as in `persons get`; the list's own `id` is the UUID too (kept in JSON as the server sends it), while `persons get` gives the integer key as `id`.\n\n" +
        'With --all, a wait the server asks for is waited out (a countdown on a terminal), up to --max-wait; stopped for any reason, --all prints the command that continues: ' +
        'the one given, with --offset (where the next page starts) and --after (the last person printed: its created_at and uuid). ' +
        'The list pages by offset, newest first, so a continuation starts a little before --offset and skips every person at or above --after: ' +
        'the two outputs appended together hold every person once, even if persons were deleted meanwhile; persons created meanwhile are left out, as from any listing begun before them.',
    )
    .option(
      '--email <address>',
      'persons whose email property is this whole address, ignoring the case of ASCII letters (as `persons get --email` and an erasure match it; those also find it as a distinct id)',
    )
    .option('--distinct-id <id>', 'persons having this distinct id')
    .option(
      '--search <text>',
      "PostHog's search: the email property contains the text (any case), or a distinct id or the UUID is the whole text; names are not searched",
    )
    .option(
      '--where <key=value>',
      'property filter; also != ~ (contains) !~ > >= < <=, has:<key> and lacks:<key> (set or not); = and != are case-sensitive (email=Lee@x.com misses lee@x.com, which bulk-delete --emails finds); an empty value is refused (repeatable)',
      collect,
    )
    .option('--properties <json>', 'raw PostHog property filters as a JSON array')
    .option('--limit <n>', 'the most persons to print (default 100)')
    .option('--all', 'every matching person (ignores --limit)')
    .option('--page-size <n>', 'persons per request (default 100, or 1000 with --all)')
    .option('--offset <n>', 'with --all: start at the n-th person, as a stopped --all printed it')
    .option(
      '--after <cursor>',
      'with --all: leave out the persons up to this one, as a stopped --all printed it (<created_at>,<uuid>[,<uuid>...]); -o csv then prints no header row, so the output appends to the first',
    )
    .option(
      '--max-wait <duration>',
      `with --all: the longest single wait the server may ask for; a longer one stops --all, which prints how to continue, e.g. 90s, 1h (default ${DEFAULT_MAX_WAIT})`,
    )
    .addOption(
      new Option('--server-format <format>', "the API's own format parameter; csv prints the server's CSV export as is").choices([
        'csv',
        'json',
      ]),
    )
    .addHelpText(
      'after',
      examples(
        'hogctl persons list --limit 20',
        'hogctl persons list --where plan=team --where email~@example.com -o csv',
        'hogctl persons list --all -o ndjson > persons.ndjson',
        'hogctl persons list --all --offset 1000 --after 2025-01-15T08:00:00.123456Z,01900000-aaaa-7bbb-8ccc-000000000001 -o ndjson >> persons.ndjson',
        'hogctl persons list --search lee --fields uuid,properties.email',
      ),
    )
    .action(withContext(personsListRun));
}

export async function personsListRun(ctx: Context, options: PersonsListOptions): Promise<void> {
  const { position, cap, limit, fetchLimit, pageSize, filters } = listFlags(options);
  const output = await ctx.output();
  const projectId = await ctx.projectId();
  const client = await ctx.api();

  if (options.serverFormat === 'csv') return serverCsv(ctx, output, client, projectId, filters);

  // Rows print page by page as they arrive, on a terminal too (column widths from the first page).
  // A continuation is appended to the first output: no second CSV header.
  const writer = new RecordWriter(
    output,
    { columns: PERSON_COLUMNS, fields: api.PERSON_FIELDS, openObjects: ['properties'] },
    { csvHeader: options.offset === undefined && options.after === undefined },
  );
  let more = false;
  // Persons --search found by a whole distinct id or UUID: nothing shown contains the text.
  let notByEmail = 0;
  let shifted = 0;
  let requests = 0;
  // --all waits out the read limit here, with a countdown, as long as --max-wait allows.
  const send = <T>(request: (retry?: { maxRetryAfterMs: number }) => Promise<T>) =>
    underRateLimit(ctx, cap, (retry) => request(retry).then((res) => (requests++, res)), READ_LIMIT);
  const pages =
    limit === undefined
      ? listAllPersons(client, projectId, filters, { pageSize, signal: ctx.deps.signal, onShift: () => shifted++, position, send })
      : api.listPersons(client, projectId, filters, { pageSize, limit: fetchLimit, signal: ctx.deps.signal });
  try {
    for await (const page of pages) {
      const room = limit === undefined ? page.length : limit - writer.count;
      if (page.length > room) more = true;
      const shown = page.slice(0, room);
      if (options.search !== undefined) notByEmail += shown.filter((p) => !emailContains(p, options.search as string)).length;
      await writer.writePage(shown as unknown as Record<string, unknown>[]);
    }
  } catch (error) {
    await writer.end();
    if (limit !== undefined) throw error;
    // However --all stops, say how to go on: where the next page starts, and the last person printed.
    const { offset, after } = position;
    throw stoppedError(ctx, error, {
      printed: writer.count,
      noun: ['person', 'persons'],
      requests,
      requestNoun: ['request', 'requests'],
      command: rerunCommand(ctx.invocation, {
        '--offset': offset > 0 ? String(offset) : null,
        '--after': after ? [after.createdAt, ...after.ids].join(',') : null,
      }),
      continues: offset > 0 || after !== undefined,
    });
  }
  await writer.end();
  sayAfterListing(ctx, options, { shifted, notByEmail, printed: writer.count, more, filtered: output.filter !== undefined });
}

/** The flags' values, checked before anything is sent: the paging flags only with --all. */
function listFlags(options: PersonsListOptions) {
  for (const [flag, given] of [
    ['--offset', options.offset],
    ['--after', options.after],
    ['--max-wait', options.maxWait],
  ] as const) {
    if (given !== undefined && !options.all) throw new UsageError(`${flag} only applies with --all`);
  }
  const position: ListPosition = {
    offset: options.offset === undefined ? 0 : parseCount(options.offset, '--offset', 0),
    after: options.after === undefined ? undefined : parseAfter(options.after),
  };
  const cap = { maxWaitMs: parseDuration(options.maxWait ?? DEFAULT_MAX_WAIT, '--max-wait'), flag: '--max-wait' };
  const limit = options.all ? undefined : parseCount(options.limit ?? '100', '--limit');
  // A limited list asks for one person more than it prints: that one says whether more exist,
  // without a request of its own (a full page always carries `next`, even the last one).
  const fetchLimit = limit === undefined ? undefined : limit + 1;
  const pageSize = options.pageSize ? parseCount(options.pageSize, '--page-size') : Math.min(fetchLimit ?? 1000, options.all ? 1000 : 101);
  // Above the cap the server silently returns the cap and no `next`: the listing would stop there.
  if (pageSize > api.MAX_PERSONS_PAGE) {
    throw new UsageError(
      `invalid --page-size ${pageSize}: the server returns at most ${formatNumber(api.MAX_PERSONS_PAGE)} persons per page`,
      `use --page-size ${api.MAX_PERSONS_PAGE} or less; --all pages through every person`,
    );
  }
  const email = options.email?.trim();
  if (email === '') throw new UsageError('--email is empty', 'e.g. `hogctl persons list --email lee@example.net`');
  const filters = {
    distinctId: options.distinctId,
    search: options.search,
    properties: [
      ...(email === undefined ? [] : [emailFilter(email)]),
      ...(options.where ?? []).map(parseWhere),
      ...(options.properties ? parsePropertiesJson(options.properties) : []),
    ],
  };
  return { position, cap, limit, fetchLimit, pageSize, filters };
}

/** --server-format csv: the server's own CSV export, printed as it is. */
async function serverCsv(
  ctx: Context,
  output: OutputSettings,
  client: ApiClient,
  projectId: string,
  filters: api.PersonFilters,
): Promise<void> {
  if (ctx.globals.output || ctx.globals.fields || output.filter)
    throw new UsageError("--server-format csv prints the server's CSV as is: drop -o/--fields/--jq/--template, or use -o csv instead");
  const body = await api.exportPersonsCsv(client, projectId, filters);
  await writeAll(ctx.io.stdout, body);
  // Records less the header row.
  const rows = Math.max(0, (await countCsvRecords(body)) - 1);
  if (rows >= api.MAX_PERSONS_PAGE) {
    ctx.warn(
      `the server's CSV export stops at ${formatNumber(api.MAX_PERSONS_PAGE)} rows, so more persons may match: \`hogctl persons list --all -o csv\` pages through every one`,
    );
  }
}

/** What the listing saw that the rows do not say: pages asked again, how --search matched, none, or more. */
function sayAfterListing(
  ctx: Context,
  options: PersonsListOptions,
  seen: { shifted: number; notByEmail: number; printed: number; more: boolean; filtered: boolean },
): void {
  if (seen.shifted > 0) {
    // A continuation's place may have moved before it ran, or its --offset and --after may not be
    // from the same listing: the deletions are not known to have happened while it ran.
    const why =
      options.offset === undefined && options.after === undefined
        ? 'persons were deleted while this listing ran'
        : 'the place to continue from had moved (persons deleted since the listing stopped, or --offset and --after not printed together)';
    ctx.info(
      `${why}: ${counted(seen.shifted, 'page was', 'pages were')} asked for again from further back, so every person that existed throughout is listed once`,
    );
  }
  if (seen.notByEmail > 0)
    ctx.info(
      `${seen.notByEmail} of these matched --search ${JSON.stringify(options.search)} as a whole distinct id or UUID, not in their e-mail address (PostHog's search reads only these)`,
    );
  if (seen.printed === 0)
    ctx.info(
      options.email === undefined
        ? 'no persons matched'
        : `no persons matched; --email reads the email property only: \`hogctl persons get --email ${options.email.trim()}\` also finds the address as a distinct id`,
    );
  else if (seen.more) sayMoreMatch(ctx, seen.printed, options.limit !== undefined, seen.filtered);
}

/**
 * More persons matched than were printed. A --jq or --template under the default --limit saw one
 * page only, so `length` or a sum would be wrong with nothing to say so: that is said wherever
 * stderr goes. Otherwise it is a hint for a person at a terminal; a script that asked for --limit
 * gets exactly that.
 */
function sayMoreMatch(ctx: Context, printed: number, limitGiven: boolean, filtered: boolean): void {
  if (filtered && !limitGiven) {
    const flag = ctx.globals.jq !== undefined ? '--jq' : '--template';
    ctx.warn(
      `${flag} saw the first ${counted(printed, 'person')} only (the default --limit), and more match: add --all for ${flag} to see every one`,
    );
  } else if (ctx.io.stderr.isTTY) ctx.info(`showing ${counted(printed, 'person')}; --all for every one`);
}

/** `--after <created_at>,<uuid>[,<uuid>...]`: the last person a stopped --all printed. */
function parseAfter(raw: string): NonNullable<ListPosition['after']> {
  const [createdAt = '', ...ids] = raw.split(',').map((part) => part.trim());
  if (Number.isNaN(Date.parse(createdAt)) || ids.length === 0 || ids.some((id) => !/^[\w-]+$/.test(id))) {
    throw new UsageError(
      `invalid --after "${raw}": expected <created_at>,<uuid> as a stopped --all printed it`,
      'e.g. --after 2025-01-15T08:00:00.123456Z,01900000-aaaa-7bbb-8ccc-000000000001',
    );
  }
  return { createdAt, ids };
}

/** Whether PostHog's --search found the person in their email property (docs/server-contract.md §6.1). */
function emailContains(person: api.ListedPerson, search: string): boolean {
  const email = person.properties?.email;
  return typeof email === 'string' && email.toLowerCase().includes(search.toLowerCase());
}
