// Checks a new profile's key and project against the server before they are saved, so that a
// typo shows at set-up rather than at the first real command.
//
// The key: `GET /api/personal_api_keys/@current/` answers for the calling key (docs/server-contract.md §3.6,
// PostHog/posthog#26519); a server without it (404) is asked `GET /api/users/@me/` instead. 401
// means the key is wrong; a 403 means it is valid but lacks the scope to read that (fine here).
// The project: `GET /api/projects/{id}/` (docs/server-contract.md §8): 404 when it does not exist or the
// key's user cannot see it, 403 "does not have access to the requested project" when the key is
// scoped to other projects.
import type { ApiClient } from '../../../http/client.js';
import { AuthError, NotFoundError, UnavailableError, type CliError } from '../../../errors.js';

export type Problem = { kind: 'key' | 'project'; error: CliError } | { kind: 'unreachable'; error: CliError };

/** Few retries: an unreachable server is reported at once, and the profile saved unchecked. */
const QUICK = { retry: { maxRetries: 1 } };

export async function checkKey(client: ApiClient, baseUrl: string): Promise<Problem | undefined> {
  try {
    const current = await client.get('/api/personal_api_keys/@current/', undefined, {
      ...QUICK,
      acceptStatus: (s) => s === 401 || s === 403 || s === 404,
    });
    let status = current.status;
    if (status === 404)
      status = (await client.get('/api/users/@me/', undefined, { ...QUICK, acceptStatus: (s) => s === 401 || s === 403 })).status;
    if (status === 401) {
      return {
        kind: 'key',
        error: new AuthError(
          `${baseUrl} does not accept this API key (401)`,
          'check that you copied the whole personal API key (phx_...) and that it belongs to this site (US, EU or your own)',
        ),
      };
    }
    return undefined;
  } catch (err) {
    if (err instanceof UnavailableError) return { kind: 'unreachable', error: err };
    throw err;
  }
}

export async function checkProject(client: ApiClient, baseUrl: string, projectId: string): Promise<Problem | undefined> {
  try {
    const res = await client.get(`/api/projects/${encodeURIComponent(projectId)}/`, undefined, {
      ...QUICK,
      acceptStatus: (s) => s === 403 || s === 404,
    });
    if (res.status === 404) {
      return {
        kind: 'project',
        error: new NotFoundError(
          `project ${projectId} was not found on ${baseUrl}, or this key's user cannot see it`,
          '`hogctl projects list` shows the ids the key can see',
        ),
      };
    }
    // A key without project:read cannot read the project: that says nothing against it
    // (docs/server-contract.md §3.4: "API key missing required scope ..." vs "does not have access to the
    // requested project").
    const detail = String((res.body as { detail?: unknown } | undefined)?.detail ?? '');
    if (res.status === 403 && /does not have access/i.test(detail)) {
      return {
        kind: 'project',
        error: new AuthError(
          `this API key may not use project ${projectId} (403)`,
          'the key is limited to other projects or lacks the project:read scope; pick a project it is for, or edit the key in PostHog',
        ),
      };
    }
    return undefined;
  } catch (err) {
    if (err instanceof UnavailableError) return { kind: 'unreachable', error: err };
    throw err;
  }
}
