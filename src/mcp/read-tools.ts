// The tools that read: persons list and get, HogQL, duplicates, an erasure's status from its
// receipt, and event-deletion requests. Each runs the verb of the command line in this process
// (call.ts) with `-o json`, so its rows have the fields of `-o json`, and cuts them to MAX_ROWS,
// saying how to get more.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../context.js';
import { runCaptured } from './call.js';
import { allowedProject } from './policy.js';
import { bounded, jsonOf, MAX_ROWS, ok, refused, type ToolEnv, type ToolSpec } from './tool.js';
import { personsListRun } from '../commands/persons/list.js';
import { personsGetRun } from '../commands/persons/get.js';
import { personsQueryRun } from '../commands/persons/query.js';
import { personsDuplicatesRun } from '../commands/persons/duplicates.js';
import { personsErasureStatusRun } from '../commands/persons/erasure-status.js';
import { eventsDeletionRequestsRun } from '../commands/events/deletion-requests.js';

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

/** Runs a verb in a project this server may touch, and makes its JSON rows a bounded result. */
async function rowsOf(
  env: ToolEnv,
  project: unknown,
  run: (ctx: Context) => Promise<void>,
  more: string,
  max = MAX_ROWS,
): Promise<CallToolResult> {
  let chosen: string | undefined;
  try {
    chosen = allowedProject(env.policy, project as string | undefined, env.base.settings.projectId);
  } catch (err) {
    return refused((err as Error).message);
  }
  const out = jsonOf(await runCaptured(env.base, run, chosen));
  if ('error' in out) return out.error;
  const rows = Array.isArray(out.value) ? out.value : [out.value];
  return ok({ ...(chosen ? { project: chosen } : {}), ...bounded(rows, max, more) });
}

const rowsOutput = (z: Parameters<ToolSpec['output']>[0]) =>
  z.object({
    project: z.string().optional(),
    rows: z.array(z.unknown()),
    count: z.number(),
    truncated: z.boolean(),
    more: z.string().optional(),
  });

const project = (z: Parameters<ToolSpec['input']>[0]) =>
  z.string().regex(/^\d+$/).optional().describe("a project id (default: the server's)");

export const personsList: ToolSpec = {
  name: 'persons_list',
  family: 'persons',
  stage: 'read',
  title: 'List persons',
  description: `Persons of a project, newest first, as \`hogctl persons list -o json\`; at most ${MAX_ROWS}.`,
  annotations: READ,
  input: (z) =>
    z.strictObject({
      project: project(z),
      search: z.string().optional().describe('case-insensitive match on email, name, UUID and distinct ids'),
      where: z.array(z.string()).optional().describe('key=value property filters, all must match'),
      limit: z.number().int().min(1).max(MAX_ROWS).optional(),
    }),
  output: rowsOutput,
  call: (env, a) =>
    rowsOf(
      env,
      a.project,
      // One more than shown, which says whether there are more.
      (ctx) =>
        personsListRun(ctx, {
          search: a.search as string,
          where: a.where as string[],
          limit: String(((a.limit as number) ?? MAX_ROWS) + 1),
        }),
      `narrow with search or where, or run \`hogctl persons list --all\` in a terminal`,
      (a.limit as number | undefined) ?? MAX_ROWS,
    ),
};

export const personsGet: ToolSpec = {
  name: 'persons_get',
  family: 'persons',
  stage: 'read',
  title: 'Get a person',
  description: 'One person by id (integer or UUID), distinct id or e-mail address, as `hogctl persons get -o json`.',
  annotations: READ,
  input: (z) =>
    z.strictObject({
      project: project(z),
      id: z.string().optional(),
      distinct_id: z.string().optional(),
      email: z.string().optional(),
    }),
  output: rowsOutput,
  call: (env, a) => {
    const given = ['id', 'distinct_id', 'email'].filter((k) => a[k] !== undefined);
    if (given.length !== 1) return Promise.resolve(refused('usage (exit 2): give exactly one of id, distinct_id and email'));
    return rowsOf(
      env,
      a.project,
      (ctx) => personsGetRun(ctx, { distinctId: a.distinct_id as string, email: a.email as string }, a.id as string | undefined),
      'more persons share this address: look each up by id',
    );
  },
};

export const personsQuery: ToolSpec = {
  name: 'hogql_query',
  family: 'query',
  stage: 'read',
  title: 'HogQL query',
  description: `Runs a HogQL query, as \`hogctl persons query -o json\`; at most ${MAX_ROWS} rows.`,
  annotations: READ,
  input: (z) => z.strictObject({ project: project(z), query: z.string().min(1) }),
  output: rowsOutput,
  call: (env, a) =>
    rowsOf(env, a.project, (ctx) => personsQueryRun(ctx, {}, a.query as string), 'add LIMIT/OFFSET or a WHERE to the query'),
};

export const personsDuplicates: ToolSpec = {
  name: 'persons_duplicates',
  family: 'duplicates',
  stage: 'read',
  title: 'Find duplicate persons',
  description: `Candidate duplicate persons, as \`hogctl persons duplicates -o json\`; at most ${MAX_ROWS} rows.`,
  annotations: READ,
  input: (z) =>
    z.strictObject({ project: project(z), by: z.array(z.string()).optional().describe('properties to group by (default: email)') }),
  output: rowsOutput,
  call: (env, a) =>
    rowsOf(env, a.project, (ctx) => personsDuplicatesRun(ctx, { by: a.by as string[] }), 'run `hogctl persons duplicates` in a terminal'),
};

export const erasureStatus: ToolSpec = {
  name: 'erasure_status',
  family: 'erasure',
  stage: 'read',
  title: 'Erasure status',
  description: 'Checks an erasure from its receipt file, as `hogctl persons erasure-status --receipt <file> -o json`.',
  annotations: READ,
  input: (z) => z.strictObject({ receipt: z.string().min(1).describe('the path of a bulk-delete receipt') }),
  output: rowsOutput,
  call: (env, a) =>
    rowsOf(
      env,
      undefined,
      // The receipt names the projects the status reads: each must be one this server may touch.
      (ctx) =>
        personsErasureStatusRun(ctx, { receipt: a.receipt as string, checkProject: (p) => allowedProject(env.policy, p, undefined) }),
      'one row a project',
    ),
};

export const eventDeletionStatus: ToolSpec = {
  name: 'event_deletion_status',
  family: 'events',
  stage: 'read',
  title: 'Event deletion requests',
  description: `Event-deletion requests, or one by id, as \`hogctl events deletion-requests -o json\`; at most ${MAX_ROWS}.`,
  annotations: READ,
  input: (z) => z.strictObject({ project: project(z), id: z.string().optional() }),
  output: rowsOutput,
  call: (env, a) =>
    rowsOf(
      env,
      a.project,
      (ctx) => eventsDeletionRequestsRun(ctx, { limit: String(MAX_ROWS + 1) }, a.id as string | undefined),
      'ask for one request by id, or run `hogctl events deletion-requests --all` in a terminal',
    ),
};

export const READ_TOOLS = [personsList, personsGet, personsQuery, personsDuplicates, erasureStatus, eventDeletionStatus];
