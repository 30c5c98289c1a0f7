// Flags shared by the persons commands behind insights (timeline, funnel, funnel-correlation,
// lifecycle): free-form request parameters, plus the named ones most calls need. Light on
// purpose, so verb files can import it statically; the logic is in insight-run.ts.
import type { Command } from 'commander';
import { collect } from '../../../cli/flags.js';
import { MAX_ACTORS_PAGE } from '../../../api/actors.js';
import { formatNumber } from '../../../io/counts.js';

/** The longest single wait for the query endpoint's limit by default; an hourly limit's can approach an hour. */
export const DEFAULT_ACTORS_MAX_WAIT = '60m';

export interface InsightParamOptions {
  param?: string[];
  params?: string;
  events?: string;
  dateFrom?: string;
  dateTo?: string;
}

export interface PeopleOptions extends InsightParamOptions {
  post?: boolean;
  all?: boolean;
}

/** The flags of the commands that page an actors query with a key: funnel, lifecycle, trends. */
export interface ActorsOptions {
  legacy?: boolean;
  pageSize?: string;
  offset?: string;
  maxWait?: string;
}

export function addParamOptions(command: Command): Command {
  return command
    .option('--events <json>', 'the insight\'s events as a JSON list, e.g. \'[{"id": "$pageview"}]\'')
    .option('--date-from <date>', 'start of the date range, e.g. 2025-01-01 or -30d')
    .option('--date-to <date>', 'end of the date range')
    .option('--param <key=value>', 'any other request parameter (repeatable); the value is sent as given', collect)
    .option(
      '--params <json>',
      'request parameters as a JSON object, or @file / @- to read it; --param and the named flags override its keys',
    );
}

export function addPeopleOptions(command: Command, post: boolean): Command {
  if (post) command.option('--post', 'send the parameters as a JSON body (POST) instead of the query string');
  return addParamOptions(command).option('--all', "follow the server's `next` links to print every page, not just the first");
}

/** How the actors query pages, for the descriptions of the commands that use it. */
export const ACTORS_PAGING =
  `With a key, --all asks for ${formatNumber(MAX_ACTORS_PAGE)} persons a query (the query endpoint is rate-limited, with hourly limits on PostHog Cloud), ` +
  'waits as long as the server asks, up to --max-wait, and when stopped for any reason prints the command that continues: ' +
  'the one given with --offset <n>, so the two outputs appended together hold every person once.';

/** Paging an actors query: its page size, where to start, and how long to wait for its limit. */
export function addActorsOptions(command: Command): Command {
  return command
    .option(
      '--page-size <n>',
      `with --all: persons per query (default and most: ${formatNumber(MAX_ACTORS_PAGE)}, the largest page the server says more follow after)`,
    )
    .option(
      '--offset <n>',
      'skip the first n persons, as a stopped --all printed it; -o csv then prints no header row, so the output appends to the first',
    )
    .option(
      '--max-wait <duration>',
      `the longest single wait the query endpoint's rate limit may ask for; a longer one stops, printing how to continue, e.g. 90s, 1h (default ${DEFAULT_ACTORS_MAX_WAIT})`,
    );
}
