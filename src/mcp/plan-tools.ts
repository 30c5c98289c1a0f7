// erasure_plan: resolves e-mail addresses, distinct ids and person ids in the projects asked, as
// `persons bulk-delete --dry-run --plan-out` does (the same engine and kind), signs the plan, and
// returns its id, its numbers, a sample of its persons and the file. Nothing is deleted.
import type { Context } from '../context.js';
import { settleBulkJob, runBulkJob } from '../bulk/engine/job.js';
import { deleteKind } from '../bulk/kinds/delete/delete-persons.js';
import { parseJobFlags } from '../commands/persons/shared/job-flags.js';
import { errorText, runCaptured } from './call.js';
import { ok, refused, type ToolEnv, type ToolSpec } from './tool.js';
import { readPlanFile, type PlanFile } from '../bulk/engine/plan-file.js';
import type { McpPolicy } from './policy.js';
import type { PlanEntry } from './plans.js';

const SAMPLE = 10;

export interface ErasureArgs {
  emails?: string[];
  distinct_ids?: string[];
  person_ids?: string[];
  projects?: string[] | 'all';
}

/** The projects to search: those named (each allowed), or with "all" every allowed one or every one. */
export function projectsOf(policy: McpPolicy, asked: ErasureArgs['projects']): { projects?: string[]; all: boolean } | string {
  if (asked === undefined) return { all: false, projects: policy.projects };
  if (asked === 'all') return policy.projects ? { projects: policy.projects, all: false } : { all: true };
  const outside = asked.filter((p) => policy.projects && !policy.projects.includes(p));
  if (outside.length) return `project ${outside.join(',')} is not one this server may touch (--projects ${policy.projects!.join(',')})`;
  return { projects: asked, all: false };
}

/** `persons bulk-delete --dry-run` of these identifiers, the plan written to `path` if given. */
export async function erasureDryRun(
  ctx: Context,
  a: ErasureArgs,
  where: { projects?: string[]; all: boolean },
  path?: string,
): Promise<void> {
  const input = {
    kind: 'identifiers' as const,
    flag: '--email' as const,
    emails: a.emails ?? [],
    distinctIds: a.distinct_ids ?? [],
    persons: a.person_ids ?? [],
  };
  const job = parseJobFlags({ dryRun: true });
  const settled = await settleBulkJob(ctx, { ...job, input, projects: where.projects, allProjects: where.all, planOut: path });
  await runBulkJob(ctx, settled, deleteKind({ delete_events: false, delete_recordings: false, keep_person: false }));
}

/** How a plan is applied: by plan_apply once a person approves it, or by that person in a terminal. */
export const applyHint = (entry: PlanEntry) =>
  `plan_apply with plan_id ${entry.id}, approved by a person; or in a terminal: ${entry.terminal}`;

/** The tool's answer: the plan's id and file, its numbers counted from its lists, and a sample. */
export function planSummary(entry: PlanEntry, p: PlanFile): Record<string, unknown> {
  const sample = p.projects
    .flatMap((proj) => proj.person_uuids.map((uuid) => ({ project: proj.project, person_uuid: uuid })))
    .slice(0, SAMPLE);
  return {
    plan_id: entry.id,
    plan_file: entry.path,
    host: p.host,
    persons: entry.count,
    projects: p.projects.map((proj) => ({
      project: proj.project,
      name: proj.name,
      persons: proj.person_uuids.length,
      unreachable: proj.unreachable,
    })),
    identifiers: p.input.ids,
    identifiers_matched: p.identifiers?.matched ?? null,
    identifiers_unmatched: p.identifiers?.unmatched_keys.length ?? null,
    sample,
    apply: applyHint(entry),
  };
}

export const erasurePlan: ToolSpec = {
  name: 'erasure_plan',
  family: 'erasure',
  stage: 'plan',
  title: 'Plan an erasure',
  description:
    'Finds the persons that e-mail addresses, distinct ids and person ids name, as `hogctl persons bulk-delete --dry-run --plan-out` does, and writes a signed plan. Deletes nothing: plan_apply runs it once a person approves it.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  input: (z) =>
    z.strictObject({
      emails: z.array(z.string()).optional(),
      distinct_ids: z.array(z.string()).optional(),
      person_ids: z.array(z.string()).optional(),
      projects: z.union([z.array(z.string().regex(/^\d+$/)).min(1), z.literal('all')]).optional(),
    }),
  output: (z) =>
    z.object({
      plan_id: z.string(),
      plan_file: z.string(),
      host: z.string(),
      persons: z.number(),
      projects: z.array(
        z.object({ project: z.string(), name: z.string().nullable(), persons: z.number(), unreachable: z.string().nullable() }),
      ),
      identifiers: z.number(),
      identifiers_matched: z.number().nullable(),
      identifiers_unmatched: z.number().nullable(),
      sample: z.array(z.object({ project: z.string(), person_uuid: z.string() })),
      apply: z.string(),
    }),
  call: async (env: ToolEnv, args) => {
    const a = args as ErasureArgs;
    if (!a.emails?.length && !a.distinct_ids?.length && !a.person_ids?.length)
      return refused('usage (exit 2): give emails, distinct_ids or person_ids');
    const where = projectsOf(env.policy, a.projects);
    if (typeof where === 'string') return refused(`usage (exit 2): ${where}; nothing was planned`);
    const path = env.services.plans.nextPath('erasure', env.base.now());
    const run = await runCaptured(env.base, (ctx) => erasureDryRun(ctx, a, where, path));
    if (run.error) return refused(errorText(run.error));
    const entry = await env.services.plans.add('erasure', path);
    return ok(planSummary(entry, await readPlanFile(path, env.base.deps.env)));
  },
};
