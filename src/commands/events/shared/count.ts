// How many events a selection holds now, and a few of them, for the plan and for "done means a
// count of zero". PostHog's preview is the count the deletion itself would compile
// (posthog/data_deletion.py, `preview_event_deletion`), but it refuses personal keys and allows
// 5 calls a minute and 30 an hour per project: with a key, or past the first query, the count is
// a HogQL query over `events` instead, which keys may run.
import type { Context } from '../../../context.js';
import type { ApiClient } from '../../../http/client.js';
import { previewDeletion } from '../../../api/data-deletion.js';
import { runHogQL } from '../../../api/query.js';
import { queryUnderLimit, underRateLimit, type WaitCap } from '../../../cli/wait-out-limit.js';
import { countQuery, sampleQuery } from '../../../hogql/event-deletion.js';
import { explainUnavailable, previewRefusesKey } from '../../../deletion-requests/unavailable.js';

export interface SelectionCount {
  /** null when it could not be counted. */
  count: number | null;
  /** How it was counted, said in the plan. */
  how: string;
}

const PREVIEW_LIMIT = {
  waiting: 'rate-limited by the server (deletion previews: 5 a minute, 30 an hour per project)',
  limits: 'the server limits deletion previews',
};

async function previewCount(ctx: Context, client: ApiClient, projectId: string, query: string, cap: WaitCap): Promise<number> {
  try {
    return await underRateLimit(
      ctx,
      cap,
      (retry) => previewDeletion(client, projectId, { query }, { retry, signal: ctx.deps.signal }),
      PREVIEW_LIMIT,
    );
  } catch (error) {
    throw explainUnavailable(error, projectId);
  }
}

async function hogqlCount(ctx: Context, projectId: string, queries: string[], cap: WaitCap): Promise<number> {
  const client = await ctx.api();
  let total = 0;
  for (const query of queries) {
    const res = await queryUnderLimit(ctx, client, projectId, { query: countQuery(query), name: 'hogctl events delete: count' }, cap);
    total += Number(res.results[0]?.[0] ?? 0);
  }
  return total;
}

/**
 * The count of every query together: PostHog's preview for a single query and a session, else
 * HogQL. A preview refused to a key is said, not an error: the count comes from HogQL then.
 */
export async function countSelection(ctx: Context, projectId: string, queries: string[], cap: WaitCap): Promise<SelectionCount> {
  if (queries.length === 1) {
    const client = await ctx.api({ auth: 'prefer-session' });
    try {
      return { count: await previewCount(ctx, client, projectId, queries[0], cap), how: "PostHog's preview" };
    } catch (error) {
      if (!previewRefusesKey(error)) throw error;
      ctx.info('PostHog previews deletions for a signed-in session only (`hogctl auth login`): counting with a HogQL query instead.');
    }
  }
  try {
    return { count: await hogqlCount(ctx, projectId, queries, cap), how: 'a HogQL query over events' };
  } catch (error) {
    ctx.warn(`could not count the events: ${(error as Error).message}`);
    return { count: null, how: 'not counted' };
  }
}

/** Up to `size` selected events, newest first; none when the query API cannot run it. */
export async function sampleSelection(ctx: Context, projectId: string, query: string, size: number): Promise<unknown[][]> {
  try {
    const res = await runHogQL(
      await ctx.api(),
      projectId,
      { query: sampleQuery(query, size), name: 'hogctl events delete: sample' },
      { signal: ctx.deps.signal },
    );
    return res.results;
  } catch {
    return [];
  }
}
