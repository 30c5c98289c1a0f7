// POST /api/projects/{id}/persons/bulk_delete/ (docs/server-contract.md §6.6): person UUIDs or distinct
// ids, at most 1000 per call, never both. Newest servers answer 202 with a summary (possibly with
// persons_queued_for_deletion), older ones 202 or 200 with an empty body (docs/server-contract.md §13).
import type { ApiClient, ApiResponse, RequestOptions } from '../http/client.js';
import { expectShape } from '../http/foreign-answer.js';
import { personsPath } from './persons.js';

export interface BulkDeleteRequest {
  ids?: string[];
  distinct_ids?: string[];
  delete_events: boolean;
  delete_recordings: boolean;
  keep_person: boolean;
}

/** What the server said, as far as it said anything; every field is optional across versions. */
export interface BulkDeleteSummary {
  persons_found?: number;
  persons_deleted?: number;
  persons_queued_for_deletion?: number;
  events_queued_for_deletion?: boolean;
  recordings_queued_for_deletion?: boolean;
  /** `{person_uuid}`, or `{person_id|person_uuid, step, error}` on the newest servers. */
  deletion_errors?: Record<string, unknown>[];
}

/** One request, no retries of its own (the bulk runner decides), every status returned. */
export function bulkDeletePersons(
  client: ApiClient,
  projectId: string,
  body: BulkDeleteRequest,
  options: Pick<RequestOptions, 'timeoutMs' | 'signal'> = {},
): Promise<ApiResponse<unknown>> {
  return client.post<unknown>(personsPath(projectId, 'bulk_delete/'), body, {
    ...options,
    idempotent: true,
    retry: { maxRetries: 0 },
    acceptStatus: () => true,
    answer: 'action',
  });
}

/**
 * The summary of a 2xx answer: null for an older server's empty body; a body that is neither
 * empty nor a summary (`{}`) is no answer of PostHog's.
 */
export function bulkDeleteSummaryOf(res: { status: number; url: string; body: unknown }): BulkDeleteSummary | null {
  const summary = readBulkDeleteSummary(res.body);
  expectShape(res, 'POST', 'a bulk_delete summary', (body) => body === null || summary !== null);
  return summary;
}

/** The summary fields of a 2xx body; null when the body is empty or not a summary (older servers). */
export function readBulkDeleteSummary(body: unknown): BulkDeleteSummary | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const b = body as Record<string, unknown>;
  const out: BulkDeleteSummary = {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const bool = (v: unknown) => (typeof v === 'boolean' ? v : undefined);
  if (num(b.persons_found) !== undefined) out.persons_found = num(b.persons_found);
  if (num(b.persons_deleted) !== undefined) out.persons_deleted = num(b.persons_deleted);
  if (num(b.persons_queued_for_deletion) !== undefined) out.persons_queued_for_deletion = num(b.persons_queued_for_deletion);
  if (bool(b.events_queued_for_deletion) !== undefined) out.events_queued_for_deletion = bool(b.events_queued_for_deletion);
  if (bool(b.recordings_queued_for_deletion) !== undefined) out.recordings_queued_for_deletion = bool(b.recordings_queued_for_deletion);
  if (Array.isArray(b.deletion_errors))
    out.deletion_errors = b.deletion_errors.filter((e): e is Record<string, unknown> => e !== null && typeof e === 'object');
  return Object.keys(out).length > 0 ? out : null;
}
