// What `hogctl events` says when PostHog's self-service event deletion is not there for this
// project (PostHog/posthog PR #104278, posthog/api/data_deletion_request.py): a server without the
// routes (404), a project without the `self-service-data-deletion` flag (403 with its own text), a
// key without the `data_deletion` scopes, and preview refusing personal keys (a custom action with
// no scope mapping, posthog/permissions.py `APIScopePermission`).
import { ApiError, AuthError, NotFoundError } from '../errors.js';

export const FLAG_OFF_DETAIL = 'Self-service data deletion is not enabled for this project.';

const PERSONS_INSTEAD =
  'deleting the persons with `hogctl persons bulk-delete --delete-events` removes the events of their own distinct ids; for the rest, ask PostHog support';

/** A preview the key may not make: PostHog asks for a session there. */
export function previewRefusesKey(error: unknown): boolean {
  return error instanceof ApiError && error.status === 403 && /personal api key/i.test(error.server.detail ?? '');
}

/** The error to show for an answer that means the API is not there for us; others as they are. */
export function explainUnavailable(error: unknown, projectId: string): unknown {
  if (!(error instanceof ApiError)) return error;
  const detail = error.server.detail ?? '';
  if (error.status === 404) {
    return new NotFoundError(
      'this server has no self-service event deletion (data_deletion_requests answered 404): it is older than the API, or the API is not deployed there',
      PERSONS_INSTEAD,
    );
  }
  if (error.status !== 403) return error;
  if (detail === FLAG_OFF_DETAIL) {
    return new AuthError(
      `self-service event deletion is not enabled for project ${projectId} (PostHog answered "${FLAG_OFF_DETAIL}")`,
      `PostHog turns it on per project: ask PostHog support to enable it; meanwhile ${PERSONS_INSTEAD}`,
    );
  }
  const scope = /missing required scope '([^']+)'/.exec(detail)?.[1];
  if (scope) {
    return new AuthError(
      `your API key lacks the scope ${scope}`,
      'use a personal API key with data_deletion:read and data_deletion:write (or all access), or sign in with `hogctl auth login`',
    );
  }
  return error;
}
