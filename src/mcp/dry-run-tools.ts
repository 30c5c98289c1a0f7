// The dry run of each job, as a tool that only reads: the verb run with --dry-run and `-o json`,
// with the same arguments as its plan tool. It answers with what the verb prints (a dry run's
// summary, where the verb prints one) and its plan, line by line, as a terminal shows it. It writes
// no plan (only a merge of the duplicates found writes their groups, for `merge --groups` to read),
// so nothing it returns can be applied: that takes the plan tool and a person.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../context.js';
import { personsBulkUpdateRun } from '../commands/persons/bulk-update.js';
import { eventsDeleteRun } from '../commands/events/delete.js';
import { errorText, runCaptured } from './call.js';
import { allowedProject } from './policy.js';
import { jsonOf, MAX_ROWS, ok, refused, type ToolEnv, type ToolSpec } from './tool.js';
import { erasureDryRun, erasurePlan, projectsOf, type ErasureArgs } from './plan-tools.js';
import { changesOf, eventDeletionPlan, eventOptions, mergeDryRun, mergePlan, updatePlan } from './job-plan-tools.js';

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

const dryRunOutput = (z: Parameters<ToolSpec['output']>[0]) =>
  z.object({
    project: z.string().optional(),
    result: z.unknown().describe('what the verb prints with -o json, if anything'),
    plan: z.array(z.string()).describe('the plan, as the verb shows it on a terminal'),
    truncated: z.boolean(),
  });

/** Runs a dry run in `project` (undefined: the projects the run names), and answers with its output and plan. */
async function dryRun(env: ToolEnv, project: string | undefined, run: (ctx: Context) => Promise<void>): Promise<CallToolResult> {
  const captured = await runCaptured(env.base, run, project);
  if (captured.error) return refused(errorText(captured.error));
  const out = jsonOf(captured);
  const lines = captured.stderr.split('\n').filter((line) => line.trim() !== '');
  return ok({
    ...(project ? { project } : {}),
    result: 'error' in out ? null : out.value,
    plan: lines.slice(0, MAX_ROWS),
    truncated: lines.length > MAX_ROWS,
  });
}

/** The project a one-project dry run runs in, or the refusal of one not allowed. */
function projectFor(env: ToolEnv, project: unknown): string | undefined | CallToolResult {
  try {
    return allowedProject(env.policy, project as string | undefined, env.base.settings.projectId);
  } catch (err) {
    return refused(`usage (exit 2): ${(err as Error).message}`);
  }
}

const inProject = (env: ToolEnv, project: unknown, run: (ctx: Context) => Promise<void>) => {
  const chosen = projectFor(env, project);
  return typeof chosen === 'object' ? Promise.resolve(chosen) : dryRun(env, chosen, run);
};

export const erasureDryRunTool: ToolSpec = {
  name: 'erasure_dry_run',
  family: 'erasure',
  stage: 'read',
  title: 'Dry run of an erasure',
  description:
    'What `hogctl persons bulk-delete --dry-run` shows for these e-mail addresses, distinct ids and person ids: the persons found, counted, and the plan. Writes no plan and deletes nothing (erasure_plan makes one to approve).',
  annotations: READ,
  input: erasurePlan.input,
  output: dryRunOutput,
  call: (env, args) => {
    const a = args as ErasureArgs;
    if (!a.emails?.length && !a.distinct_ids?.length && !a.person_ids?.length)
      return Promise.resolve(refused('usage (exit 2): give emails, distinct_ids or person_ids'));
    const where = projectsOf(env.policy, a.projects);
    if (typeof where === 'string') return Promise.resolve(refused(`usage (exit 2): ${where}`));
    return dryRun(env, undefined, (ctx) => erasureDryRun(ctx, a, where));
  },
};

export const mergeDryRunTool: ToolSpec = {
  name: 'merge_dry_run',
  family: 'merge',
  stage: 'read',
  title: 'Dry run of a merge',
  description:
    'What `hogctl persons merge --dry-run` shows: the groups, the person kept in each, and what is left out. Writes no plan and merges nothing (merge_plan makes one to approve).',
  annotations: READ,
  input: mergePlan.input,
  output: dryRunOutput,
  call: (env, a) => {
    if ((a.persons === undefined) === (a.duplicates_by === undefined))
      return Promise.resolve(refused('usage (exit 2): give either persons (one group) or duplicates_by'));
    return inProject(env, a.project, (ctx) => mergeDryRun(ctx, a, env.services.plans.nextPath('merge', env.base.now())));
  },
};

export const updateDryRunTool: ToolSpec = {
  name: 'update_dry_run',
  family: 'update',
  stage: 'read',
  title: 'Dry run of a bulk update',
  description:
    'What `hogctl persons bulk-update --dry-run` shows for a selection and its changes: the persons selected, a sample, the changes. Writes no plan and changes nothing (update_plan makes one to approve).',
  annotations: READ,
  input: updatePlan.input,
  output: dryRunOutput,
  call: (env, a) =>
    inProject(env, a.project, (ctx) =>
      personsBulkUpdateRun(ctx, {
        ...changesOf(a),
        where: a.where as string[] | undefined,
        cohort: a.cohort as string | undefined,
        query: a.query as string | undefined,
        via: 'capture',
        dryRun: true,
      }),
    ),
};

export const eventDeletionDryRunTool: ToolSpec = {
  name: 'event_deletion_dry_run',
  family: 'events',
  stage: 'read',
  title: 'Dry run of an event deletion',
  description:
    'What `hogctl events delete --dry-run` shows for a selection: the events counted now, a sample, the requests it would make. Writes no plan and deletes nothing (event_deletion_plan makes one to approve).',
  annotations: READ,
  input: eventDeletionPlan.input,
  output: dryRunOutput,
  call: (env, a) => inProject(env, a.project, (ctx) => eventsDeleteRun(ctx, { ...eventOptions(a), dryRun: true })),
};

export const DRY_RUN_TOOLS = [erasureDryRunTool, mergeDryRunTool, updateDryRunTool, eventDeletionDryRunTool];
