// A change whose answer never came (a timeout, a dropped connection, an answer cut short) or came
// as a server error may or may not have been made: the user must hear that, not just "failed",
// and how to make sure. Rate limits (exit 6) are refusals before any work and stay as they are.
import { CliError, ExitCode, NotPostHogApiError, TlsError, UnavailableError } from '../../../errors.js';

/** How to see whether a change to a person was applied (PostHog applies them within seconds). */
export function checkPerson(id: string): string {
  return `check with \`hogctl persons get ${id}\` in a few seconds`;
}

export async function unconfirmed<T>(change: string, rerun: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    // Whatever answered was not PostHog (an HTML page, a redirect), or no TLS connection could be
    // made: the change never reached it.
    if (
      !(error instanceof CliError) ||
      error.exitCode !== ExitCode.unavailable ||
      error instanceof NotPostHogApiError ||
      error instanceof TlsError ||
      // Nothing listened (or the name did not resolve): the request never left.
      (error instanceof UnavailableError && (error.notSent || error.notDone))
    )
      throw error;
    // What to do about the change comes first; the transport's own advice follows.
    throw new UnavailableError(
      `${change} may or may not have been applied: ${error.message}`,
      `${rerun}${error.hint ? `\n  ${error.hint}` : ''}`,
    );
  }
}
