// How a command that prints page after page says how to go on when it stops halfway (Ctrl-C, a
// wait longer than --max-wait, any error): what it printed, and the command that continues
// exactly after that, so that the two outputs appended together hold every row once.
import type { Context } from '../context.js';
import { CancelledError, CliError, ExitCode, NotPostHogApiError, TlsError } from '../errors.js';
import { counted } from '../io/counts.js';

export interface Stop {
  /** Rows printed before the stop, and what a row is: ['row', 'rows'] or ['person', 'persons']. */
  printed: number;
  noun: [string, string];
  /** Requests answered before the stop, and what one is: ['query', 'queries']. */
  requests: number;
  requestNoun: [string, string];
  /** The command line that goes on from here (rerun.ts), and whether it continues (a cursor or
   * an offset) or starts again from the top. */
  command: string;
  continues: boolean;
}

/**
 * The error the command ends with: `error` itself, saying how many requests were answered, with
 * what was printed and the command to run next as its hint. A command stopped before it printed
 * anything because the server refused it as written (a usage error, a 400) gets no command: the
 * same line would fail the same way.
 */
export function stoppedError(ctx: Context, error: unknown, stop: Stop): unknown {
  const aborted = Boolean(ctx.deps.signal?.aborted);
  // Nothing printed, and what answered is not PostHog, or would not let the key in: running it
  // again changes nothing until the settings do, which the error's own hint says.
  const refusedAtOnce =
    error instanceof NotPostHogApiError || error instanceof TlsError || (error instanceof CliError && error.exitCode === ExitCode.auth);
  if (refusedAtOnce && stop.printed === 0 && !aborted) return error;
  let where: string;
  if (stop.continues) {
    where = `${counted(stop.printed, ...stop.noun)} printed; continue ${stop.printed > 0 ? 'after the last one ' : ''}with:\n  ${stop.command}`;
  } else if (aborted || !(error instanceof CliError) || (error.exitCode !== ExitCode.usage && error.exitCode !== ExitCode.rejected)) {
    where = `no ${stop.noun[1]} printed; run it again with:\n  ${stop.command}`;
  } else {
    return error;
  }
  const after = counted(stop.requests, ...stop.requestNoun);
  if (error instanceof CliError) {
    if (!aborted) error.message = `${error.message} (stopped after ${after})`;
    error.hint = `${where}${error.hint ? `\n  ${error.hint}` : ''}`;
    return error;
  }
  if (aborted) return new CancelledError(`interrupted after ${after}`, where);
  return error;
}
