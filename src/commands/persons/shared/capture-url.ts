// --capture-url, of the verbs that change persons through capture (bulk-update, merge and its
// undo): one help text and one parse, so that the verbs agree on what it beats.
import { normalizeBaseUrl } from '../../../config/settings.js';

export const CAPTURE_URL_HELP =
  "the ingestion host for capture requests (default: HOGCTL_CAPTURE_URL, the profile's capture URL, or the site's: us.i.posthog.com for us.posthog.com, eu.i.posthog.com for eu.posthog.com, the site itself when self-hosted)";

/** --capture-url, normalised; undefined when not given, and then the settings decide. */
export function givenCaptureUrl(options: { captureUrl?: string }): string | undefined {
  return options.captureUrl === undefined ? undefined : normalizeBaseUrl(options.captureUrl, 'capture').url;
}

/** The flag again on the line that continues the run (BulkSettings.repeat): the journal does not
 * record where the events went, and a resume without it would send the rest elsewhere. */
export function captureUrlRepeat(given: string | undefined): string[] {
  return given === undefined ? [] : ['--capture-url', given];
}
