// Before a long job sends anything: does the key have the scope the job needs, for this project?
// A job of a million ids that fails on its first request with 403 wastes nothing, but one that
// was planned, confirmed and journaled first wastes the admin's time; this asks the server what
// the key may do (GET /api/personal_api_keys/@current/) and refuses at once, exit 4, naming what
// is missing. Where the server cannot say (an older server, or a key that may not read itself),
// the job goes on and the server's own 403 stays the last word.
import type { Context } from '../../context.js';
import { AuthError, CliError, NotPostHogApiError, TlsError, UnavailableError } from '../../errors.js';
import { getCurrentKey, grants } from '../../api/personal-api-keys.js';
import type { ApiClient } from '../../http/client.js';
import { plural } from '../../io/counts.js';

/** `projectId` undefined: a job over several projects, whose unreachable ones were found already. */
export async function checkKeyScope(ctx: Context, client: ApiClient, projectId: string | undefined, scope: string): Promise<void> {
  let found: Awaited<ReturnType<typeof getCurrentKey>>;
  try {
    found = await getCurrentKey(client);
  } catch (err) {
    // A refused key, an unreachable or foreign host: the job's first request meets the same
    // answer and reports it with its journal and receipt.
    if (!(err instanceof CliError)) throw err;
    // What answered is not PostHog, no TLS connection could be made, or nothing listens there:
    // stop before anything is sent.
    if (err instanceof NotPostHogApiError || err instanceof TlsError || (err instanceof UnavailableError && err.notSent)) {
      err.message = `${err.message}; nothing was sent`;
      throw err;
    }
    ctx.debug(`scope check skipped: ${err.message}`);
    return;
  }
  if ('unknown' in found) {
    ctx.debug(
      found.unknown === 'absent'
        ? 'scope check skipped: the server has no /api/personal_api_keys/@current/'
        : 'scope check skipped: the key may not read its own scopes (personal_api_key:read)',
    );
    return;
  }
  const { key } = found;
  const name = key.label ? `the API key "${key.label}"${key.mask_value ? ` (${key.mask_value})` : ''}` : 'the API key';
  if (!grants(key.scopes, scope)) {
    throw new AuthError(
      `${name} lacks the scope ${scope} this job needs (it has ${key.scopes.join(', ')}); nothing was sent`,
      `give the key ${scope} in PostHog (Settings → Personal API keys), or use another key`,
    );
  }
  if (projectId !== undefined && key.scoped_teams.length && !key.scoped_teams.includes(Number(projectId))) {
    throw new AuthError(
      `${name} is limited to ${plural(key.scoped_teams.length, 'project')} ${key.scoped_teams.join(', ')}, not project ${projectId}; nothing was sent`,
      'use a key that may access this project, or choose one of those projects with --project',
    );
  }
}
