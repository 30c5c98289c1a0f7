// How plan_apply gets a person's approval of one plan, through the client: URL mode (a one-time
// page on loopback, approval-page.ts) where the client offers it, else form mode (a form the client
// shows its user, with a field for the count). Either way the approval names the plan's signature
// as it was shown (plan_apply runs the plan only if it still has it), and is good for that one
// request: the page answers once and expires; the form carries a one-time code made for this
// request, and an answer with another request's code, another plan's, or another count approves
// nothing.
import { randomBytes, randomUUID } from 'node:crypto';
import { APPROVAL_TTL_MS } from './approval-page.js';
import type { CallExtra, ToolEnv } from './tool.js';
import type { PlanEntry } from './plans.js';

/** The signature approved, or why there is no approval. */
export type Approval = { signature: string } | string;

const ask = (e: PlanEntry) => `${e.what} on ${e.host} (plan ${e.id})`;

/** Asks the client's user to approve this plan, in the mode the client offers. */
export function approve(env: ToolEnv, entry: PlanEntry, extra: CallExtra): Promise<Approval> {
  if (env.services.canOpenUrls()) return approveOnPage(env, entry, extra);
  if (env.services.canAskForms()) return approveInForm(env, entry, extra);
  return Promise.resolve('this client cannot ask its user (it offers no elicitation)');
}

async function approveOnPage(env: ToolEnv, entry: PlanEntry, extra: CallExtra): Promise<Approval> {
  const facts = {
    planId: entry.id,
    signature: entry.signature,
    count: entry.count,
    what: entry.what,
    host: entry.host,
    projects: entry.projects,
    sample: entry.sample,
    file: entry.path,
  };
  const page = await env.services.pages.open(facts, extra.signal);
  const elicitationId = randomUUID();
  const message = `Approve or decline: ${ask(entry)}, on this page.`;
  const asked = await env.services.elicit({ mode: 'url', message, elicitationId, url: page.url }, extra).catch((err: Error) => err);
  const refusal = refusalOf(asked);
  if (refusal) {
    page.withdraw();
    return refusal;
  }
  const outcome = await page.outcome;
  await env.services.elicitationDone(elicitationId).catch(() => undefined);
  return outcome.approved ? { signature: outcome.signature } : outcome.reason;
}

function refusalOf(asked: Error | { action: string }): string | undefined {
  if (asked instanceof Error) return `the client could not ask its user (${asked.message})`;
  if (asked.action === 'accept') return undefined;
  return `the user ${asked.action === 'decline' ? 'declined' : 'cancelled'} the approval`;
}

/** A code for this request alone. */
const oneTimeCode = () => randomBytes(9).toString('base64url');

async function approveInForm(env: ToolEnv, entry: PlanEntry, extra: CallExtra): Promise<Approval> {
  const code = oneTimeCode();
  const sample = entry.sample.length ? ` For example: ${entry.sample.slice(0, 5).join('; ')}.` : '';
  const message =
    `An agent asks to ${ask(entry)}, projects ${entry.projects.join(', ')}. This cannot be undone.${sample} ` +
    `To approve, type ${entry.count} in the count field; to refuse, decline.`;
  const requestedSchema = {
    type: 'object' as const,
    properties: {
      count: { type: 'integer' as const, title: 'Count', description: `type ${entry.count} to approve this plan` },
      approval: { type: 'string' as const, title: `Plan ${entry.id}`, enum: [code], default: code },
    },
    required: ['count', 'approval'],
  };
  const asked = await env.services.elicit({ mode: 'form', message, requestedSchema }, extra, APPROVAL_TTL_MS).catch((err: Error) => err);
  const refusal = refusalOf(asked);
  if (refusal) return refusal;
  const content = (asked as { content?: Record<string, unknown> }).content ?? {};
  if (content.approval !== code) return 'the answer is not the approval of this plan for this request';
  if (content.count !== entry.count) return `the count typed is not ${entry.count}`;
  return { signature: entry.signature };
}
