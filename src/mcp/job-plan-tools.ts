// merge_plan, update_plan and event_deletion_plan: each resolves and counts what its verb would do,
// writes a signed plan, and returns its id, its numbers, a sample and the file. Nothing is merged,
// changed or deleted: plan_apply runs the plan once a person approves it. A merge is planned by
// `persons merge --dry-run --plan-out` itself (a signed merge plan); an update and an event
// deletion, which have no --plan-out, get a plan of this server's (job-plan-file.ts): an update's
// persons are resolved now and the plan holds their UUIDs, so that it changes those persons and no
// others; an event deletion's selection is counted now, and PostHog deletes what it names when it
// runs the request.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { existsSync, writeFileSync } from 'node:fs';
import type { Context } from '../context.js';
import { personsMergeRun } from '../commands/persons/merge.js';
import { personsDuplicatesRun } from '../commands/persons/duplicates.js';
import { selectionOf, type EventsDeleteOptions } from '../commands/events/delete.js';
import { countSelection, sampleSelection } from '../commands/events/shared/count.js';
import { deletionQueries } from '../hogql/event-deletion.js';
import { selectPersons } from '../bulk/input/selection.js';
import { parseAssignments } from '../api/set-value.js';
import { UsageError } from '../errors.js';
import { errorText, runCaptured } from './call.js';
import { allowedProject } from './policy.js';
import { ok, refused, type ToolEnv, type ToolSpec } from './tool.js';
import { personsFileText, sha256Of, writeJobPlan, type JobPlanBody } from './job-plan-file.js';
import type { PlanEntry, PlanKind } from './plans.js';
import { applyHint } from './plan-tools.js';

const MAX_WAIT_MS = 60 * 60_000;
const PLANS = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };

const summary = (entry: PlanEntry) => ({
  plan_id: entry.id,
  kind: entry.kind,
  plan_file: entry.path,
  host: entry.host,
  projects: entry.projects,
  count: entry.count,
  what: entry.what,
  sample: entry.sample,
  apply: applyHint(entry),
});

const summaryOutput = (z: Parameters<ToolSpec['output']>[0]) =>
  z.object({
    plan_id: z.string(),
    kind: z.string(),
    plan_file: z.string(),
    host: z.string(),
    projects: z.array(z.string()),
    count: z.number(),
    what: z.string(),
    sample: z.array(z.string()),
    apply: z.string(),
  });

const projectArg = (z: Parameters<ToolSpec['input']>[0]) =>
  z.string().regex(/^\d+$/).optional().describe("a project id (default: the server's)");

/** Plans with `write(ctx, path)` in a project this server may touch, and lists the plan written. */
async function planned(
  env: ToolEnv,
  kind: PlanKind,
  project: unknown,
  write: (ctx: Context, path: string) => Promise<void>,
): Promise<CallToolResult> {
  let chosen: string | undefined;
  try {
    chosen = allowedProject(env.policy, project as string | undefined, env.base.settings.projectId);
  } catch (err) {
    return refused(`usage (exit 2): ${(err as Error).message}; nothing was planned`);
  }
  const path = env.services.plans.nextPath(kind, env.base.now());
  const run = await runCaptured(env.base, (ctx) => write(ctx, path), chosen);
  if (run.error) return refused(errorText(run.error));
  // The verb wrote no plan: it found nothing to do, and said so.
  if (!existsSync(path))
    return refused(`nothing to plan: ${run.stderr.trim().split('\n').at(-1) ?? 'the verb found nothing to do'}; no plan was made`);
  try {
    return ok(summary(await env.services.plans.add(kind, path)));
  } catch (err) {
    return refused(errorText(err as Error));
  }
}

export const mergePlan: ToolSpec = {
  name: 'merge_plan',
  family: 'merge',
  stage: 'plan',
  title: 'Plan a merge of duplicate persons',
  description:
    'Plans merging persons, as `hogctl persons merge --dry-run --plan-out` does: one group (`persons`: the person to keep, then those to merge into it, by UUID or distinct id), or every group `persons duplicates` finds (`duplicates_by`). Writes a signed plan; merges nothing: plan_apply runs it once a person approves it.',
  annotations: PLANS,
  input: (z) =>
    z.strictObject({
      project: projectArg(z),
      persons: z.array(z.string().min(1)).min(2).optional(),
      duplicates_by: z.array(z.string().min(1)).min(1).optional().describe('properties persons duplicates groups by, e.g. ["email"]'),
      keep: z.string().optional().describe('with duplicates_by: which person of a group is kept (as --keep)'),
    }),
  output: summaryOutput,
  call: (env, a) => {
    if ((a.persons === undefined) === (a.duplicates_by === undefined))
      return Promise.resolve(refused('usage (exit 2): give either persons (one group) or duplicates_by'));
    return planned(env, 'merge', a.project, (ctx, path) => mergeDryRun(ctx, a, path, path));
  },
};

/** `persons merge --dry-run` of one group or of the duplicates found, the plan written to `planOut` if given. */
export async function mergeDryRun(ctx: Context, a: Record<string, unknown>, path: string, planOut?: string): Promise<void> {
  if (a.persons) return personsMergeRun(ctx, { dryRun: true, planOut }, a.persons as string[]);
  const groups = await duplicateGroups(ctx, a.duplicates_by as string[], path);
  return personsMergeRun(ctx, { groups, dryRun: true, planOut, keep: a.keep as string | undefined });
}

/** The groups `persons duplicates --by` finds, written beside the plan for `merge --groups`. */
async function duplicateGroups(ctx: Context, by: string[], planPath: string): Promise<string> {
  const listing = await runCaptured(
    { deps: ctx.deps, globals: ctx.globals, settings: await ctx.settings(), now: ctx.clock.now },
    (inner) => personsDuplicatesRun(inner, { by }),
    await ctx.projectId(),
  );
  if (listing.error) throw listing.error;
  const file = planPath.replace(/\.json$/, '.groups.json');
  writeFileSync(file, listing.stdout, { mode: 0o600, flag: 'wx' });
  return file;
}

/** The changes as the verb's flags, checked as it checks them. */
export function changesOf(a: Record<string, unknown>): Record<string, string[]> {
  const set = (a.set as string[] | undefined) ?? [];
  const setOnce = (a.set_once as string[] | undefined) ?? [];
  const unset = (a.unset as string[] | undefined) ?? [];
  parseAssignments(set);
  parseAssignments(setOnce, '--set-once');
  if (!set.length && !setOnce.length && !unset.length)
    throw new UsageError('nothing to change: give set, set_once or unset', 'e.g. set: ["plan=team"]');
  return { ...(set.length ? { set } : {}), ...(setOnce.length ? { setOnce } : {}), ...(unset.length ? { unset } : {}) };
}

async function writeUpdatePlan(ctx: Context, a: Record<string, unknown>, path: string): Promise<void> {
  const changes = changesOf(a);
  const spec = { where: (a.where as string[]) ?? [], cohort: (a.cohort as string) ?? null, query: (a.query as string) ?? null };
  if (!spec.where.length && spec.cohort === null && spec.query === null)
    throw new UsageError('no persons chosen: give where, cohort or query');
  const project = await ctx.projectId();
  const found = await selectPersons(ctx, await ctx.api(), project, spec, { maxWaitMs: MAX_WAIT_MS });
  if (found.ids.length === 0) throw new UsageError('the selection names no person; no plan was made');
  const file = path.replace(/\.json$/, '.persons.txt');
  const text = personsFileText(found.ids);
  writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
  const { baseUrl, profileName } = await ctx.settings();
  const body: JobPlanBody = {
    format: 'hogctl mcp job plan',
    kind: 'update',
    created_at: new Date(ctx.clock.now()).toISOString(),
    host: baseUrl,
    profile: profileName ?? null,
    project,
    args: { file, ...changes },
    persons: { file, sha256: sha256Of(text), uuids: found.ids },
    count: found.ids.length,
    what: `change ${found.ids.length} ${found.ids.length === 1 ? 'person' : 'persons'} (${describeChanges(changes)})`,
    sample: found.ids.slice(0, 10),
  };
  writeJobPlan(path, body, ctx.env);
}

const describeChanges = (c: Record<string, string[]>) =>
  [
    ...(c.set ?? []).map((s) => `set ${s}`),
    ...(c.setOnce ?? []).map((s) => `set once ${s}`),
    ...(c.unset ?? []).map((k) => `unset ${k}`),
  ].join('; ');

export const updatePlan: ToolSpec = {
  name: 'update_plan',
  family: 'update',
  stage: 'plan',
  title: 'Plan a bulk update of persons',
  description:
    'Plans changing the properties of the persons a selection names (where, cohort or query, as `hogctl persons bulk-update`): resolves them now and writes a signed plan holding their UUIDs and the changes. Changes nothing: plan_apply runs it once a person approves it, on those persons only.',
  annotations: PLANS,
  input: (z) =>
    z.strictObject({
      project: projectArg(z),
      where: z.array(z.string()).optional().describe('key=value property filters, all must match'),
      cohort: z.string().regex(/^\d+$/).optional(),
      query: z.string().optional().describe('HogQL whose first column is the person id'),
      set: z.array(z.string()).optional().describe('key=value, typed as persons update types it'),
      set_once: z.array(z.string()).optional(),
      unset: z.array(z.string()).optional(),
    }),
  output: summaryOutput,
  call: (env, a) => planned(env, 'update', a.project, (ctx, path) => writeUpdatePlan(ctx, a, path)),
};

/** The tool's arguments as the options of `events delete`. */
export const eventOptions = (a: Record<string, unknown>): EventsDeleteOptions => ({
  distinctId: a.distinct_ids as string[] | undefined,
  event: a.event as string | undefined,
  after: a.after as string | undefined,
  before: a.before as string | undefined,
  query: a.query as string | undefined,
});

async function writeEventPlan(ctx: Context, a: Record<string, unknown>, path: string): Promise<void> {
  const options = eventOptions(a);
  const queries = deletionQueries(selectionOf(options));
  if (!queries) throw new UsageError("the selection is longer than PostHog's limit for one deletion request");
  const project = await ctx.projectId();
  const cap = { maxWaitMs: MAX_WAIT_MS, flag: '--max-wait' };
  const { count } = await countSelection(ctx, project, queries, cap);
  if (count === null)
    throw new UsageError(
      'the events could not be counted, so no count can be approved; no plan was made',
      'run `hogctl events delete` in a terminal',
    );
  const sample = count ? await sampleSelection(ctx, project, queries[0], 5) : [];
  const { baseUrl, profileName } = await ctx.settings();
  const args = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const body: JobPlanBody = {
    format: 'hogctl mcp job plan',
    kind: 'event-deletion',
    created_at: new Date(ctx.clock.now()).toISOString(),
    host: baseUrl,
    profile: profileName ?? null,
    project,
    args,
    count,
    what: `delete the ${count} events ${selectionText(options)}, now, in project ${project} (PostHog deletes what the selection names when it runs the request)`,
    sample: sample.map((row) => row.map(String).join('  ')),
  };
  writeJobPlan(path, body, ctx.env);
}

/** The longest query the approval shows whole; a longer one is shown in part, and the plan file has it. */
const QUERY_SHOWN = 1_000;

/**
 * The selection, as the person approving reads it: the count alone would let an agent hide what a
 * query takes (one whose matches grow by the time the request runs), so the selection is shown.
 */
function selectionText(o: EventsDeleteOptions): string {
  if (o.query !== undefined)
    return o.query.length <= QUERY_SHOWN
      ? `selected by the query ${o.query}`
      : `selected by a query of ${o.query.length.toLocaleString('en-US')} characters (the plan file has it whole) that begins ${o.query.slice(0, QUERY_SHOWN)}…`;
  const ids = o.distinctId ?? [];
  return [
    ids.length &&
      `of distinct id${ids.length === 1 ? '' : 's'} ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ` and ${(ids.length - 5).toLocaleString('en-US')} more` : ''}`,
    o.event !== undefined && `of event ${JSON.stringify(o.event)}`,
    o.after !== undefined && `after ${o.after}`,
    o.before !== undefined && `before ${o.before}`,
  ]
    .filter(Boolean)
    .join(', ');
}

export const eventDeletionPlan: ToolSpec = {
  name: 'event_deletion_plan',
  family: 'events',
  stage: 'plan',
  title: 'Plan an event deletion',
  description:
    'Plans deleting the events a selection names (distinct_ids, event, after, before, or a HogQL query of event UUIDs, as `hogctl events delete`): counts them, takes a sample, and writes a signed plan. Deletes nothing: plan_apply makes the deletion requests once a person approves it.',
  annotations: PLANS,
  input: (z) =>
    z.strictObject({
      project: projectArg(z),
      distinct_ids: z.array(z.string().min(1)).optional(),
      event: z.string().optional(),
      after: z.string().optional().describe('ISO 8601'),
      before: z.string().optional().describe('ISO 8601'),
      query: z.string().optional().describe('HogQL selecting one column of event UUIDs'),
    }),
  output: summaryOutput,
  call: (env, a) => planned(env, 'event-deletion', a.project, (ctx, path) => writeEventPlan(ctx, a, path)),
};

export const JOB_PLAN_TOOLS = [mergePlan, updatePlan, eventDeletionPlan];
