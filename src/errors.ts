// Every failure a user can see is a CliError: it carries the exit code of ARCHITECTURE.md §4 and a
// hint that tells the user how to fix it. main.ts is the only place that turns them into codes.

export const ExitCode = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  notFound: 3,
  auth: 4,
  rejected: 5,
  rateLimited: 6,
  unavailable: 7,
  partial: 8,
  notRecorded: 9,
  cancelled: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export class CliError extends Error {
  readonly exitCode: ExitCode = ExitCode.unexpected;
  constructor(
    message: string,
    public hint?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class UsageError extends CliError {
  override readonly exitCode = ExitCode.usage;
}

export class CancelledError extends CliError {
  override readonly exitCode = ExitCode.cancelled;
}

export class PartialFailureError extends CliError {
  override readonly exitCode = ExitCode.partial;
}

/**
 * Exit 9: the work was done, in whole or in part, but what records or reports it could not be
 * made whole (a receipt, journal, plan or bundle file cut short by a full disk, or --jq/--template
 * failing on the output). Never exit 2, which says nothing was sent: the message says what was done
 * and how to get the missing file or output.
 */
export class NotRecordedError extends CliError {
  override readonly exitCode = ExitCode.notRecorded;
}

/** Exit 8 for what has not failed but is not done yet (PostHog's weekly event deletion still to
 * run): said as it is, without a red "error:". */
export class NotDoneYetError extends PartialFailureError {}

/** What a PostHog error body said, whatever its shape (see docs/server-contract.md §4 and §13). */
export interface ServerErrorBody {
  type?: string;
  code?: string;
  detail?: string;
  attr?: string | null;
}

/** An HTTP answer that was not a success, after retries. */
export class ApiError extends CliError {
  override readonly exitCode: ExitCode;
  constructor(
    message: string,
    readonly status: number,
    readonly server: ServerErrorBody,
    hint?: string,
    exitCode?: ExitCode,
  ) {
    super(message, hint);
    this.exitCode = exitCode ?? exitCodeForStatus(status);
  }
}

export class NotFoundError extends CliError {
  override readonly exitCode = ExitCode.notFound;
}

export class AuthError extends CliError {
  override readonly exitCode = ExitCode.auth;
}

export class RateLimitedError extends CliError {
  override readonly exitCode = ExitCode.rateLimited;
  /** How long the server asked to wait (Retry-After), when it said. */
  retryAfterMs?: number;
}

/** Network failure, timeout or 5xx after every retry. */
export class UnavailableError extends CliError {
  override readonly exitCode = ExitCode.unavailable;
  /** The request never left: the connection was refused or the host name did not resolve. */
  notSent = false;
  /** The server answered that it did not do it (a deletion it reported failed): no doubt. */
  notDone = false;
}

/**
 * The host answered, but not as a PostHog API answers: an HTML page, a redirect, a body that is
 * not the JSON the endpoint returns. Nothing it said may be taken as a success (design rule: a
 * success is claimed only from an answer in the documented shape).
 */
export class NotPostHogApiError extends CliError {
  override readonly exitCode = ExitCode.unavailable;
}

/** An answer larger than hogctl reads for its kind of request (src/http/answer-size.ts): not read
 * to its end, and never asked again, as no foreign answer is. */
export class AnswerTooLargeError extends NotPostHogApiError {}

/** The TLS handshake failed (an untrusted or wrong certificate): the request never left, and
 * trying again cannot help. */
export class TlsError extends CliError {
  override readonly exitCode = ExitCode.unavailable;
}

export function exitCodeForStatus(status: number): ExitCode {
  if (status === 404) return ExitCode.notFound;
  if (status === 401 || status === 403) return ExitCode.auth;
  if (status === 429) return ExitCode.rateLimited;
  if (status >= 500 || status === 0) return ExitCode.unavailable;
  if (status >= 400) return ExitCode.rejected;
  return ExitCode.unexpected;
}
