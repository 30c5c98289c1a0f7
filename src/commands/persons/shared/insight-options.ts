// Flags shared by the persons commands behind insights (timeline, funnel, funnel-correlation,
// lifecycle): free-form request parameters, plus the named ones most calls need. Light on
// purpose, so verb files can import it statically; the logic is in insight-run.ts.
import type { Command } from 'commander';
import { collect } from '../../../cli/flags.js';

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
