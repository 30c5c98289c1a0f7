import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { Context } from '../../context.js';
import { CancelledError, NotDoneYetError, UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { collect, parseDuration } from '../../cli/flags.js';
import { confirmOrRefuse } from '../../cli/confirm.js';
import { lockJournal } from '../../bulk/engine/lock.js';
import { RecordWriter } from '../../io/output.js';
import { deletionQueries, MAX_QUERY_BYTES, type EventSelection } from '../../hogql/event-deletion.js';
import { countSelection, sampleSelection } from './shared/count.js';
import { planLines } from './shared/plan.js';
import { submitRequests } from '../../deletion-requests/submit.js';
import { earlierRunPending } from '../../deletion-requests/finished-run.js';
import {
  deletionJournalPath,
  newDeletionJournal,
  readDeletionJournal,
  unanswered,
  writeDeletionJournal,
  type DeletionJournal,
} from '../../deletion-requests/deletion-journal.js';

export interface EventsDeleteOptions {
  distinctId?: string[];
  distinctIds?: string;
  event?: string;
  after?: string;
  before?: string;
  query?: string;
  yes?: boolean;
  dryRun?: boolean;
  resume?: boolean;
  maxWait?: string;
}

/** Above this many events the count must be typed to confirm. */
const TYPED_CONFIRMATION_ABOVE = 100;
const SAMPLE_SIZE = 5;
export const EVENTS_DELETE_COLUMNS = ['request', 'id', 'status', 'submission_id', 'answered_at'];

export function eventsDeleteCommand(): Command {
  return new Command('delete')
    .summary('delete events selected by distinct id, name, time or a HogQL query')
    .description(
      "Ask PostHog to delete the events a selection names, through its self-service deletion API (data_deletion_requests). The count and a sample are shown first, then a plan, then a confirmation (the count typed above 100 events; --yes off a terminal). Each request is journaled with its submission id before it is sent, so a retry or --resume after a lost answer never makes a second request; run again, the same selection makes no new request while one of its requests has not run (PostHog deletes what a request selects when it runs, events that arrived since included), and new ones once they all have. Many distinct ids are split into requests within PostHog's 100,000-byte limit; at most 5 are active per project, and PostHog takes 10 an hour (waited out up to --max-wait). PostHog approves each request before its weekly deletion runs it: follow them with `hogctl events deletion-requests`.\n\n" +
        "Exit codes: 3 the server has no deletion API (404); 4 the project has it off, or the key lacks data_deletion:write; 6 a wait longer than --max-wait; 8 PostHog's five active requests stopped the run (go on with --resume later).",
    )
    .option('--distinct-id <id>', 'the events of this distinct id (repeatable)', collect)
    .option('--distinct-ids <file>', 'the events of the distinct ids in a file, one a line')
    .option('--event <name>', 'only events of this name')
    .option('--after <time>', 'only events at or after this time (ISO 8601)')
    .option('--before <time>', 'only events before this time (ISO 8601)')
    .option('--query <hogql>', 'a HogQL query selecting one column of event UUIDs, instead of the flags above')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--dry-run', 'count and show the plan; send no request')
    .option('--resume', 'send what an earlier run of the same selection did not (no new preview or confirmation)')
    .option('--max-wait <duration>', 'the longest single wait a rate limit may ask for (default 60m)')
    .addHelpText(
      'after',
      examples(
        'hogctl events delete --distinct-id anon-7f3a --before 2026-10-01T00:00:00Z',
        'hogctl events delete --distinct-ids distinct-ids.txt --yes -o json',
        'hogctl events delete --query "SELECT uuid FROM events WHERE properties.\\$browser = \'Chrome\'" --dry-run',
      ),
    )
    .action(withContext(eventsDeleteRun));
}

function instant(raw: string | undefined, flag: string): string | undefined {
  if (raw === undefined) return undefined;
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) throw new UsageError(`invalid ${flag} "${raw}": expected a time such as 2026-10-01T00:00:00Z`);
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

function readIdFile(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --distinct-ids ${file}: ${(error as Error).message}`);
  }
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** The selection the flags make; nothing selected, or --query beside the other flags, is refused. */
export function selectionOf(o: EventsDeleteOptions): EventSelection {
  const ids = [...(o.distinctId ?? []), ...(o.distinctIds ? readIdFile(o.distinctIds) : [])].map((id) => id.trim());
  if (ids.some((id) => id === '')) throw new UsageError('a distinct id is empty');
  const filters = ids.length > 0 || o.event !== undefined || o.after !== undefined || o.before !== undefined;
  if (o.query !== undefined && filters)
    throw new UsageError('--query selects on its own: leave out --distinct-id(s), --event, --after and --before');
  if (o.query === undefined && !filters)
    throw new UsageError('nothing selected', 'name the events with --distinct-id, --distinct-ids, --event, --after, --before or --query');
  if (o.query !== undefined) return { distinctIds: [], query: o.query };
  return { distinctIds: [...new Set(ids)], event: o.event, after: instant(o.after, '--after'), before: instant(o.before, '--before') };
}

export async function eventsDeleteRun(ctx: Context, options: EventsDeleteOptions): Promise<void> {
  const selection = selectionOf(options);
  const queries = deletionQueries(selection);
  if (!queries)
    throw new UsageError(`the query (or one distinct id) is longer than PostHog's ${MAX_QUERY_BYTES.toLocaleString('en-US')} bytes`);
  const cap = { maxWaitMs: parseDuration(options.maxWait ?? '60m', '--max-wait'), flag: '--max-wait' };
  const projectId = await ctx.projectId();
  const host = new URL((await ctx.settings()).baseUrl).host;
  const path = deletionJournalPath(ctx.env, host, projectId, queries);
  let earlier = readDeletionJournal(path);
  if (options.resume && !earlier) throw new UsageError('nothing to resume: no earlier run of this selection', 'run it without --resume');
  if (options.resume && options.dryRun) throw new UsageError('--resume sends; --dry-run sends nothing: choose one');
  if (earlier && unanswered(earlier).length === 0 && !options.resume && !options.dryRun) {
    if (await earlierRunPending(ctx, path, earlier, projectId)) return report(ctx, earlier);
    earlier = undefined;
  }
  let count: number | null = earlier?.count ?? null;
  if (!options.resume) {
    const confirmed = await planAndConfirm(ctx, { selection, queries, projectId, host, yes: options.yes, dryRun: options.dryRun, cap });
    if (confirmed === undefined) return;
    count = confirmed;
  }
  // One run per selection; the journal is written, under the lock, before the first request.
  const lock = await lockJournal(path, ctx.clock.now);
  try {
    const journal = readDeletionJournal(path) ?? newDeletionJournal(host, projectId, queries, count, ctx.clock.now());
    writeDeletionJournal(path, journal);
    const result = await submitRequests(ctx, path, journal, cap);
    await report(ctx, journal);
    if (result.stoppedAtActiveLimit) {
      throw new NotDoneYetError(
        `${journal.requests.length - unanswered(journal).length} of ${journal.requests.length} requests made: PostHog keeps at most 5 active requests per project`,
        'run the same command with --resume once some have completed (`hogctl events deletion-requests`)',
      );
    }
  } finally {
    await lock.release();
  }
}

interface PlanInput {
  selection: EventSelection;
  queries: string[];
  projectId: string;
  host: string;
  yes?: boolean;
  dryRun?: boolean;
  cap: { maxWaitMs: number; flag: string };
}

/** Counts, shows the plan and confirms; the count, or undefined for a dry run. */
async function planAndConfirm(ctx: Context, p: PlanInput): Promise<number | null | undefined> {
  const counted = await countSelection(ctx, p.projectId, p.queries, p.cap);
  const sample = counted.count ? await sampleSelection(ctx, p.projectId, p.queries[0], SAMPLE_SIZE) : [];
  ctx.info(`Plan: delete events in project ${p.projectId} on ${p.host}`);
  for (const line of planLines(p.selection, counted, p.queries.length, sample)) ctx.info(`  ${line}`);
  if (p.dryRun) {
    ctx.info('dry run: no request was sent');
    return undefined;
  }
  if (counted.count === 0) ctx.info('no event is selected now; the requests are still made, for events PostHog has not counted yet');
  const typed = counted.count === null || counted.count > TYPED_CONFIRMATION_ABOVE;
  await confirmOrRefuse(ctx, {
    yes: p.yes,
    summary: `Delete ${counted.count === null ? 'an unknown number of' : counted.count.toLocaleString('en-US')} events in project ${p.projectId} on ${p.host}.`,
    question: 'Go ahead? This cannot be undone.',
    typeToConfirm: typed ? (counted.count === null ? 'delete' : String(counted.count)) : undefined,
  });
  if (ctx.deps.signal?.aborted) throw new CancelledError('cancelled; nothing was sent');
  return counted.count;
}

async function report(ctx: Context, journal: DeletionJournal): Promise<void> {
  const writer = new RecordWriter(await ctx.output(), { columns: EVENTS_DELETE_COLUMNS });
  const rows = journal.requests.map((r, i) => ({
    request: i + 1,
    id: r.id ?? null,
    status: r.status ?? (r.sent_at ? 'unanswered' : 'not sent'),
    submission_id: r.submission_id,
    answered_at: r.answered_at ?? null,
  }));
  await writer.writePage(rows);
  await writer.end();
  const made = rows.filter((r) => r.id !== null).length;
  if (made > 0)
    ctx.info(
      `${made} deletion request${made === 1 ? '' : 's'} made; PostHog approves each before it runs. Follow them with \`hogctl events deletion-requests\`.`,
    );
}
