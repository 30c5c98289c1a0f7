// plan_apply: runs a plan this server made, only once a person approved that plan through the
// client (approval.ts): on its one-time loopback page, or in a form where the client offers only
// that. The agent can ask; it cannot answer. Without that approval nothing is sent, and the result
// gives the command a person can run in a terminal instead. The plan is re-read and re-checked
// (signed, unchanged since it was made and since it was approved, for this host and the projects
// allowed) before it runs, as the command line does with a plan (plan-runs.ts).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorText } from './call.js';
import { jsonOf, ok, refused, type CallExtra, type ToolEnv, type ToolSpec } from './tool.js';
import type { PlanEntry } from './plans.js';
import { approve } from './approval.js';
import { runPlan } from './plan-runs.js';
import { keepAlive, progressSender } from './progress.js';

const notSent = (why: string, entry?: PlanEntry) =>
  refused(
    `not approved: ${why}; nothing was sent.${entry ? ` A person can apply it in a terminal, where it is confirmed: ${entry.terminal}` : ''}`,
  );

/** The plan, re-checked: made here, signed, unchanged, and for projects this server may touch. */
async function checkedPlan(env: ToolEnv, id: string): Promise<PlanEntry | { refusal: CallToolResult }> {
  try {
    const entry = await env.services.plans.check(id);
    const outside = entry.projects.filter((p) => env.policy.projects && !env.policy.projects.includes(p));
    if (outside.length)
      return {
        refusal: refused(`usage (exit 2): the plan is for project ${outside.join(',')}, which this server may not touch; nothing was sent`),
      };
    if (entry.host !== env.base.settings.baseUrl)
      return { refusal: refused(`usage (exit 2): the plan was made for ${entry.host}; nothing was sent`) };
    return entry;
  } catch (err) {
    return { refusal: refused(errorText(err as Error)) };
  }
}

async function applyApproved(env: ToolEnv, id: string, extra: CallExtra): Promise<CallToolResult> {
  const first = await checkedPlan(env, id);
  if ('refusal' in first) return first.refusal;
  const approved = await approve(env, first, extra);
  if (typeof approved === 'string') return notSent(approved, first);
  // Re-read after the approval: it holds only for the plan as it was signed when shown.
  const now = await checkedPlan(env, first.id);
  if ('refusal' in now) return now.refusal;
  if (now.signature !== approved.signature) return notSent('the plan changed after it was approved', now);
  // A plan runs once, whatever its run ends with: marked before it starts.
  const receiptHint = now.kind === 'event-deletion' ? 'its deletion requests' : now.path.replace(/\.json$/, '.receipt.json');
  env.services.plans.markApplied(now.id, receiptHint);
  const { run, receipt } = await runPlan(env, now, approved.signature, progressSender(extra));
  const out = jsonOf(run);
  if ('error' in out) return out.error;
  return ok({ plan_id: now.id, kind: now.kind, receipt_file: receipt, receipt: out.value });
}

export const planApply: ToolSpec = {
  name: 'plan_apply',
  family: 'apply',
  stage: 'apply',
  title: 'Apply an approved plan',
  description:
    'Runs a plan made by erasure_plan, merge_plan, update_plan or event_deletion_plan, after a person approves that exact plan through the client (a page it opens for them, or a form): the agent cannot approve it. Without approval nothing is sent, and the result gives the terminal command a person can run instead. While it waits and runs it sends progress notifications.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  input: (z) => z.strictObject({ plan_id: z.string().min(1) }),
  output: (z) => z.object({ plan_id: z.string(), kind: z.string(), receipt_file: z.string().nullable(), receipt: z.unknown() }),
  call: (env, args, extra) => keepAlive(extra, () => applyApproved(env, args.plan_id as string, extra)),
};
