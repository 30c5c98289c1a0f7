// An approved plan run as the command line runs it, in this process with `-o json` (call.ts): an
// erasure as `persons bulk-delete --plan`, a merge as `persons merge --groups <plan>`, an update as
// `persons bulk-update --file <its persons>` with its changes, an event deletion as `events
// delete` with its selection. Each verb journals, locks and writes its receipt as on a terminal;
// `--yes` stands for the confirmation, which the person gave on the approval.
import { UsageError } from '../errors.js';
import { personsBulkDeleteRun } from '../commands/persons/bulk-delete.js';
import { personsMergeRun } from '../commands/persons/merge.js';
import { personsBulkUpdateRun, type PersonsBulkUpdateOptions } from '../commands/persons/bulk-update.js';
import { eventsDeleteRun, type EventsDeleteOptions } from '../commands/events/delete.js';
import type { Context } from '../context.js';
import { readJobPlan } from './job-plan-file.js';
import { runCaptured, type Captured } from './call.js';
import type { ToolEnv } from './tool.js';
import type { PlanEntry } from './plans.js';

export interface PlanRun {
  run: Captured;
  /** Where the verb wrote its receipt; null for an event deletion, whose record is its journal. */
  receipt: string | null;
}

/** The update's or event deletion's own plan, read again, with the signature the person approved. */
function approvedJobPlan(env: ToolEnv, entry: PlanEntry, signature: string) {
  const plan = readJobPlan(entry.path, env.base.deps.env);
  if (plan.hmac_sha256 !== signature) throw new UsageError(`the plan ${entry.id} changed after it was approved; nothing was sent`);
  return plan;
}

function runOf(entry: PlanEntry, env: ToolEnv, signature: string, receipt: string): (ctx: Context) => Promise<void> {
  switch (entry.kind) {
    case 'erasure':
      return (ctx) => personsBulkDeleteRun(ctx, { plan: entry.path, yes: true, receipt });
    case 'merge':
      return (ctx) => personsMergeRun(ctx, { groups: entry.path, yes: true, receipt });
    case 'update':
      return (ctx) => {
        const plan = approvedJobPlan(env, entry, signature);
        const options = { ...(plan.args as Partial<PersonsBulkUpdateOptions>), via: 'capture' as const, yes: true, receipt };
        return personsBulkUpdateRun(ctx, options);
      };
    case 'event-deletion':
      return (ctx) => eventsDeleteRun(ctx, { ...(approvedJobPlan(env, entry, signature).args as EventsDeleteOptions), yes: true });
  }
}

/** Runs the approved plan in its project; each line of its notes to `onNote`. */
export async function runPlan(env: ToolEnv, entry: PlanEntry, signature: string, onNote?: (line: string) => void): Promise<PlanRun> {
  const receipt = entry.kind === 'event-deletion' ? null : entry.path.replace(/\.json$/, '.receipt.json');
  // An erasure's plan names its projects itself; the others run in the one they were planned in.
  const project = entry.kind === 'erasure' ? undefined : entry.projects[0];
  const run = await runCaptured(env.base, runOf(entry, env, signature, receipt ?? ''), project, onNote);
  return { run, receipt };
}
