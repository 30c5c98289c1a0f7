// What a tool is to this server: its name, family (what `--allow` names), whether it reads, plans
// or applies, its schemas (built with the SDK's zod once it is loaded) and its call. server.ts
// offers the tools the flags allow; the tools' own modules say what each does.
import type {
  CallToolResult,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
  ServerNotification,
  ServerRequest,
  ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { PlanRegistry } from './plans.js';
import type { ApprovalPages } from './approval-page.js';
import type { Sdk } from './sdk.js';
import type { Captured, McpBase } from './call.js';
import { errorText } from './call.js';
import type { McpPolicy } from './policy.js';

type Zod = Sdk['z'];
export type ObjectSchema = ReturnType<Zod['object']>;

export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface ToolSpec {
  name: string;
  family: string;
  /** read: changes nothing; plan: writes a plan file only; apply: changes the server. */
  stage: 'read' | 'plan' | 'apply';
  title: string;
  description: string;
  annotations: ToolAnnotations;
  input(z: Zod): ObjectSchema;
  output(z: Zod): ObjectSchema;
  call(env: ToolEnv, args: Record<string, unknown>, extra: CallExtra): Promise<CallToolResult>;
}

/** What a call may use: the server's fixed base, its policy, and its services. */
export interface ToolEnv {
  base: McpBase;
  policy: McpPolicy;
  services: ToolServices;
}

/** The server's state beyond the Context, set up in server.ts. */
export interface ToolServices {
  plans: PlanRegistry;
  /** The one-time approval pages on loopback (approval-page.ts). */
  pages: ApprovalPages;
  /** Whether the client can send its user to a URL (URL-mode elicitation). */
  canOpenUrls(): boolean;
  /** Whether the client can show its user a form (form-mode elicitation). */
  canAskForms(): boolean;
  /** Asks the client's user (a URL to open, or a form), waiting at most `timeout` ms. */
  elicit(params: ElicitRequestURLParams | ElicitRequestFormParams, extra: CallExtra, timeout?: number): Promise<ElicitResult>;
  /** Says that a URL elicitation's work is done. */
  elicitationDone(elicitationId: string): Promise<void>;
}

/** At most this many rows in one result; the result says how to get more. */
export const MAX_ROWS = 100;

export function ok(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

export function refused(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The verb's JSON output, or the tool error its failure makes. */
export function jsonOf(run: Captured): { value: unknown } | { error: CallToolResult } {
  if (run.error) return { error: refused(errorText(run.error)) };
  const text = run.stdout.trim();
  if (text === '') return { value: [] };
  try {
    return { value: JSON.parse(text) };
  } catch {
    // ndjson-like output of a streamed listing: one value a line.
    return { value: text.split('\n').map((line) => JSON.parse(line) as unknown) };
  }
}

/** A list cut to `max` rows, with how many there were and how to see more. */
export function bounded(rows: unknown[], max: number, more: string): Record<string, unknown> {
  const truncated = rows.length > max;
  return { rows: rows.slice(0, max), count: Math.min(rows.length, max), truncated, ...(truncated ? { more } : {}) };
}
