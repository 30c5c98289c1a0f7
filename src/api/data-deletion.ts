// Thin typed calls for self-service event deletion requests, `/api/projects/:id/
// data_deletion_requests/` (PostHog/posthog PR #104278: posthog/api/data_deletion_request.py,
// `DataDeletionRequestViewSet`): preview a query's count, create a request with a client-made
// `submission_id` (201 new, 200 the same request again), list and retrieve.
import type { ApiClient } from '../http/client.js';
import type { RetryPolicy } from '../http/retry.js';
import { paginate } from '../http/paginate.js';
import { expectShape, OBJECT_WITH } from '../http/foreign-answer.js';

export interface DeletionRequestItem {
  id: string;
  status: 'draft' | 'pending' | 'approved' | 'in_progress' | 'queued' | 'completed' | 'failed';
  query: string;
  variables: Record<string, unknown>;
  submission_id: string;
  count: number | null;
  created_by_id: number | null;
  created_by_staff: boolean;
  created_at: string;
  updated_at: string;
  approved_at: string | null;
  stats_calculated_at: string | null;
}

export const DELETION_REQUEST_FIELDS = [
  'id',
  'status',
  'query',
  'variables',
  'submission_id',
  'count',
  'created_by_id',
  'created_by_staff',
  'created_at',
  'updated_at',
  'approved_at',
  'stats_calculated_at',
];

export interface DeletionQuery {
  query: string;
  variables?: Record<string, unknown>;
}

interface CallOptions {
  signal?: AbortSignal;
  retry?: Partial<RetryPolicy>;
}

export function deletionRequestsPath(projectId: string, suffix = ''): string {
  return `/api/projects/${encodeURIComponent(projectId)}/data_deletion_requests/${suffix}`;
}

const IS_ITEM = OBJECT_WITH('id');

/** POST preview/: how many events the query selects now. Refuses personal keys on PostHog. */
export async function previewDeletion(client: ApiClient, projectId: string, body: DeletionQuery, o: CallOptions = {}): Promise<number> {
  // A preview only reads: safe to send again after a lost answer.
  const res = await client.post<{ count: number }>(
    deletionRequestsPath(projectId, 'preview/'),
    { variables: {}, ...body },
    {
      idempotent: true,
      ...o,
    },
  );
  expectShape(res, 'POST', 'a preview count', (b) => typeof (b as { count?: unknown } | null)?.count === 'number');
  return res.body.count;
}

/**
 * POST: one request. The submission id makes it safe to send again: the server answers the same
 * request with 200 instead of making a second one (posthog/data_deletion.py,
 * `create_event_deletion_request`), so the client may retry it after a lost answer.
 */
export async function createDeletionRequest(
  client: ApiClient,
  projectId: string,
  body: DeletionQuery & { submission_id: string },
  o: CallOptions = {},
): Promise<{ created: boolean; item: DeletionRequestItem }> {
  const res = await client.post<DeletionRequestItem>(
    deletionRequestsPath(projectId),
    { variables: {}, ...body },
    { idempotent: true, ...o },
  );
  expectShape(res, 'POST', 'a deletion request', IS_ITEM);
  return { created: res.status === 201, item: res.body };
}

export async function getDeletionRequest(
  client: ApiClient,
  projectId: string,
  id: string,
  o: CallOptions = {},
): Promise<DeletionRequestItem> {
  const res = await client.get<DeletionRequestItem>(deletionRequestsPath(projectId, `${encodeURIComponent(id)}/`), undefined, o);
  expectShape(res, 'GET', 'a deletion request', IS_ITEM);
  return res.body;
}

/** GET: the project's requests, newest first, a limit/offset page at a time. */
export function listDeletionRequests(
  client: ApiClient,
  projectId: string,
  o: { pageSize?: number; limit?: number; signal?: AbortSignal } = {},
): AsyncGenerator<DeletionRequestItem[]> {
  return paginate<DeletionRequestItem>(client, deletionRequestsPath(projectId), { limit: o.pageSize ?? 100 }, o);
}
