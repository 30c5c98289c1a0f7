// How a bulk run ends for the person who ran it: the warnings its receipt calls for, and then
// either the closing line (exit 0) or the error that carries the exit code (ARCHITECTURE.md §4):
// 4 when the key was refused, the server's own code when it rejected a request, 130 when
// interrupted, 6 when the server asks to wait past --max-wait, 8 when chunks failed or the kind's
// verdict says the work is not done (persons not deleted, changes not shown). Every error says
// what was done before it and how to continue. A receipt or summary that could not be made after
// the work was done is unrecorded.ts's (exit 9).
import {
  ApiError,
  AuthError,
  CancelledError,
  NotPostHogApiError,
  PartialFailureError,
  RateLimitedError,
  TlsError,
  UsageError,
  type CliError,
} from '../../errors.js';
import { formatClock, formatDuration } from '../../io/progress.js';
import type { Verdict } from './action.js';
import type { Receipt } from './receipt.js';
import type { RunResult } from './runner.js';
import { counted, formatNumber, plural } from '../../io/counts.js';

export interface OutcomeFacts {
  /** What the run did, in the action's words: "12 persons deleted (12 found) from 12 ids sent". */
  account: string;
  /** The command line that continues the run. */
  resume: string;
  /** Requests this run was to send. */
  requests: number;
  /** Undefined when the receipt could not be written: then none is named. */
  receiptPath: string | undefined;
  maxWaitMs: number;
  now: number;
  /** What the job does to persons: "deleted", "changed" (JobKind.words.done). */
  done: string;
  /** What the kind makes of a run whose requests all went through (action.ts, JobKind.verdict). */
  verdict(receipt: Receipt): Verdict;
}

export interface Outcome {
  warnings: string[];
  /** Thrown by the caller: the run did not complete. */
  error?: CliError;
  /** Printed when it did. */
  success?: string;
}

export function outcome(result: RunResult, receipt: Receipt, o: OutcomeFacts): Outcome {
  const warnings: string[] = [];
  if (receipt.unclear_requests) {
    warnings.push(
      `${counted(receipt.unclear_requests.ids, 'id')} went out in requests that had an attempt without a clear answer (a timeout, a lost connection or a server error) and could not be checked afterwards: persons such an attempt ${o.done} are not counted as ${o.done} or found; the receipt says so`,
    );
  }
  if (receipt.not_reported.length) {
    warnings.push(
      `the server did not report ${receipt.not_reported.map((r) => `${r.count} (${counted(r.chunks, 'request')})`).join(', ')}: ${receipt.not_reported[0].why}; the receipt says so`,
    );
  }
  const end = ending(result, receipt, o);
  if (end.error) return { warnings, ...end };
  const checked = o.verdict(receipt);
  return { warnings: [...warnings, ...checked.warnings], ...(checked.error ? { error: checked.error } : end) };
}

/**
 * A job over several projects that could not search some of them did not do all it was asked:
 * exit 8, naming them, even when everything else succeeded.
 */
export function unreachableOutcome(receipt: Receipt, done = 'deleted'): CliError | undefined {
  const missed = receipt.projects.filter((p) => p.status === 'unreachable');
  if (missed.length === 0) return undefined;
  const which = missed.map((p) => `project ${p.project} (${p.unreachable_reason})`).join(', ');
  return new PartialFailureError(
    `${missed.length === 1 ? 'one project' : `${missed.length} projects`} could not be searched, so nothing in ${plural(missed.length, 'it', 'them')} was ${done}: ${which}; the receipt says so`,
    `give the key access (or use a key that has it) and run the same command with --projects ${missed.map((p) => p.project).join(',')}`,
  );
}

function ending(result: RunResult, receipt: Receipt, o: OutcomeFacts): Pick<Outcome, 'error' | 'success'> {
  const c = receipt.counts;
  const resume = `continue with:\n  ${o.resume}`;
  switch (result.reason) {
    case 'auth':
      return {
        error: new AuthError(
          `${result.error!.message}; stopped at once, nothing more was sent (${o.account} before that)`,
          `${result.error!.hint ?? 'check the API key'}; then ${resume}`,
        ),
      };
    case 'rejected': {
      const e = result.error!;
      const message = `${e.message}; stopped, nothing more was sent (${o.account} before that)`;
      const hint = `${e.hint ? `${e.hint}; then ` : ''}${resume}`;
      if (e instanceof ApiError) return { error: new ApiError(message, e.status, e.server, hint, e.exitCode) };
      if (e instanceof NotPostHogApiError) return { error: new NotPostHogApiError(message, hint) };
      return { error: e instanceof TlsError ? new TlsError(message, hint) : new UsageError(message, hint) };
    }
    case 'interrupted':
      return {
        error: new CancelledError(
          [
            `interrupted: ${o.account}`,
            // Every kind's next run takes them up first (a deletion checks them, an update or a
            // merge sends them again, an export goes on writing them): nothing more is known.
            c.unconfirmed &&
              `${counted(c.unconfirmed, 'id')} ${c.unconfirmed === 1 ? 'was' : 'were'} on the way, without an answer (the next run takes ${c.unconfirmed === 1 ? 'it' : 'them'} up first)`,
            c.not_sent + c.failed && `${counted(c.not_sent + c.failed, 'id')} not done yet`,
          ]
            .filter(Boolean)
            .join('; '),
          resume,
        ),
      };
    case 'rate_limited': {
      const until = result.until ?? o.now;
      return {
        error: new RateLimitedError(
          `the server asks to wait until ${formatClock(until)} (${formatDuration(until - o.now)}), longer than --max-wait ${formatDuration(o.maxWaitMs)}; stopped, nothing more was sent (${o.account} before that)`,
          `resume then (or pass a longer --max-wait):\n  ${o.resume}`,
        ),
      };
    }
    default:
      break;
  }
  if (c.failed > 0) {
    return {
      error: new PartialFailureError(
        `${formatNumber(receipt.failed_chunks.length)} of ${counted(o.requests, 'request')} failed after retries (${formatNumber(c.failed)} ids): ${o.account}; ${o.receiptPath ? `the receipt ${o.receiptPath}` : 'the journal'} lists them`,
        `retry them with:\n  ${o.resume}`,
      ),
    };
  }
  return { success: `✔ ${o.account}${o.receiptPath ? `; receipt: ${o.receiptPath}` : ''}` };
}
