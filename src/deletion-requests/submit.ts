// Sends the journaled requests of `hogctl events delete`, one at a time: each is marked sent in
// the journal before it goes and its answer written after, so a lost answer is sent again with
// the same submission id (and PostHog answers with the request it made). Creates are limited to
// 10 an hour per project (waited out up to --max-wait) and 5 active requests per project (the run
// stops there, and --resume goes on once PostHog has completed some): posthog/data_deletion.py
// `MAX_ACTIVE_REQUESTS_PER_TEAM`, posthog/api/data_deletion_request.py `DataDeletionCreateThrottle`.
import type { Context } from '../context.js';
import { ApiError } from '../errors.js';
import { createDeletionRequest } from '../api/data-deletion.js';
import { underRateLimit, type WaitCap } from '../cli/wait-out-limit.js';
import { explainUnavailable } from './unavailable.js';
import { unanswered, writeDeletionJournal, type DeletionJournal } from './deletion-journal.js';

const CREATE_LIMIT = {
  waiting: 'rate-limited by the server (deletion requests: 10 an hour per project)',
  limits: 'the server limits deletion requests',
};

/** 409 (newest) or 400 (earlier versions of the API) for the five active requests. */
function activeLimit(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    (error.status === 409 || error.status === 400) &&
    /maximum number of active/i.test(error.server.detail ?? '')
  );
}

export interface SubmitResult {
  /** True when PostHog's limit of active requests stopped the run before every request was made. */
  stoppedAtActiveLimit: boolean;
}

export async function submitRequests(ctx: Context, path: string, journal: DeletionJournal, cap: WaitCap): Promise<SubmitResult> {
  const client = await ctx.api({ auth: 'prefer-key' });
  for (const request of unanswered(journal)) {
    request.sent_at = new Date(ctx.clock.now()).toISOString();
    writeDeletionJournal(path, journal);
    let answer;
    try {
      answer = await underRateLimit(
        ctx,
        cap,
        (retry) =>
          createDeletionRequest(
            client,
            journal.project,
            { query: request.query, submission_id: request.submission_id },
            { retry, signal: ctx.deps.signal },
          ),
        CREATE_LIMIT,
      );
    } catch (error) {
      if (activeLimit(error)) return { stoppedAtActiveLimit: true };
      throw explainUnavailable(error, journal.project);
    }
    request.id = answer.item.id;
    request.status = answer.item.status;
    request.answered_at = new Date(ctx.clock.now()).toISOString();
    writeDeletionJournal(path, journal);
  }
  return { stoppedAtActiveLimit: false };
}
