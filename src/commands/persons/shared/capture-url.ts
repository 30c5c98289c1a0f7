// --capture-url, of the verbs that change persons through capture (bulk-update, merge and its
// undo): one help text, one parse, and one rule for where a run's capture requests go, so that
// the verbs agree on what beats what.
import { captureHost } from '../../../api/capture.js';
import type { KindFields } from '../../../bulk/engine/action.js';
import { normalizeBaseUrl } from '../../../config/settings.js';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';

export const CAPTURE_URL_HELP =
  "the ingestion host for capture requests (default: HOGCTL_CAPTURE_URL, the profile's capture URL, or the site's: us.i.posthog.com for us.posthog.com, eu.i.posthog.com for eu.posthog.com, the site itself when self-hosted; a resumed run goes on where it started)";

/** --capture-url, normalised; undefined when not given, and then the settings decide. */
export function givenCaptureUrl(options: { captureUrl?: string }): string | undefined {
  return options.captureUrl === undefined ? undefined : normalizeBaseUrl(options.captureUrl, 'capture').url;
}

/**
 * Where a run's capture requests go: --capture-url; else, for a run continued, where its journal
 * says they went (`recorded`: the kind's fields of its header, whose `capture_host` the three
 * kinds write); else where the settings say (captureHost). A run continued in a shell without
 * HOGCTL_CAPTURE_URL, or typed without the flag, must not send the rest of its events to another
 * host; a flag that names another one is refused.
 */
export async function runCaptureHost(ctx: Context, given: string | undefined, recorded: KindFields | undefined): Promise<string> {
  const then = recorded?.capture_host;
  if (typeof then !== 'string') return given ?? captureHost(await ctx.settings());
  if (given !== undefined && given !== then)
    throw new UsageError(
      `the run being continued sent its capture requests to ${then}, not to ${given} (--capture-url); nothing was sent`,
      `drop --capture-url to send the rest to ${then} as well, or start a new run with --journal <new path>`,
    );
  return then;
}
