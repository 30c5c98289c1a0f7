// End-to-end: the plan tools of `hogctl mcp` beyond erasures (merge_plan, update_plan,
// event_deletion_plan), the dry runs, form-mode approval and progress while plan_apply waits, driven
// by the MCP SDK's own client over stdio against a sandbox. Each plan is planned, approved (a form
// answered by this test's client standing in for its user, or the loopback page), applied, and its
// result compared with the sandbox's state; each refused attempt ends with the sandbox exactly as it
// was before (persons, their distinct ids and properties, events, deletion requests).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN, cleanEnv, startWorld, until, type World } from './harness.js';

let world: World;
beforeAll(async () => {
  world = await startWorld({ persons: 30 });
  await fetch(`${world.sandbox.url}/_sandbox/projects/1/self-service-data-deletion/on`, { method: 'POST' });
});
afterAll(() => world.close());

type Answer = (req: ElicitRequest) => Promise<ElicitResult>;

interface Session {
  progress: string[];
  stderr: () => string;
  call(name: string, args: Record<string, unknown>, options?: { timeout?: number; resetTimeoutOnProgress?: boolean }): Promise<any>;
  close(): Promise<void>;
}

async function connect(mode: 'form' | 'url' | 'none', answer?: Answer, args: string[] = []): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: cleanEnv(world.env) as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const elicitation = mode === 'form' ? { form: {} } : mode === 'url' ? { url: {} } : undefined;
  const client = new Client({ name: 'test', version: '1' }, { capabilities: elicitation ? { elicitation } : {} });
  if (answer) client.setRequestHandler(ElicitRequestSchema, (req) => answer(req));
  await client.connect(transport);
  const progress: string[] = [];
  return {
    progress,
    stderr: () => stderr,
    call: (name, a, o = {}) =>
      client.callTool({ name, arguments: a }, undefined, {
        onprogress: (p) => progress.push(p.message ?? ''),
        timeout: o.timeout ?? 120_000,
        resetTimeoutOnProgress: o.resetTimeoutOnProgress,
      }),
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

/** The code and schema of a form elicitation, and an answer to it. */
const formOf = (req: ElicitRequest) =>
  (req.params as unknown as { requestedSchema: { properties: { approval: { enum: string[] } } } }).requestedSchema;
const codeOf = (req: ElicitRequest) => formOf(req).properties.approval.enum[0];
const accept = (count: number, approval: string): ElicitResult => ({ action: 'accept', content: { count, approval } });

const persons = () => world.sandbox.store.list({}, 0, 4000);

describe('hogctl mcp: plans of merges, updates and event deletions', () => {
  it('plans a merge, has it approved in a form, applies it, and the sandbox holds one person with both distinct ids', async () => {
    const [keep, other] = persons().slice(0, 2);
    const answers: string[] = [];
    const s = await connect('form', async (req) => {
      answers.push((req.params as { message: string }).message);
      return accept(1, codeOf(req));
    });
    const dry = await s.call('merge_dry_run', { persons: [keep.uuid, other.uuid] });
    expect(dry.isError, JSON.stringify(dry)).toBeFalsy();
    expect(dry.structuredContent.plan.join('\n')).toContain('groups    1 (1 person merged away');
    const planned = await s.call('merge_plan', { persons: [keep.uuid, other.uuid] });
    expect(planned.isError, JSON.stringify(planned)).toBeFalsy();
    expect(planned.structuredContent).toMatchObject({ kind: 'merge', count: 1, projects: ['1'] });
    expect(planned.structuredContent.sample).toEqual([`${keep.uuid} ← ${other.uuid}`]);
    // The plan is the command line's own, signed: `persons merge --groups` reads it.
    expect(JSON.parse(readFileSync(planned.structuredContent.plan_file, 'utf8'))).toMatchObject({ hmac_sha256: expect.any(String) });
    const applied = await s.call('plan_apply', { plan_id: planned.structuredContent.plan_id });
    expect(applied.isError, JSON.stringify(applied)).toBeFalsy();
    expect(answers[0]).toContain('merge 1 group of persons (1 person merged away)');
    expect(applied.structuredContent.receipt).toMatchObject({ status: 'completed' });
    expect(world.sandbox.store.getByUuid(other.uuid)).toBeUndefined();
    expect([...world.sandbox.store.getByUuid(keep.uuid)!.distinctIds].sort()).toEqual(
      [...new Set([...keep.distinctIds, ...other.distinctIds])].sort(),
    );
    await s.close();
  });

  it('plans an update of a selection, applies it to the persons planned only, after an approval on the page that took longer than the timeout', async () => {
    const chosen = persons().filter((p) => p.properties.plan === 'free');
    expect(chosen.length).toBeGreaterThan(0);
    let page: string | undefined;
    const s = await connect('url', async (req) => {
      page = (req.params as { url: string }).url;
      return { action: 'accept' };
    });
    const dry = await s.call('update_dry_run', { where: ['plan=free'], set: ['tier=bronze'] });
    expect(dry.isError, JSON.stringify(dry)).toBeFalsy();
    expect(dry.structuredContent.plan.join('\n')).toContain(`selected  ${chosen.length} person`);
    const planned = await s.call('update_plan', { where: ['plan=free'], set: ['tier=bronze'] });
    expect(planned.isError, JSON.stringify(planned)).toBeFalsy();
    expect(planned.structuredContent).toMatchObject({ kind: 'update', count: chosen.length });
    // A person who matches only after the plan was made is not in it.
    const late = world.sandbox.store.list({}, 0, 4000).find((p) => p.properties.plan !== 'free')!;
    late.properties.plan = 'free';
    const before = state();
    // The person takes 12 s to approve; the client's timeout is 7 s, reset by each progress notification.
    const applying = s.call('plan_apply', { plan_id: planned.structuredContent.plan_id }, { timeout: 7_000, resetTimeoutOnProgress: true });
    await until(() => page !== undefined, 'the page the server sent', 10_000);
    await new Promise((r) => setTimeout(r, 12_000));
    expect(state()).toBe(before);
    expect(
      (await fetch(page!, { method: 'POST', body: new URLSearchParams({ count: String(chosen.length), decision: 'approve' }) })).status,
    ).toBe(200);
    const applied = await applying;
    expect(applied.isError, JSON.stringify(applied)).toBeFalsy();
    expect(s.progress.filter((m) => m.startsWith('still working')).length).toBeGreaterThanOrEqual(2);
    expect(applied.structuredContent.receipt).toMatchObject({ status: 'completed' });
    for (const p of chosen) expect(world.sandbox.store.getByUuid(p.uuid)!.properties.tier, p.uuid).toBe('bronze');
    expect(world.sandbox.store.getByUuid(late.uuid)!.properties.tier).toBeUndefined();
    expect(persons().filter((p) => p.properties.tier === 'bronze').length).toBe(chosen.length);
    await s.close();
  });

  it('plans an event deletion, applies it once approved in a form that shows its selection, and the request made is the one the sandbox holds', async () => {
    const asked: string[] = [];
    const s = await connect('form', async (req) => {
      const { message } = req.params as { message: string };
      asked.push(message);
      return accept(Number(/type (\d+) in the count field/.exec(message)![1]), codeOf(req));
    });
    const query = "SELECT uuid FROM events WHERE distinct_id = 'user-1'";
    const dry = await s.call('event_deletion_dry_run', { query });
    expect(dry.isError, JSON.stringify(dry)).toBeFalsy();
    expect(dry.structuredContent.plan.join('\n')).toMatch(/events selected now: \d+/);
    const planned = await s.call('event_deletion_plan', { query });
    expect(planned.isError, JSON.stringify(planned)).toBeFalsy();
    expect(planned.structuredContent.count).toBeGreaterThan(0);
    const before = world.sandbox.dataDeletions.list(1).length;
    const applied = await s.call('plan_apply', { plan_id: planned.structuredContent.plan_id });
    expect(applied.isError, JSON.stringify(applied)).toBeFalsy();
    const made = world.sandbox.dataDeletions.list(1).slice(before);
    expect(made).toHaveLength(1);
    expect(applied.structuredContent.receipt).toEqual([expect.objectContaining({ id: made[0].id, submission_id: made[0].submissionId })]);
    // The person approving sees what PostHog will delete when the request runs, not only a count.
    expect(asked).toEqual([expect.stringContaining(`selected by the query ${query}`)]);
    await s.close();
  });
});

describe('hogctl mcp: form-mode approval cannot be forged, replayed or moved', () => {
  it('refuses a wrong count, a replayed approval, an approval of another plan, a decline, a cancel and an edited plan, changing nothing', async () => {
    const [a, b] = persons().slice(-2);
    const seen: ElicitRequest[] = [];
    let answer: Answer = async (req) => accept(1, codeOf(req));
    const s = await connect('form', async (req) => (seen.push(req), answer(req)));
    const planA = (await s.call('update_plan', { query: `SELECT id FROM persons WHERE id = '${a.uuid}'`, set: ['flagged=true'] }))
      .structuredContent;
    const planB = (await s.call('update_plan', { query: `SELECT id FROM persons WHERE id = '${b.uuid}'`, set: ['flagged=true'] }))
      .structuredContent;
    expect([planA.count, planB.count]).toEqual([1, 1]);
    const before = state();
    const refusedWith = async (plan: { plan_id: string }, text: string | RegExp) => {
      const r = await s.call('plan_apply', { plan_id: plan.plan_id });
      expect(r.isError, JSON.stringify(r)).toBe(true);
      expect(r.content[0].text).toMatch(text);
      expect(state()).toBe(before);
    };
    answer = async (req) => accept(2, codeOf(req));
    await refusedWith(planA, /not approved: the count typed is not 1; nothing was sent/);
    // Replayed: the answer of the request before, for the same plan.
    const earlier = codeOf(seen.at(-1)!);
    answer = async () => accept(1, earlier);
    await refusedWith(planA, /not approved: .*nothing was sent/);
    // Moved: plan A's approval given to plan B's request.
    answer = async () => accept(1, codeOf(seen.find((r) => (r.params as { message: string }).message.includes(planA.plan_id))!));
    await refusedWith(planB, /not approved: .*nothing was sent/);
    answer = async () => ({ action: 'decline' });
    await refusedWith(
      planB,
      `not approved: the user declined the approval; nothing was sent. A person can apply it in a terminal, where it is confirmed: hogctl persons bulk-update --project 1 --file '`,
    );
    answer = async () => ({ action: 'cancel' });
    await refusedWith(planB, 'the user cancelled the approval');
    // Approved, but the plan was edited after it was made: refused, whatever the answer.
    answer = async (req) => accept(1, codeOf(req));
    const file = planA.plan_file as string;
    writeFileSync(file, readFileSync(file, 'utf8').replace('flagged=true', 'flagged=false'));
    await refusedWith(planA, /the plan .* was changed after it was signed/);
    // Its persons file swapped for another person's: refused too.
    const personsFile = planB.plan_file.replace(/\.json$/, '.persons.txt');
    writeFileSync(personsFile, `${a.uuid}\n`);
    await refusedWith(planB, /the persons file .* was changed; nothing was sent/);
    await s.close();
  });

  it('a client whose request times out while the person reads the page gets nothing applied', async () => {
    const victim = persons()[5];
    let page: string | undefined;
    const s = await connect('url', async (req) => ((page = (req.params as { url: string }).url), { action: 'accept' }));
    const planned = (await s.call('erasure_plan', { person_ids: [victim.uuid] })).structuredContent;
    const before = state();
    const timedOut = await s.call('plan_apply', { plan_id: planned.plan_id }, { timeout: 3_000 }).catch((e: Error) => e);
    expect(timedOut).toBeInstanceOf(Error);
    await until(() => page !== undefined, 'the page the server sent', 10_000);
    // The page was withdrawn with the request: an approval now approves nothing.
    await new Promise((r) => setTimeout(r, 500));
    const late = await fetch(page!, { method: 'POST', body: new URLSearchParams({ count: '1', decision: 'approve' }) });
    expect(late.status).toBe(410);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(state()).toBe(before);
    await s.close();
  });
});
