// The erasure's event sweep (`persons bulk-delete --sweep-events`): after the persons are deleted,
// a query deletion (PostHog's `data_deletion_requests`, PR #104278) for the events of every
// distinct id the erasure found, collected up to the erasure's start. PostHog's person-keyed
// deletion leaves the events of distinct ids that were never the person's (an address used only
// as a personless distinct id): posthog/dags/deletes.py, docs/server-contract.md §14.5. Requests are
// journaled with their submission ids before they go (src/deletion-requests/), in a journal named
// by the host, the project and the erasure's start: a --resume of the erasure finds that journal
// and sends the same queries with the same submission ids again, even when it no longer knows
// every distinct id in clear (the erasure's journal keeps e-mail-like ones only as HMACs). The
// queries name the subject's distinct ids, so that journal keeps them sealed under the evidence
// key, never in clear.
import type { Context } from '../../../context.js';
import { evidenceKey } from '../../../config/evidence-key.js';
import { AuthError, NotFoundError, type CliError } from '../../../errors.js';
import { lockJournal } from '../../engine/lock.js';
import { subjectQueries } from '../../../hogql/event-deletion.js';
import type { WaitCap } from '../../../cli/wait-out-limit.js';
import { submitRequests } from '../../../deletion-requests/submit.js';
import { explainUnavailable } from '../../../deletion-requests/unavailable.js';
import {
  deletionJournalPath,
  newDeletionJournal,
  readDeletionJournal,
  writeDeletionJournal,
} from '../../../deletion-requests/deletion-journal.js';

export interface SweepRequest {
  id: string | null;
  submission_id: string;
  /** The server's status when the erasure last heard of it; null: sent, no answer kept. */
  status: string | null;
}

/** What the receipt keeps of a project's sweep. */
export interface SweepRecord {
  /** submitted: every request made; partial: PostHog's five active requests stopped it (--resume
   * later); unavailable: the API is not there for this project, and nothing was swept. */
  status: 'submitted' | 'partial' | 'unavailable';
  /** The events selected: those collected up to this instant (the erasure's start). */
  until: string;
  distinct_ids: number;
  requests: SweepRequest[];
  /** Why nothing was swept, and what the user can do; only when unavailable. */
  unavailable?: { reason: string; what_to_do: string };
}

const RESUME = 'then run this erasure again with --resume (it sends only the sweep)';

/** What the user can do about the events that were not swept, by why. */
function whatToDo(said: CliError): string {
  if (said instanceof NotFoundError)
    return `this server has no query deletion: on a self-hosted PostHog, delete them in ClickHouse by team_id and distinct_id; on PostHog Cloud, ask PostHog support to delete them (-o json lists the project), ${RESUME} once the API is there`;
  if (/scope/.test(said.message)) return `use a key with data_deletion:write (or sign in with \`hogctl auth login\`), ${RESUME}`;
  return `ask PostHog support to enable self-service data deletion for the project (or to delete these events), ${RESUME}`;
}

/** ISO without milliseconds: the literal the query carries. */
export function sweepBound(startedAt: string): string {
  return new Date(Date.parse(startedAt)).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Submits (or, on --resume, submits again with the same submission ids) the sweep of a project. */
export async function sweepEvents(
  ctx: Context,
  project: string,
  distinctIds: string[],
  startedAt: string,
  cap: WaitCap,
): Promise<SweepRecord> {
  const until = sweepBound(startedAt);
  // Sorted, so the same erasure makes the same queries, and finds its journal again.
  const ids = [...new Set(distinctIds)].sort();
  const base = { until, distinct_ids: ids.length };
  // An address in any case of its letters, as the erasure found the persons and distinct ids it
  // names: `Lee@Example.com` is the person's distinct id that the erasure's journal keeps only as
  // an HMAC of `lee@example.com`.
  const queries = subjectQueries(ids, { until });
  if (!queries || queries.length === 0) return { status: 'submitted', ...base, requests: [] };
  const host = new URL((await ctx.settings()).baseUrl).host;
  const path = deletionJournalPath(ctx.env, host, project, ['erasure sweep', startedAt]);
  const lock = await lockJournal(path, ctx.clock.now);
  try {
    const journal = readDeletionJournal(path, ctx.env) ?? {
      ...newDeletionJournal(host, project, queries, null, ctx.clock.now()),
      seal: evidenceKey(ctx.env),
    };
    writeDeletionJournal(path, journal);
    let status: SweepRecord['status'] = 'submitted';
    let unavailable: SweepRecord['unavailable'];
    try {
      if ((await submitRequests(ctx, path, journal, cap)).stoppedAtActiveLimit) status = 'partial';
    } catch (error) {
      const said = explainUnavailable(error, project);
      // Only a refusal that means "not there for you" is kept as such; anything else (a lost
      // answer) stops the run, whose --resume sends the same submission ids.
      if (!(said instanceof NotFoundError || said instanceof AuthError)) throw error;
      status = 'unavailable';
      unavailable = { reason: said.message, what_to_do: whatToDo(said) };
    }
    const requests = journal.requests.map((r) => ({ id: r.id ?? null, submission_id: r.submission_id, status: r.status ?? null }));
    return { status, ...base, requests, ...(unavailable ? { unavailable } : {}) };
  } finally {
    await lock.release();
  }
}

/** "project 1: 1 event deletion request made for 3 distinct ids (pending PostHog's approval)" */
export function describeSweep(project: string, r: SweepRecord): string {
  const ids = `${r.distinct_ids} distinct id${r.distinct_ids === 1 ? '' : 's'}`;
  if (r.status === 'unavailable')
    return `project ${project}: the events of ${ids} were NOT swept: ${r.unavailable?.reason}. They remain until deleted otherwise: ${r.unavailable?.what_to_do}`;
  const made = r.requests.filter((q) => q.id !== null).length;
  const statuses = [...new Set(r.requests.map((q) => q.status ?? 'unanswered'))].join(', ');
  const rest = r.status === 'partial' ? `; ${r.requests.length - made} not made yet (PostHog's five active requests): --resume later` : '';
  return `project ${project}: ${made} event deletion request${made === 1 ? '' : 's'} made for the events of ${ids} collected up to ${r.until} (${statuses || 'none'}: PostHog approves each, then its weekly deletion runs it)${rest}`;
}
