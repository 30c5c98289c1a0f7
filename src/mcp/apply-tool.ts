// plan_apply: runs a plan this server made, only once a person approved that plan on its one-time
// loopback page (approval-page.ts), which the client opens for its user through a URL-mode
// elicitation. The agent can ask; it cannot answer. Without that approval nothing is sent, and the
// result gives the command a person can run in a terminal instead. The plan is re-read and
// re-checked (signed, unchanged since it was made and since it was approved, for this host and
// the projects allowed) before it runs, as `persons bulk-delete --plan <file>`.
import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { personsBulkDeleteRun } from '../commands/persons/bulk-delete.js';
import { errorText, runCaptured } from './call.js';
import { jsonOf, ok, refused, type CallExtra, type ToolEnv, type ToolSpec } from './tool.js';
import type { PlanEntry } from './plans.js';
import type { PlanFile } from '../bulk/engine/plan-file.js';

const terminal = (entry: PlanEntry) => `hogctl persons bulk-delete --plan ${entry.path}`;
const notSent = (why: string, entry?: PlanEntry) =>
  refused(
    `not approved: ${why}; nothing was sent.${entry ? ` A person can apply it in a terminal, where it is confirmed: ${terminal(entry)}` : ''}`,
  );

/** The plan, re-checked: made here, signed, unchanged, and for projects this server may touch. */
async function checkedPlan(env: ToolEnv, id: string): Promise<{ entry: PlanEntry; plan: PlanFile } | { refusal: CallToolResult }> {
  try {
    const found = await env.services.plans.check(id);
    const outside = found.plan.projects.map((p) => p.project).filter((p) => env.policy.projects && !env.policy.projects.includes(p));
    if (outside.length)
      return {
        refusal: refused(`usage (exit 2): the plan is for project ${outside.join(',')}, which this server may not touch; nothing was sent`),
      };
    if (found.plan.host !== env.base.settings.baseUrl)
      return { refusal: refused(`usage (exit 2): the plan was made for ${found.plan.host}; nothing was sent`) };
    return found;
  } catch (err) {
    return { refusal: refused(errorText(err as Error)) };
  }
}

/** Sends the client's user to the plan's page, and waits for the person's answer there. */
async function approval(env: ToolEnv, entry: PlanEntry, plan: PlanFile, extra: CallExtra): Promise<string | { signature: string }> {
  if (!env.services.canOpenUrls()) return 'this client cannot send its user to an approval page (URL-mode elicitation)';
  const sample = plan.projects.flatMap((p) => p.person_uuids).slice(0, 10);
  const facts = {
    planId: entry.id,
    signature: entry.signature,
    persons: entry.persons,
    host: plan.host,
    projects: entry.projects,
    sample,
    file: entry.path,
  };
  const page = await env.services.pages.open(facts, extra.signal);
  const elicitationId = randomUUID();
  const message = `Approve or decline the deletion of ${entry.persons} persons on ${plan.host} (plan ${entry.id}) on this page.`;
  const asked = await env.services.elicitUrl({ mode: 'url', message, elicitationId, url: page.url }, extra).catch((err: Error) => err);
  const refusal =
    asked instanceof Error
      ? `the client could not ask its user (${asked.message})`
      : asked.action !== 'accept'
        ? `the user ${asked.action === 'decline' ? 'declined' : 'cancelled'} the approval page`
        : undefined;
  if (refusal) {
    page.withdraw();
    return refusal;
  }
  const outcome = await page.outcome;
  await env.services.elicitationDone(elicitationId).catch(() => undefined);
  return outcome.approved ? { signature: outcome.signature } : outcome.reason;
}

/** The job's notes and progress lines as MCP progress notifications, when the client asked for them. */
function progressSender(extra: CallExtra): ((line: string) => void) | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let progress = 0;
  return (message) => {
    progress += 1;
    void extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message } })
      .catch(() => undefined);
  };
}

export const planApply: ToolSpec = {
  name: 'plan_apply',
  family: 'erasure',
  stage: 'apply',
  title: 'Apply an approved plan',
  description:
    'Runs a plan made by erasure_plan, after a person approves that exact plan on a page the client opens for them (the agent cannot approve it). Without approval nothing is sent, and the result gives the terminal command a person can run instead.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  input: (z) => z.strictObject({ plan_id: z.string().min(1) }),
  output: (z) => z.object({ plan_id: z.string(), receipt_file: z.string(), receipt: z.unknown() }),
  call: async (env, args, extra) => {
    const first = await checkedPlan(env, args.plan_id as string);
    if ('refusal' in first) return first.refusal;
    const approved = await approval(env, first.entry, first.plan, extra);
    if (typeof approved === 'string') return notSent(approved, first.entry);
    // Re-read after the approval: it holds only for the plan as it was signed when shown.
    const now = await checkedPlan(env, first.entry.id);
    if ('refusal' in now) return now.refusal;
    if (now.plan.hmac_sha256 !== approved.signature) return notSent('the plan changed after it was approved', now.entry);
    const receipt = now.entry.path.replace(/\.json$/, '.receipt.json');
    const run = await runCaptured(
      env.base,
      (ctx) => personsBulkDeleteRun(ctx, { plan: now.entry.path, yes: true, receipt }),
      undefined,
      progressSender(extra),
    );
    now.entry.applied = receipt;
    const out = jsonOf(run);
    if ('error' in out) return out.error;
    return ok({ plan_id: now.entry.id, receipt_file: receipt, receipt: out.value });
  },
};
