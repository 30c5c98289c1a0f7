// The one-time approval pages of plan_apply, served on loopback: a plain HTML form (no script)
// that shows the plan and asks the person to type its count (persons deleted or changed, groups
// merged, events counted). Each page is
// for one plan, by its signature; it answers once (approved or declined), and expires. The agent
// never receives the page's address: it goes to the client, in a URL-mode elicitation, for its
// user to open.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export const APPROVAL_TTL_MS = 10 * 60_000;
const MAX_BODY = 4096;

export interface PageFacts {
  planId: string;
  signature: string;
  /** The number the person types. */
  count: number;
  /** What the plan does, with its numbers: "delete 3 persons". */
  what: string;
  host: string;
  projects: string[];
  sample: string[];
  file: string;
}

export type ApprovalOutcome = { approved: true; signature: string } | { approved: false; reason: string };

interface Pending {
  facts: PageFacts;
  expires: number;
  settle(outcome: ApprovalOutcome): void;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function pageHtml(f: PageFacts, note = ''): string {
  const sample = f.sample.map((u) => `<li><code>${esc(u)}</code></li>`).join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Approve plan ${esc(f.planId)}</title></head><body>
<h1>An agent asks to ${esc(f.what)}</h1>
<p>Host <code>${esc(f.host)}</code>, project${f.projects.length === 1 ? '' : 's'} <code>${esc(f.projects.join(', '))}</code>.
Plan <code>${esc(f.planId)}</code>, file <code>${esc(f.file)}</code>. This cannot be undone.</p>
<p>For example:</p><ul>${sample}</ul>${note ? `<p><strong>${esc(note)}</strong></p>` : ''}
<form method="post"><label>Type ${f.count} to approve: <input name="count" autocomplete="off"></label>
<button name="decision" value="approve">Approve</button> <button name="decision" value="decline">Decline</button></form>
</body></html>`;
}

export class ApprovalPages {
  private server?: Server;
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly now: () => number) {}

  /** Opens a page for this plan; `url` is its address, `outcome` settles on its answer or expiry. */
  async open(facts: PageFacts, signal: AbortSignal): Promise<{ url: string; outcome: Promise<ApprovalOutcome>; withdraw(): void }> {
    const port = await this.listen();
    const token = randomBytes(24).toString('base64url');
    const outcome = new Promise<ApprovalOutcome>((resolve) => {
      const end = (o: ApprovalOutcome) => {
        clearTimeout(timer);
        this.pending.delete(token);
        resolve(o);
      };
      const timer = setTimeout(() => end({ approved: false, reason: 'the approval page expired unanswered' }), APPROVAL_TTL_MS);
      timer.unref();
      signal.addEventListener('abort', () => end({ approved: false, reason: 'the request was cancelled' }), { once: true });
      this.pending.set(token, { facts, expires: this.now() + APPROVAL_TTL_MS, settle: end });
    });
    const withdraw = () => this.pending.get(token)?.settle({ approved: false, reason: 'the approval was withdrawn' });
    return { url: `http://127.0.0.1:${port}/approve/${token}`, outcome, withdraw };
  }

  async close(): Promise<void> {
    for (const p of this.pending.values()) p.settle({ approved: false, reason: 'the server stopped' });
    if (this.server) await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private listen(): Promise<number> {
    if (this.server) return Promise.resolve((this.server.address() as AddressInfo).port);
    this.server = createServer((req, res) => void this.handle(req, res));
    return new Promise((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(0, '127.0.0.1', () => resolve((this.server!.address() as AddressInfo).port));
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const token = /^\/approve\/([A-Za-z0-9_-]{32})$/.exec(req.url ?? '')?.[1];
    const p = token ? this.pending.get(token) : undefined;
    const send = (status: number, html: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-frame-options': 'DENY' });
      res.end(html);
    };
    if (!p || p.expires < this.now()) return send(410, '<!doctype html><p>This approval page is used, expired or unknown.</p>');
    if (req.method === 'GET') return send(200, pageHtml(p.facts));
    if (req.method !== 'POST') return send(405, '<!doctype html><p>Method not allowed.</p>');
    const form = new URLSearchParams(await readBody(req));
    if (form.get('decision') === 'decline') {
      p.settle({ approved: false, reason: 'the person declined the plan' });
      return send(200, '<!doctype html><p>Declined: nothing will be done.</p>');
    }
    if ((form.get('count') ?? '').trim() !== String(p.facts.count))
      return send(400, pageHtml(p.facts, `The number typed is not ${p.facts.count}: nothing was approved.`));
    p.settle({ approved: true, signature: p.facts.signature });
    send(200, '<!doctype html><p>Approved. The plan runs now; the agent receives the receipt.</p>');
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > MAX_BODY) break;
  }
  return body.slice(0, MAX_BODY);
}
