// The MCP server of `hogctl mcp`: the tools the flags allow (policy.ts), each registered with its
// schemas and annotations, and the services the plan tools share. Every result passes through
// `redacted`: the key is the server's, and no result carries it, whatever a verb printed.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { VERSION } from '../context.js';
import type { Sdk } from './sdk.js';
import type { McpBase } from './call.js';
import type { McpPolicy } from './policy.js';
import { READ_TOOLS } from './read-tools.js';
import { erasurePlan } from './plan-tools.js';
import { JOB_PLAN_TOOLS } from './job-plan-tools.js';
import { DRY_RUN_TOOLS } from './dry-run-tools.js';
import { planApply } from './apply-tool.js';
import { PlanRegistry } from './plans.js';
import { ApprovalPages } from './approval-page.js';
import type { CallExtra, ToolEnv, ToolSpec } from './tool.js';

export const ALL_TOOLS: ToolSpec[] = [...READ_TOOLS, ...DRY_RUN_TOOLS, erasurePlan, ...JOB_PLAN_TOOLS, planApply];

/** The tools this policy offers: none that plans or changes when read-only, only the allowed kinds;
 * plan_apply where some plan tool is offered. */
export function offeredTools(policy: McpPolicy): ToolSpec[] {
  const allowed = ALL_TOOLS.filter((t) => policy.families.has(t.family) && (!policy.readOnly || t.stage === 'read'));
  const plans = allowed.some((t) => t.stage === 'plan');
  return ALL_TOOLS.filter((t) => allowed.includes(t) || (t.stage === 'apply' && plans && !policy.readOnly));
}

/** The result with every secret of the server's settings replaced. */
export function redacted<T>(result: T, secrets: string[]): T {
  let text = JSON.stringify(result);
  for (const secret of secrets) if (secret.length >= 8) text = text.split(JSON.stringify(secret).slice(1, -1)).join('[redacted]');
  return JSON.parse(text) as T;
}

/** The call's extra, whose notifications (plan_apply's progress: the verbs' own notes) have every
 * secret replaced as the result has. */
export function redactingNotifications(extra: CallExtra, secrets: string[]): CallExtra {
  return { ...extra, sendNotification: (notification) => extra.sendNotification(redacted(notification, secrets)) };
}

export interface BuiltServer {
  server: McpServer;
  close(): Promise<void>;
}

export function buildServer(sdk: Sdk, base: McpBase, policy: McpPolicy): BuiltServer {
  const server = new sdk.McpServer({ name: 'hogctl', version: VERSION }, { capabilities: { tools: {} } });
  const pages = new ApprovalPages(base.now);
  const low = server.server;
  const env: ToolEnv = {
    base,
    policy,
    services: {
      plans: new PlanRegistry(base.deps.env, base.settings.baseUrl),
      pages,
      canOpenUrls: () => Boolean(low.getClientCapabilities()?.elicitation?.url),
      canAskForms: () => Boolean(low.getClientCapabilities()?.elicitation?.form),
      elicit: (params, extra, timeout = 15 * 60_000) =>
        low.elicitInput(params, { relatedRequestId: extra.requestId, signal: extra.signal, timeout }),
      elicitationDone: (id) => low.createElicitationCompletionNotifier(id)(),
    },
  };
  const secrets = base.settings.apiKey ? [base.settings.apiKey] : [];
  for (const tool of offeredTools(policy)) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        annotations: tool.annotations,
        inputSchema: tool.input(sdk.z),
        outputSchema: tool.output(sdk.z),
      },
      async (args: Record<string, unknown>, extra) => redacted(await tool.call(env, args, redactingNotifications(extra, secrets)), secrets),
    );
  }
  return { server, close: async () => (await pages.close(), await server.close()) };
}
