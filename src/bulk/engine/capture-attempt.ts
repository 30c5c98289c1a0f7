// One attempt at a request, as the runner reads it, for the kinds that send through PostHog's
// capture (a bulk update's `$set` events, a merge's `$merge_dangerously` events) and the REST
// calls of the others: accepted, throttled (429 with its Retry-After), worth another try (a lost
// answer, 408, 5xx), or refused for the whole run (401/403, another 4xx, a quota, an answer that
// is not capture's). Only capture's own acceptance counts (api/capture.ts readCaptureAnswer).
import { readCaptureAnswer } from '../../api/capture.js';
import {
  ApiError,
  CliError,
  ExitCode,
  NotPostHogApiError,
  RateLimitedError,
  TlsError,
  UnavailableError,
  UsageError,
} from '../../errors.js';
import { describeHttpError } from '../../http/describe-error.js';
import { parseRetryAfter } from '../../http/retry.js';
import type { Attempt } from './runner.js';

type Answer = { status: number; url: string; body: unknown; headers: Record<string, string | string[] | undefined> };

/**
 * A capture request to `to`: `undone` says, in the kind's words, what a refused request leaves
 * undone ("no person of that request is counted as changed").
 */
export async function captureAttempt(
  send: () => Promise<Answer>,
  now: () => number,
  to: { host: string; project: string },
  undone: string,
): Promise<Attempt> {
  let res;
  try {
    res = await send();
  } catch (err) {
    return attemptOf(err);
  }
  const { status } = res;
  if (status >= 200 && status < 300) {
    const answer = readCaptureAnswer(status, res.body);
    if (answer.accepted) return { kind: 'ok', status, summary: null };
    // Every other request of the run would be answered the same way: stop; --resume sends these again.
    if ('quotaLimited' in answer)
      return {
        kind: 'rejected',
        status,
        error: new ApiError(
          `project ${to.project} is over its billing quota for ${answer.quotaLimited.join(', ')} (capture answered quota_limited: ${JSON.stringify(answer.quotaLimited)}): the events were dropped and ${undone}`,
          status,
          { code: 'quota_limited' },
          "raise the project's billing limit in PostHog (or wait for the next billing period)",
          ExitCode.rejected,
        ),
      };
    return {
      kind: 'rejected',
      status,
      error: new NotPostHogApiError(
        `${new URL(to.host).host} answered POST /batch/ with ${answer.unknown}, which is not an acceptance PostHog's capture gives ({"status": "Ok"}, {"status": 1} or an empty 204): ${undone}`,
        `check the ingestion host (now ${to.host}; --capture-url or HOGCTL_CAPTURE_URL change it)`,
      ),
    };
  }
  const error = describeHttpError('POST', res.url, status, res.body);
  if (status === 429)
    return { kind: 'throttled', status, retryAfterMs: parseRetryAfter(res.headers['retry-after'], now()), error: error.message };
  if (status === 401 || status === 403) return { kind: 'auth', status, error };
  if (status === 408 || status >= 500) return { kind: 'retry', status, error: error.message, unclear: mayHaveBeenDone(status) };
  // 400 (a malformed event) or 413 (too large): every other batch would fail the same way.
  return { kind: 'rejected', status, error };
}

/** An error thrown by a request, as the runner reads it. */
export function attemptOf(err: unknown): Attempt {
  if (err instanceof NotPostHogApiError || err instanceof TlsError || err instanceof UsageError)
    return { kind: 'rejected', status: 0, error: err };
  if (err instanceof RateLimitedError) return { kind: 'throttled', status: 429, retryAfterMs: err.retryAfterMs, error: err.message };
  if (err instanceof UnavailableError) return { kind: 'retry', status: null, error: err.message, unclear: !err.notSent };
  if (err instanceof ApiError) {
    if (err.status === 401 || err.status === 403) return { kind: 'auth', status: err.status, error: err };
    if (err.status >= 500 || err.status === 408)
      return { kind: 'retry', status: err.status, error: err.message, unclear: mayHaveBeenDone(err.status) };
    return { kind: 'rejected', status: err.status, error: err as CliError };
  }
  throw err;
}

/** Whether a request answered with this status may have been carried out: a proxy's 502/504
 * after the work, or a server error part way, leaves it unclear; 408 and 503 refuse before any
 * work. The deletion's requests (kinds/delete/send.ts) go by the same rule. */
export function mayHaveBeenDone(status: number): boolean {
  return status !== 408 && status !== 503;
}
