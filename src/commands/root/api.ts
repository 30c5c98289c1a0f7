import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { collect } from '../../cli/flags.js';
import { parseAssignments } from '../../api/set-value.js';
import * as raw from './shared/api-request.js';

export interface ApiOptions {
  field?: string[];
  input?: string;
  paginate?: boolean;
}

export const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

export function apiCommand(): Command {
  return new Command('api')
    .summary('make an authenticated request to any PostHog API path')
    .description(
      "Send a request with the profile's base URL and API key, and print the answer. {project_id} in the path becomes the chosen project. " +
        '--field values are JSON when they parse as JSON, otherwise text; they go in the query string for GET, HEAD and OPTIONS, and in a JSON body for other methods ' +
        '(in the query string when --input gives the body). The body prints as indented JSON; -o ndjson, csv or table print `results` (or an array) as records. ' +
        'A failed request exits with the same codes as every command (3 not found, 4 refused, 5 rejected, ...).',
    )
    .argument('<method>', `HTTP method: ${API_METHODS.join(', ')}`)
    .argument('<path>', 'a path under the base URL, e.g. /api/projects/{project_id}/persons/')
    .option('-f, --field <key=value>', 'a request field (repeatable)', collect)
    .option('--input <file>', 'the JSON request body from a file, or - for standard input')
    .option('--paginate', 'GET only: follow `next` links and print every page')
    .addHelpText(
      'after',
      examples(
        "hogctl api GET '/api/projects/{project_id}/persons/' --field limit=5",
        "hogctl api GET '/api/projects/{project_id}/persons/activity/' --paginate -o ndjson",
        'hogctl api PATCH \'/api/projects/{project_id}/persons/42/\' --field \'properties={"plan": "team"}\'',
        'echo \'{"distinct_ids": ["user-881"]}\' | hogctl api POST \'/api/projects/{project_id}/persons/bulk_delete/\' --input -',
      ),
    )
    .action(withContext(apiRun));
}

export async function apiRun(ctx: Context, options: ApiOptions, rawMethod: string, rawPath: string): Promise<void> {
  const method = rawMethod.toUpperCase();
  if (!API_METHODS.includes(method)) {
    throw new UsageError(`unknown HTTP method "${rawMethod}"`, `use one of ${API_METHODS.join(', ')}`);
  }
  const queryMethod = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
  if (options.paginate && method !== 'GET') throw new UsageError('--paginate works with GET only');
  if (options.input !== undefined && queryMethod)
    throw new UsageError(`--input sends a request body, which ${method} does not take`, 'use --field for query parameters');

  const fields = parseAssignments(options.field ?? [], '--field');
  if ('personal_api_key' in fields) {
    ctx.warn('--field personal_api_key puts a key in your shell history; the profile or HOGCTL_API_KEY already authenticates the request');
  }
  const path = await raw.resolvePath(ctx, rawPath);
  const body =
    options.input !== undefined ? await raw.readJsonInput(ctx, options.input) : !queryMethod && options.field?.length ? fields : undefined;
  const query = queryMethod || options.input !== undefined ? raw.toQuery(fields) : undefined;

  // Before sending: a bad -o must not surface only after a POST has done its work.
  const output = await raw.outputFor(ctx);
  const client = await ctx.api();
  const fieldKey = typeof fields.personal_api_key === 'string' ? fields.personal_api_key : undefined;
  const redact = (text: string) => {
    const out = client.redact(text);
    return fieldKey ? out.split(fieldKey).join('[redacted]') : out;
  };
  if (options.paginate) {
    await raw.printPages(ctx, output, client, path, query, redact);
    return;
  }
  const res = await client.request({ method, path, query, body });
  await raw.printBody(ctx, output, res, redact);
}
