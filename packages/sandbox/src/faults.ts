// Injected failures, so the CLI's retry, timeout and error paths can be exercised end to end.
//
// Spec: comma-separated entries.
//   <kind>=<share>     share of eligible requests (0..1, or a percentage like 5%) that get <kind>
//   slow=<share>@<ms>  those requests are delayed by <ms> (default 1000) and then served normally
//   seed=<n>           PRNG seed for the decisions (default: the sandbox seed)
//   path=<substr>      only requests whose path contains <substr> are eligible (repeatable: any)
//   method=<M>         only these methods are eligible (repeatable, or M1+M2)
// Kinds: 429 (Retry-After: 1), 429-no-retry (no Retry-After, like the concurrency limit), 500,
// 502 and 504 (a proxy's HTML page), 503 (database_unavailable, Retry-After: 1), drop (socket
// destroyed, no answer), slow, truncate (200 whose JSON body is cut in the middle), html (a CDN's
// HTML error page with status 502), drop-after and 504-after (see below), and two 200 answers of
// capture: quota-limited (`{"status": "Ok"}`, what capture answers a batch of events of a project
// over its billing limit, whose events it drops: PostHog/posthog rust/capture/src/v0_endpoint.rs
// `event()`, `Err(CaptureError::BillingLimit) => Ok(CaptureResponse { status: Ok, quota_limited:
// None })`, "return OK here to avoid clients retrying"; only `recording()` answers
// `quota_limited: ["recordings"]`, and the sandbox has no recordings endpoint) and odd-200
// (`{"status": 0, "error": …}`, a 200 that is no acceptance capture gives, as from a proxy or a
// foreign service). Both answer before routing: nothing is ingested.
// They are meant for capture paths (`path=/batch/`); elsewhere they give the same body.
//
// Only /api/, /logout and capture (`/batch/`, `/i/v0/e/`) requests are eligible. Kinds are mutually exclusive: one PRNG draw per eligible
// request is compared with the cumulative shares, so the same seed yields the same sequence.
//
// When a fault applies: all kinds except `slow` and `truncate` answer before routing, so the
// request has no effect at all (no auth, no rate-limit count, no write). `slow` waits and then
// runs the request normally; the handler runs even if the client gave up meanwhile, exactly like
// a real server, so a write that timed out on the client may still have been applied.
// `truncate` on GET/HEAD runs the request and cuts the real body; on other methods it does NOT run
// the handler and sends a cut synthetic body, so a truncated write never has an effect.
// `drop-after` and `504-after` lose the answer of a request that WAS carried out, as a real proxy
// does: the handler runs, then the connection is closed without an answer (a load balancer's idle
// timeout or restart), or the proxy's 504 page is sent instead (it stopped waiting while the app
// finished the work). A write under them has its effect; the client only cannot know it.

import type { SandboxResponse } from './context.js';
import { json } from './context.js';
import { databaseUnavailable, proxyErrorPage, serverError, throttled, type ErrorResponse } from './errors.js';
import { hash32, mulberry32 } from './prng.js';
import { CAPTURE_PATH } from './capture.js';

const FAULT_KINDS = [
  '429',
  '429-no-retry',
  '500',
  '502',
  '503',
  '504',
  'drop',
  'slow',
  'truncate',
  'html',
  'drop-after',
  '504-after',
  'quota-limited',
  'odd-200',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultEntry {
  kind: FaultKind;
  share: number;
  delayMs?: number;
}

export interface FaultPlan {
  entries: FaultEntry[];
  seed: number;
  paths: string[];
  methods: string[];
}

export interface Fault {
  kind: FaultKind;
  delayMs?: number;
}

function parseShare(text: string, spec: string): number {
  const m = /^(\d+(?:\.\d+)?|\.\d+)(%?)$/.exec(text.trim());
  const share = m ? Number(m[1]) / (m[2] ? 100 : 1) : NaN;
  if (!(share >= 0 && share <= 1)) throw new Error(`invalid fault spec "${spec}": share "${text}" must be between 0 and 1 (or 0% to 100%)`);
  return share;
}

export function parseFaultSpec(spec: string | undefined, defaultSeed: number): FaultPlan | null {
  if (spec === undefined || spec.trim() === '' || spec.trim() === 'off') return null;
  const plan: FaultPlan = { entries: [], seed: defaultSeed, paths: [], methods: [] };
  for (const raw of spec.split(',')) {
    const token = raw.trim();
    if (!token) continue;
    const eq = token.indexOf('=');
    if (eq === -1) throw new Error(`invalid fault spec "${spec}": "${token}" is not key=value`);
    const key = token.slice(0, eq).trim();
    const value = token.slice(eq + 1).trim();
    if (key === 'seed') {
      if (!/^\d+$/.test(value)) throw new Error(`invalid fault spec "${spec}": seed must be an integer`);
      plan.seed = Number(value);
    } else if (key === 'path') {
      plan.paths.push(value);
    } else if (key === 'method') {
      plan.methods.push(
        ...value
          .split('+')
          .map((m) => m.trim().toUpperCase())
          .filter(Boolean),
      );
    } else if ((FAULT_KINDS as readonly string[]).includes(key)) {
      const kind = key as FaultKind;
      if (kind === 'slow') {
        const [share, ms] = value.split('@');
        const delayMs = ms === undefined ? 1000 : Number(ms);
        if (!Number.isInteger(delayMs) || delayMs < 0)
          throw new Error(`invalid fault spec "${spec}": slow delay "${ms}" must be milliseconds`);
        plan.entries.push({ kind, share: parseShare(share, spec), delayMs });
      } else {
        plan.entries.push({ kind, share: parseShare(value, spec) });
      }
    } else {
      throw new Error(
        `invalid fault spec "${spec}": unknown entry "${key}" (kinds: ${FAULT_KINDS.join(', ')}; options: seed, path, method)`,
      );
    }
  }
  const total = plan.entries.reduce((sum, e) => sum + e.share, 0);
  if (total > 1 + 1e-9) throw new Error(`invalid fault spec "${spec}": shares add up to ${total.toFixed(3)}, more than 1`);
  return plan;
}

export class FaultInjector {
  private readonly rand: () => number;

  constructor(readonly plan: FaultPlan | null) {
    this.rand = mulberry32(hash32(plan?.seed ?? 0, 0xfa017));
  }

  /** Decides the fate of one request; consumes one draw per eligible request only. */
  decide(method: string, path: string): Fault | null {
    const plan = this.plan;
    if (!plan || plan.entries.length === 0 || !(path.startsWith('/api/') || path.startsWith('/logout') || CAPTURE_PATH.test(path)))
      return null;
    if (plan.paths.length > 0 && !plan.paths.some((p) => path.includes(p))) return null;
    if (plan.methods.length > 0 && !plan.methods.includes(method.toUpperCase())) return null;
    const r = this.rand();
    let cumulative = 0;
    for (const entry of plan.entries) {
      cumulative += entry.share;
      if (r < cumulative) return entry.kind === 'slow' ? { kind: 'slow', delayMs: entry.delayMs } : { kind: entry.kind };
    }
    return null;
  }
}

function html(status: number, body: string): SandboxResponse {
  return { status, headers: { 'Content-Type': 'text/html' }, body };
}

function fromError(error: ErrorResponse): SandboxResponse {
  return json(error.status, error.body, error.headers);
}

const CDN_ERROR_PAGE =
  '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Bad gateway | sandbox edge</title></head>\n' +
  '<body><div id="cf-error-details"><h1>Bad gateway</h1><p>Error code 502</p>' +
  '<p>The web server reported a bad gateway error.</p></div></body>\n</html>\n';

/** The answer for faults that replace the request entirely (not drop, slow, truncate, or the -after kinds). */
export function faultResponse(kind: Exclude<FaultKind, 'drop' | 'slow' | 'truncate' | 'drop-after' | '504-after'>): SandboxResponse {
  switch (kind) {
    case '429':
      return fromError(throttled(1));
    case '429-no-retry':
      return fromError(throttled(null));
    case '500':
      return fromError(serverError());
    case '502':
      return html(502, proxyErrorPage(502));
    case '504':
      return html(504, proxyErrorPage(504));
    case '503':
      return fromError(databaseUnavailable());
    case 'html':
      return html(502, CDN_ERROR_PAGE);
    case 'quota-limited':
      // The events are dropped and the answer is the acceptance itself: a client cannot tell.
      return json(200, { status: 'Ok' });
    case 'odd-200':
      return json(200, { status: 0, error: 'ingestion is paused for this project' });
  }
}

/** Cuts a body in the middle; the result is sent with a matching Content-Length, so the HTTP
 * exchange is valid and only the JSON is broken. */
export function truncateBody(body: string | Buffer | undefined): string {
  const text = body === undefined ? '' : body.toString();
  const source = text.length >= 2 ? text : '{"results": [{"type": "person", "id": "0190"}], "next": null}';
  return source.slice(0, Math.max(1, Math.floor(source.length / 2)));
}
