// `hogctl mcp`'s erasure_status tool takes a path from the agent: a file that is not a receipt
// (the evidence key that signs plans, say) is refused without a word of it in the tool's answer,
// and a receipt naming a project outside --projects is refused, as every other tool refuses one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN, cleanEnv, startWorld, until, type World } from './harness.js';

let world: World;
beforeAll(async () => {
  world = await startWorld({ persons: 10 });
});
afterAll(() => world.close());

async function connect(args: string[] = [], onUrl?: (url: string) => void) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: cleanEnv(world.env) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'test', version: '1' }, { capabilities: onUrl ? { elicitation: { url: {} } } : {} });
  if (onUrl)
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      onUrl((req.params as { url: string }).url);
      return { action: 'accept' };
    });
  await client.connect(transport);
  return {
    call: (name: string, a: Record<string, unknown>) =>
      client.callTool({ name, arguments: a }, undefined, { timeout: 120_000 }) as Promise<any>,
    close: () => client.close(),
  };
}

describe('mcp: erasure_status and the receipt path it is given', () => {
  it('does not put the evidence key (the plan-signing secret) into a tool result', async () => {
    const s = await connect(['--read-only']);
    const victim = world.sandbox.store.list({}, 0, 1)[0];
    // Any signed plan or dry run creates the key; an erasure dry run with an address is enough.
    const rw = await connect();
    await rw.call('erasure_plan', { person_ids: [victim.uuid] });
    await rw.close();
    const keyFile = join(world.configDir, 'evidence-key');
    const key = readFileSync(keyFile, 'utf8').trim();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const r = await s.call('erasure_status', { receipt: keyFile });
    await s.close();
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r)).not.toContain(key);
  });

  it('does not report on a project outside --projects from a receipt that names it', async () => {
    // A receipt of an erasure in project 2 (as a person's earlier run would leave one).
    const p2 = await connect();
    const listed = await p2.call('persons_list', { project: '2', limit: 1 });
    const victim = listed.structuredContent.rows[0].uuid as string;
    let page: string | undefined;
    const approver = await connect([], (url) => (page = url));
    const plan = (await approver.call('erasure_plan', { person_ids: [victim], projects: ['2'] })).structuredContent;
    const applying = approver.call('plan_apply', { plan_id: plan.plan_id });
    await until(() => page, 'the approval page', 10_000);
    await fetch(page!, { method: 'POST', body: new URLSearchParams({ count: '1', decision: 'approve' }) });
    const applied = await applying;
    expect(applied.isError, JSON.stringify(applied)).toBeFalsy();
    await approver.close();
    await p2.close();

    const narrowed = await connect(['--projects', '1', '--read-only']);
    expect((await narrowed.call('persons_list', { project: '2' })).isError).toBe(true);
    const status = await narrowed.call('erasure_status', { receipt: applied.structuredContent.receipt_file });
    await narrowed.close();
    // Expected: refused, as every other tool refuses project 2 on this server.
    expect(JSON.stringify(status.structuredContent?.rows ?? [])).not.toContain('"project":"2"');
    expect(status.isError, JSON.stringify(status)).toBe(true);
  });
});
