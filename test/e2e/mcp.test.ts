// End-to-end: `hogctl mcp`, the built binary, driven by the MCP SDK's own client over stdio against
// a sandbox: the tools each flag offers, a read tool's structured result, an erasure planned, then
// refused without a person's approval (nothing deleted) and applied once approved on the loopback
// page (a POST from this test standing in for the person), deleting exactly the plan's persons.
// No result and nothing on stderr holds the key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { BIN, cleanEnv, startWorld, until, type World } from './harness.js';

let world: World;
beforeAll(async () => {
  world = await startWorld({ persons: 30 });
});
afterAll(() => world.close());

type Elicit = (req: ElicitRequest) => Promise<{ action: 'accept' | 'decline' | 'cancel' }>;

interface Session {
  client: Client;
  stderr: () => string;
  results: unknown[];
  call(name: string, args: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

async function connect(args: string[] = [], elicit?: Elicit): Promise<Session> {
  const env = cleanEnv(world.env) as Record<string, string>;
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...args], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'test', version: '1' }, { capabilities: elicit ? { elicitation: { url: {} } } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (req) => elicit(req));
  await client.connect(transport);
  const results: unknown[] = [];
  return {
    client,
    stderr: () => stderr,
    results,
    call: async (name, a) => {
      const r = await client.callTool({ name, arguments: a }, undefined, {
        onprogress: (p) => results.push({ progress: p }),
        timeout: 120_000,
      });
      results.push(r);
      return r;
    },
    close: () => client.close(),
  };
}

/** Everything a plan could change: persons (with distinct ids and properties), events, deletion requests. */
function state(): string {
  const persons = [1, 2].flatMap((project) =>
    (world.sandbox.stores.get(project) ?? world.sandbox.store)
      .list({}, 0, 4000)
      .map((p) => ({ project, uuid: p.uuid, ids: [...p.distinctIds].sort(), properties: p.properties })),
  );
  let events = 0;
  world.sandbox.events.get(1)?.forEachRow(() => events++);
  return JSON.stringify({ persons, events, requests: world.sandbox.dataDeletions.list(1).map((r) => r.id) });
}

const uuidsIn = (project = 1) => new Set((world.sandbox.stores.get(project) ?? world.sandbox.store).listUuids(0, 4000));

describe('hogctl mcp', () => {
  it('lists the tools each set of flags allows, with annotations and schemas', async () => {
    const names = async (args: string[]) => {
      const s = await connect(args);
      const { tools } = await s.client.listTools();
      await s.close();
      return tools;
    };
    const all = await names([]);
    expect(all.map((t) => t.name)).toEqual([
      'persons_list',
      'persons_get',
      'hogql_query',
      'persons_duplicates',
      'erasure_status',
      'event_deletion_status',
      'erasure_dry_run',
      'merge_dry_run',
      'update_dry_run',
      'event_deletion_dry_run',
      'erasure_plan',
      'merge_plan',
      'update_plan',
      'event_deletion_plan',
      'plan_apply',
    ]);
    for (const dry of all.filter((t) => t.name.endsWith('_dry_run'))) expect(dry.annotations?.readOnlyHint, dry.name).toBe(true);
    for (const plan of all.filter((t) => t.name.endsWith('_plan'))) expect(plan.annotations?.destructiveHint, plan.name).toBe(false);
    expect(all.find((t) => t.name === 'persons_list')?.annotations?.readOnlyHint).toBe(true);
    expect(all.find((t) => t.name === 'plan_apply')?.annotations?.destructiveHint).toBe(true);
    expect(all.every((t) => t.outputSchema?.type === 'object')).toBe(true);
    expect((await names(['--read-only'])).map((t) => t.name)).not.toContain('plan_apply');
    expect((await names(['--read-only'])).every((t) => t.annotations?.readOnlyHint)).toBe(true);
    expect((await names(['--allow', 'persons'])).map((t) => t.name)).toEqual(['persons_list', 'persons_get']);
    expect((await names(['--allow', 'merge'])).map((t) => t.name)).toEqual(['merge_dry_run', 'merge_plan', 'plan_apply']);
    expect((await names(['--allow', 'merge', '--read-only'])).map((t) => t.name)).toEqual(['merge_dry_run']);
  });

  it('answers a read tool with structured content, bounded, and refuses an argument that names a key or host', async () => {
    const s = await connect();
    const r = await s.call('persons_list', { limit: 5 });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ project: '1', count: 5, truncated: true });
    expect(r.structuredContent.rows[0]).toHaveProperty('uuid');
    expect(r.structuredContent.rows[0]).toHaveProperty('distinct_ids');
    const someone = world.sandbox.store.list({}, 0, 100).find((p) => typeof p.properties.email === 'string')!;
    for (const args of [{ id: someone.uuid }, { distinct_id: someone.distinctIds[0] }, { email: String(someone.properties.email) }]) {
      const got = await s.call('persons_get', args);
      expect(got.isError, JSON.stringify(got)).toBeFalsy();
      expect(got.structuredContent.rows[0]).toMatchObject({ uuid: someone.uuid });
    }
    const query = await s.call('hogql_query', { query: 'SELECT id, properties.email FROM persons LIMIT 150' });
    expect(query.isError, JSON.stringify(query)).toBeFalsy();
    expect(query.structuredContent).toMatchObject({ count: 30, truncated: false });
    expect(Object.keys(query.structuredContent.rows[0]).length).toBe(2);
    const duplicates = await s.call('persons_duplicates', {});
    expect(duplicates.isError, JSON.stringify(duplicates)).toBeFalsy();
    expect(Array.isArray(duplicates.structuredContent.rows)).toBe(true);
    // An error is a tool error, said as the command line says it, with its exit code's meaning.
    const events = await s.call('event_deletion_status', {});
    expect(events.isError).toBe(true);
    expect(events.content[0].text).toMatch(/^authentication or permission \(exit 4\): self-service event deletion is not enabled/);
    await fetch(`${world.sandbox.url}/_sandbox/projects/1/self-service-data-deletion/on`, { method: 'POST' });
    const none = await s.call('event_deletion_status', {});
    expect(none.isError, JSON.stringify(none)).toBeFalsy();
    expect(none.structuredContent).toMatchObject({ rows: [], count: 0, truncated: false });
    const host = await s.call('persons_list', { limit: 1, host: 'http://evil.example', api_key: 'phx_x' });
    expect(host.isError).toBe(true);
    const outside = await s.call('persons_list', { project: '2' });
    expect(outside.isError).toBeFalsy();
    await s.close();
    const narrowed = await connect(['--projects', '1']);
    expect((await narrowed.call('persons_list', { project: '2' })).isError).toBe(true);
    const elsewhere = await narrowed.call('erasure_plan', { person_ids: ['01900000-aaaa-7bbb-8ccc-000000000001'], projects: ['2'] });
    expect(elsewhere.content[0].text).toContain('not one this server may touch');
    for (const [tool, args] of [
      ['update_plan', { project: '2', where: ['plan=free'], set: ['x=1'] }],
      ['merge_plan', { project: '2', duplicates_by: ['email'] }],
      ['event_deletion_plan', { project: '2', query: 'SELECT uuid FROM events' }],
      ['update_dry_run', { project: '2', where: ['plan=free'], set: ['x=1'] }],
    ] as const) {
      const refused = await narrowed.call(tool, args);
      expect(refused.content[0].text, tool).toContain('project 2 is not one this server may touch');
    }
    await narrowed.close();
    // Projects by name, as --project takes them: looked up once, at start.
    const named = await connect(['--projects', 'staging']);
    expect((await named.call('persons_list', { project: '2', limit: 1 })).isError).toBeFalsy();
    expect((await named.call('persons_list', { project: '1', limit: 1 })).content[0].text).toContain(
      'project 1 is not one this server may touch (--projects 2)',
    );
    await named.close();
    const unknown = await world.run(['mcp', '--projects', 'Stagin']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('no project named "Stagin" (in --projects)');
    expect(JSON.stringify([s.results, narrowed.results, named.results]) + s.stderr() + narrowed.stderr()).not.toContain(
      world.env.HOGCTL_API_KEY,
    );
  });

  it('plans an erasure, refuses to apply it without a person, and applies it once a person approved it on the page', async () => {
    const victims = world.sandbox.store.list({}, 0, 4000).slice(0, 3);
    const before = uuidsIn();
    const whole = state();
    let page: string | undefined;
    let answer: 'accept' | 'decline' | 'cancel' = 'decline';
    const s = await connect([], async (req) => {
      page = (req.params as { url: string }).url;
      return { action: answer };
    });
    const planned = await s.call('erasure_plan', { person_ids: victims.map((p) => p.uuid) });
    expect(planned.isError).toBeFalsy();
    const plan = planned.structuredContent;
    expect(plan).toMatchObject({ persons: 3, identifiers: 3 });
    expect(plan.plan_id).toMatch(/^plan_/);

    // Declined, cancelled: nothing sent, and the terminal command given.
    for (const action of ['decline', 'cancel'] as const) {
      answer = action;
      const refused = await s.call('plan_apply', { plan_id: plan.plan_id });
      expect(refused.isError).toBe(true);
      expect(refused.content[0].text).toContain(`hogctl persons bulk-delete --plan ${plan.plan_file}`);
    }
    // Accepted by the client, but the person on the page declines.
    answer = 'accept';
    page = undefined;
    const declinedOnPage = s.call('plan_apply', { plan_id: plan.plan_id });
    await until(() => page !== undefined, 'the page the server sent', 10_000);
    const declined = await fetch(page!, { method: 'POST', body: new URLSearchParams({ decision: 'decline' }) });
    expect(declined.status).toBe(200);
    expect((await declinedOnPage).isError).toBe(true);
    expect(uuidsIn()).toEqual(before);
    expect(state()).toBe(whole);
    expect(world.sandbox.requests.filter((r) => r.path.endsWith('/bulk_delete/'))).toEqual([]);

    // Approved on the page: the plan runs, and deletes exactly its persons.
    page = undefined;
    const applied = s.call('plan_apply', { plan_id: plan.plan_id });
    await until(() => page !== undefined, 'the page the server sent', 10_000);
    const shown = await (await fetch(page!)).text();
    expect(shown).toContain('delete 3 persons');
    const wrong = await fetch(page!, { method: 'POST', body: new URLSearchParams({ count: '2', decision: 'approve' }) });
    expect(wrong.status).toBe(400);
    const ok = await fetch(page!, { method: 'POST', body: new URLSearchParams({ count: '3', decision: 'approve' }) });
    expect(ok.status).toBe(200);
    const result = await applied;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.receipt).toMatchObject({ status: 'completed', persons_deleted: 3 });
    expect(s.results.some((r) => JSON.stringify(r).includes('"progress"'))).toBe(true);
    const status = await s.call('erasure_status', { receipt: result.structuredContent.receipt_file });
    expect(status.isError, JSON.stringify(status)).toBeFalsy();
    expect(status.structuredContent.rows[0]).toMatchObject({ project: '1', persons_checked: 3, persons_present: 0 });
    const after = uuidsIn();
    expect([...before].filter((u) => !after.has(u)).sort()).toEqual(victims.map((p) => p.uuid).sort());
    // The page answers once.
    expect((await fetch(page!, { method: 'POST', body: new URLSearchParams({ count: '3', decision: 'approve' }) })).status).toBe(410);
    // The plan runs once: applied again, it is refused before anyone is asked.
    page = undefined;
    const again = await s.call('plan_apply', { plan_id: plan.plan_id });
    expect(again.content[0].text).toContain('applied already');
    expect(page).toBeUndefined();
    await s.close();
    expect(JSON.stringify(s.results) + s.stderr()).not.toContain(world.env.HOGCTL_API_KEY);
  });

  it("an approval on one plan's page applies that plan only", async () => {
    const [a, b] = world.sandbox.store.list({}, 0, 4000).slice(-2);
    const pages: string[] = [];
    const s = await connect([], async (req) => {
      pages.push((req.params as { url: string }).url);
      return { action: 'accept' };
    });
    const planA = (await s.call('erasure_plan', { person_ids: [a.uuid] })).structuredContent;
    const planB = (await s.call('erasure_plan', { person_ids: [b.uuid] })).structuredContent;
    const applyA = s.call('plan_apply', { plan_id: planA.plan_id });
    await until(() => pages.length === 1, 'page 1 the server sent', 10_000);
    const applyB = s.call('plan_apply', { plan_id: planB.plan_id });
    await until(() => pages.length === 2, 'page 2 the server sent', 10_000);
    expect(pages[0]).not.toBe(pages[1]);
    expect(await (await fetch(pages[1])).text()).toContain(planB.plan_id);
    await fetch(pages[0], { method: 'POST', body: new URLSearchParams({ count: '1', decision: 'approve' }) });
    expect((await applyA).structuredContent.receipt).toMatchObject({ persons_deleted: 1 });
    expect(uuidsIn().has(b.uuid)).toBe(true);
    await fetch(pages[1], { method: 'POST', body: new URLSearchParams({ decision: 'decline' }) });
    expect((await applyB).isError).toBe(true);
    expect(uuidsIn().has(a.uuid)).toBe(false);
    expect(uuidsIn().has(b.uuid)).toBe(true);
    await s.close();
  });

  it('refuses to apply for a client that cannot open an approval page, and on a read-only server offers no apply', async () => {
    const s = await connect();
    const victim = world.sandbox.store.list({}, 0, 1)[0];
    const planned = await s.call('erasure_plan', { person_ids: [victim.uuid] });
    const before = state();
    const refused = await s.call('plan_apply', { plan_id: planned.structuredContent.plan_id });
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toContain('this client cannot ask its user (it offers no elicitation)');
    expect(uuidsIn().has(victim.uuid)).toBe(true);
    // A plan edited after it was signed is refused, whatever the client could do.
    const file = planned.structuredContent.plan_file as string;
    writeFileSync(file, readFileSync(file, 'utf8').replace('"person_uuids": [', '"person_uuids": [ '));
    const edited = await s.call('plan_apply', { plan_id: planned.structuredContent.plan_id });
    expect(edited.content[0].text).toContain('changed after it was signed');
    expect(uuidsIn().has(victim.uuid)).toBe(true);
    await s.close();
    const ro = await connect(['--read-only']);
    const r = await ro.call('plan_apply', { plan_id: planned.structuredContent.plan_id });
    expect(r.isError).toBe(true);
    expect(uuidsIn().has(victim.uuid)).toBe(true);
    expect(state()).toBe(before);
    await ro.close();
  });
});

describe('hogctl mcp: protocol revisions', () => {
  // The SDK's client always offers its own newest revision, so the offer of another one is written
  // out here. No release of the SDK on the npm registry (1.32.2, nor 2.3.1 of its split packages)
  // negotiates 2026-07-28: offered it, the server answers with the newest it serves, and a client
  // of 2026-07-28 that also speaks 2025-11-25 goes on with that.
  it('answers a client of 2026-07-28 with 2025-11-25, and serves the older revisions as asked', async () => {
    const agreed = async (offered: string) => {
      const child = spawn(process.execPath, [BIN, 'mcp'], { env: cleanEnv(world.env), stdio: ['pipe', 'pipe', 'pipe'] });
      const lines = createInterface({ input: child.stdout });
      const init = { protocolVersion: offered, capabilities: {}, clientInfo: { name: 'test', version: '1' } };
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init })}\n`);
      const [line] = (await once(lines, 'line')) as [string];
      child.stdin.end();
      await once(child, 'close');
      return (JSON.parse(line) as { result: { protocolVersion: string } }).result.protocolVersion;
    };
    expect(await agreed('2026-07-28')).toBe('2025-11-25');
    for (const older of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) expect(await agreed(older)).toBe(older);
  });
});

describe('hogctl mcp config', () => {
  it('prints a client configuration with the command and flags, and no secret', async () => {
    const res = await world.run(['mcp', 'config', '--client', 'vscode', '--read-only', '--projects', '1']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({
      servers: { hogctl: { type: 'stdio', command: 'hogctl', args: ['mcp', '--read-only', '--projects', '1'] } },
    });
    expect(res.stdout + res.stderr).not.toContain(world.env.HOGCTL_API_KEY);
  });
});
