import { afterEach, describe, expect, it } from 'vitest';
import { ApprovalPages, APPROVAL_TTL_MS, type PageFacts } from '../../../src/mcp/approval-page.js';

const facts: PageFacts = {
  planId: 'plan_abc',
  signature: 'f'.repeat(64),
  count: 3,
  what: 'delete 3 persons',
  host: 'http://127.0.0.1:8000',
  projects: ['1'],
  sample: ['<script>'],
  file: '/tmp/plan.json',
};
const post = (url: string, form: Record<string, string>) => fetch(url, { method: 'POST', body: new URLSearchParams(form) });

let pages: ApprovalPages;
afterEach(() => pages.close());

describe('the approval page', () => {
  it('shows the plan, escaped, and approves only with the count typed, once', async () => {
    pages = new ApprovalPages(Date.now);
    const page = await pages.open(facts, new AbortController().signal);
    expect(page.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/approve\/[A-Za-z0-9_-]{32}$/);
    const html = await (await fetch(page.url)).text();
    expect(html).toContain('delete 3 persons');
    expect(html).toContain('&#60;script&#62;');
    expect(html).not.toContain('<script>');
    expect((await post(page.url, { count: '4', decision: 'approve' })).status).toBe(400);
    expect((await post(page.url, { count: '3', decision: 'approve' })).status).toBe(200);
    await expect(page.outcome).resolves.toEqual({ approved: true, signature: facts.signature });
    expect((await post(page.url, { count: '3', decision: 'approve' })).status).toBe(410);
  });

  it('is declined by the person, withdrawn by the server, or cancelled with the request', async () => {
    pages = new ApprovalPages(Date.now);
    const declined = await pages.open(facts, new AbortController().signal);
    await post(declined.url, { decision: 'decline' });
    await expect(declined.outcome).resolves.toMatchObject({ approved: false, reason: 'the person declined the plan' });
    const withdrawn = await pages.open(facts, new AbortController().signal);
    withdrawn.withdraw();
    await expect(withdrawn.outcome).resolves.toMatchObject({ approved: false });
    expect((await post(withdrawn.url, { count: '3', decision: 'approve' })).status).toBe(410);
    const abort = new AbortController();
    const cancelled = await pages.open(facts, abort.signal);
    abort.abort();
    await expect(cancelled.outcome).resolves.toMatchObject({ approved: false, reason: 'the request was cancelled' });
  });

  it('answers nothing once expired, and nothing for an unknown token', async () => {
    let now = 1_000;
    pages = new ApprovalPages(() => now);
    const page = await pages.open(facts, new AbortController().signal);
    now += APPROVAL_TTL_MS + 1;
    expect((await post(page.url, { count: '3', decision: 'approve' })).status).toBe(410);
    expect((await fetch(page.url.replace(/approve\/.*/, `approve/${'A'.repeat(32)}`))).status).toBe(410);
  });
});
