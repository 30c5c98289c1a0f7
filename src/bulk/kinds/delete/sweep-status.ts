// Where an erasure's event sweep stands, for `persons erasure-status`: each request as PostHog
// has it now (GET data_deletion_requests/<id>/), and, once every one has completed, a fresh count
// of what its queries select (the events collected up to the erasure's start: zero means done,
// not a status word) and of the events of the same distinct ids collected after it, which are new
// data the erasure did not ask to delete. Counted with HogQL, which personal keys may run (preview
// refuses them: PostHog/posthog PR #104278, posthog/permissions.py).
import type { Context } from '../../../context.js';
import type { ApiClient } from '../../../http/client.js';
import { getDeletionRequest } from '../../../api/data-deletion.js';
import { queryUnderLimit, type WaitCap } from '../../../cli/wait-out-limit.js';
import { afterUntil, countQuery } from '../../../hogql/event-deletion.js';
import { explainUnavailable } from '../../../deletion-requests/unavailable.js';
import type { SweepRecord } from './sweep.js';

export interface SweepStatus {
  requests: number;
  completed: number;
  failed: number;
  /** Why the sweep cannot be followed or was not made; null when it can. */
  problem: string | null;
  /** Its requests could not be read (a server error, a refused read): whether it ran is unknown. */
  unread: boolean;
  /** The events its queries select now (null: not counted, as not every request has completed). */
  remaining: number | null;
  /** The events of the same distinct ids collected after the erasure's start. */
  after: number | null;
}

async function count(ctx: Context, client: ApiClient, project: string, query: string, cap: WaitCap): Promise<number> {
  const res = await queryUnderLimit(ctx, client, project, { query: countQuery(query), name: 'hogctl erasure: events swept' }, cap);
  return Number(res.results[0]?.[0] ?? 0);
}

export async function sweepStatus(ctx: Context, client: ApiClient, project: string, r: SweepRecord, cap: WaitCap): Promise<SweepStatus> {
  const out: SweepStatus = {
    requests: r.requests.length,
    completed: 0,
    failed: 0,
    problem: null,
    unread: false,
    remaining: null,
    after: null,
  };
  if (r.status === 'unavailable') {
    const left = `the events of ${r.distinct_ids} erased distinct id${r.distinct_ids === 1 ? '' : 's'} collected up to ${r.until} that PostHog's deletion by person leaves remain`;
    return { ...out, problem: `${left}: ${r.unavailable?.reason}; ${r.unavailable?.what_to_do}` };
  }
  const unmade = r.requests.filter((q) => q.id === null).length;
  if (unmade) return { ...out, problem: `${unmade} of its requests were never made: run the erasure again with --resume` };
  const queries: string[] = [];
  for (const q of r.requests) {
    let item;
    try {
      item = await getDeletionRequest(client, project, q.id!, { signal: ctx.deps.signal });
    } catch (error) {
      const said = explainUnavailable(error, project);
      return { ...out, problem: `its requests cannot be read: ${(said as Error).message}`, unread: true };
    }
    if (item.status === 'completed') out.completed++;
    if (item.status === 'failed') out.failed++;
    queries.push(item.query);
  }
  if (out.failed) return { ...out, problem: `PostHog reports ${out.failed} of its requests failed: their events were not deleted` };
  if (out.completed < out.requests) return out;
  out.remaining = 0;
  out.after = 0;
  for (const query of queries) {
    out.remaining += await count(ctx, client, project, query, cap);
    const later = afterUntil(query);
    if (later !== null) out.after += await count(ctx, client, project, later, cap);
  }
  return out;
}
