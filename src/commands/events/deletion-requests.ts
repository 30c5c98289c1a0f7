import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { parseCount, parseDuration } from '../../cli/flags.js';
import { RecordWriter, writeRecord } from '../../io/output.js';
import { DELETION_REQUEST_FIELDS, getDeletionRequest, listDeletionRequests, type DeletionRequestItem } from '../../api/data-deletion.js';
import { countSelection } from './shared/count.js';
import { explainUnavailable } from '../../deletion-requests/unavailable.js';

export interface EventsDeletionRequestsOptions {
  limit?: string;
  all?: boolean;
  maxWait?: string;
}

export const DELETION_REQUEST_COLUMNS = ['id', 'status', 'created_at', 'approved_at', 'submission_id'];

/** What each status means for the user (PostHog/posthog PR #104278, `RequestStatus`). */
const STATUS_NOTES: Record<string, string> = {
  pending: 'waits for PostHog to approve it',
  approved: 'approved; PostHog queues its events next',
  in_progress: 'PostHog is queueing its events',
  queued: "its events are queued for PostHog's weekly deletion",
  completed: 'PostHog reports it done',
  failed: 'PostHog could not queue it',
};

export function eventsDeletionRequestsCommand(): Command {
  return new Command('deletion-requests')
    .summary('list event deletion requests, or show one and what it left')
    .description(
      "List the project's event deletion requests (newest first), or show one. For a completed request, its query is counted again: `remaining` is how many events it selects now, and the request is done when that is 0 (events captured after it was queued count too).",
    )
    .argument('[id]', 'a request id (from `hogctl events delete` or the list)')
    .option('--limit <n>', 'the most requests to print', '100')
    .option('--all', 'every request (ignores --limit)')
    .option('--max-wait <duration>', 'the longest single wait a rate limit may ask for (default 60m)')
    .addHelpText(
      'after',
      examples('hogctl events deletion-requests', 'hogctl events deletion-requests 01927f3a-0000-7000-8000-000000000001 -o json'),
    )
    .action(withContext(eventsDeletionRequestsRun));
}

export async function eventsDeletionRequestsRun(ctx: Context, options: EventsDeletionRequestsOptions, id?: string): Promise<void> {
  const projectId = await ctx.projectId();
  const client = await ctx.api({ auth: 'prefer-key' });
  try {
    if (id !== undefined)
      return await showOne(ctx, projectId, await getDeletionRequest(client, projectId, id.trim(), { signal: ctx.deps.signal }), options);
    const limit = options.all ? undefined : parseCount(options.limit ?? '100', '--limit');
    const writer = new RecordWriter(await ctx.output(), { columns: DELETION_REQUEST_COLUMNS, fields: DELETION_REQUEST_FIELDS });
    for await (const page of listDeletionRequests(client, projectId, {
      limit,
      pageSize: Math.min(limit ?? 100, 100),
      signal: ctx.deps.signal,
    })) {
      await writer.writePage(page as unknown as Record<string, unknown>[]);
    }
    await writer.end();
    if (writer.count === 0) ctx.info('no event deletion requests in this project');
  } catch (error) {
    throw explainUnavailable(error, projectId);
  }
}

/** One request; a completed one with the count its query selects now. */
async function showOne(ctx: Context, projectId: string, item: DeletionRequestItem, options: EventsDeletionRequestsOptions): Promise<void> {
  const record: Record<string, unknown> = { ...item };
  if (item.status === 'completed') {
    const cap = { maxWaitMs: parseDuration(options.maxWait ?? '60m', '--max-wait'), flag: '--max-wait' };
    const counted = await countSelection(ctx, projectId, [item.query], cap);
    record.remaining = counted.count;
    if (counted.count === 0) ctx.info('done: its query selects no event now');
    else if (counted.count !== null) ctx.info(`${counted.count} events match its query now: captured after it was queued, or not deleted`);
  } else ctx.info(`${item.status}: ${STATUS_NOTES[item.status] ?? 'a status this hogctl does not know'}`);
  const fields = [...DELETION_REQUEST_FIELDS, 'remaining'];
  await writeRecord(await ctx.output(), record, { columns: fields.filter((c) => c in record), fields });
}
