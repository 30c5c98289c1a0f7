// Thin typed calls for the person endpoints that change things or report on changes
// (docs/server-contract.md §6.4–§6.7).
import type { ApiClient, ApiResponse, Query, RequestOptions } from '../http/client.js';
import { paginate } from '../http/paginate.js';
import { ApiError, ExitCode, NotFoundError, UnavailableError } from '../errors.js';
import { checkPersonId, personsPath } from './persons.js';
import { getPerson } from './persons.js';
import { describeHttpError } from '../http/describe-error.js';
import { EMPTY, expectShape, OBJECT_WITH, SUCCESS } from '../http/foreign-answer.js';

/** What a deletion of one person takes with it, or leaves (bulk_delete's and DELETE's flags). */
export interface DeleteFlags {
  deleteEvents: boolean;
  deleteRecordings: boolean;
  keepPerson: boolean;
}

export interface SplitRequest {
  main_distinct_id?: string;
  distinct_ids_to_split?: string[];
}

export interface ActivityEntry {
  id: string;
  user: { first_name?: string; email?: string } | null;
  activity: string;
  scope: string;
  item_id: string;
  detail: {
    changes?: { type?: string; action?: string; field?: string | null; before?: unknown; after?: unknown }[] | null;
    name?: string | null;
    [key: string]: unknown;
  } | null;
  created_at: string;
}

export interface DeletionStatusEntry {
  person_uuid: string;
  created_at: string;
  status: 'pending' | 'completed';
  delete_verified_at: string | null;
}

export const ACTIVITY_FIELDS = ['id', 'user', 'activity', 'scope', 'item_id', 'detail', 'created_at', 'changes'];
export const DELETION_STATUS_FIELDS = ['person_uuid', 'created_at', 'status', 'delete_verified_at'];

/**
 * One request about one person. A 404 becomes a NotFoundError naming the person and project,
 * because the server's own "Not found." says neither.
 */
async function personRequest<T>(
  client: ApiClient,
  projectId: string,
  id: string,
  action: string,
  options: Omit<RequestOptions, 'path' | 'acceptStatus'>,
): Promise<ApiResponse<T>> {
  const path = personsPath(projectId, `${encodeURIComponent(checkPersonId(id))}/${action ? `${action}/` : ''}`);
  const res = await client.request<T>({ ...options, path, acceptStatus: (s) => s === 404 });
  if (res.status === 404) throw personNotFound(projectId, id, res.body);
  return res;
}

/** The 404 of a person path: the project (`Project not found.`) or the person. */
export function personNotFound(projectId: string, id: string, body: unknown): NotFoundError {
  if ((body as { detail?: unknown } | null)?.detail === 'Project not found.') {
    return new NotFoundError(`project ${projectId} not found`, 'check the project id with `hogctl projects list`, and --base-url');
  }
  return new NotFoundError(
    `person ${id} not found in project ${projectId}`,
    'check the id with `hogctl persons list` (deleted persons are gone)',
  );
}

/** PATCH {"properties": ...}: 202 with an empty body, applied asynchronously (older servers
 * answered with the person). */
export async function updatePerson(client: ApiClient, projectId: string, id: string, properties: Record<string, unknown>): Promise<number> {
  const res = await personRequest(client, projectId, id, '', { method: 'PATCH', body: { properties } });
  expectShape(res, 'PATCH', 'a person', (body) => EMPTY(body) || OBJECT_WITH('uuid')(body));
  return res.status;
}

/**
 * DELETE, with each flag sent only when set: the server counts a flag as on when merely present.
 * `goneEarlier`: the answer was a 404, but only after an attempt whose answer was lost; the
 * server answers a second DELETE of a deleted person with 404 (docs/server-contract.md §6.5, the server's
 * own test_delete_person), so that lost attempt most likely deleted the person.
 */
export async function deletePerson(
  client: ApiClient,
  projectId: string,
  id: string,
  flags: DeleteFlags,
): Promise<{ status: number; goneEarlier: boolean }> {
  const query: Query = {
    delete_events: flags.deleteEvents || undefined,
    delete_recordings: flags.deleteRecordings || undefined,
    keep_person: flags.keepPerson || undefined,
  };
  const path = personsPath(projectId, `${encodeURIComponent(checkPersonId(id))}/`);
  let res;
  try {
    res = await client.request({ method: 'DELETE', path, query, acceptStatus: (s) => s === 404 });
  } catch (err) {
    // 503 person_deletion_failed: the server found the person and could not delete it; sent again
    // (the client's retries) it still could not (PostHog/posthog#103144). Not done, no doubt.
    if (err instanceof ApiError && err.status === 503 && err.server?.code === 'person_deletion_failed') {
      const failed = new UnavailableError(
        `the server found person ${id} but could not delete it (${err.server.detail ?? 'person_deletion_failed'}); it asks for the deletion to be sent again`,
        'run the command again later',
      );
      failed.notDone = true;
      throw failed;
    }
    throw err;
  }
  if (res.status !== 404) return { status: res.status, goneEarlier: false };
  const isPersonGone = (res.body as { detail?: unknown } | null)?.detail !== 'Project not found.';
  if ((res.unclearAttempts ?? 0) > 0 && isPersonGone) return { status: res.status, goneEarlier: true };
  throw personNotFound(projectId, id, res.body);
}

/** update_property: `{key, value}` in the body (older OpenAPI wrongly says query). */
export async function updateProperty(client: ApiClient, projectId: string, id: string, key: string, value: unknown): Promise<number> {
  const res = await personRequest(client, projectId, id, 'update_property', { method: 'POST', body: { key, value } });
  expectShape(res, 'POST', 'an empty answer', EMPTY);
  return res.status;
}

/**
 * delete_property: `{"$unset": key}`. Failures answer `{"success": false, "detail": ...}`; and the
 * view looks the person up without get_object, so an unknown person is a bare 500 there, which
 * a follow-up read turns into the not-found error it really is.
 */
export async function deleteProperty(client: ApiClient, projectId: string, id: string, key: string): Promise<number> {
  const path = personsPath(projectId, `${encodeURIComponent(checkPersonId(id))}/delete_property/`);
  const res = await client.request<{ success?: boolean; detail?: string }>({
    method: 'POST',
    path,
    body: { $unset: key },
    acceptStatus: (s) => s === 500,
  });
  if (res.status === 500) {
    await getPerson(client, projectId, id);
    throw describeHttpError('POST', res.url, res.status, res.body);
  }
  if (!(res.body && typeof res.body === 'object' && res.body.success === false)) expectShape(res, 'POST', '{"success": true}', SUCCESS);
  if (res.body && typeof res.body === 'object' && res.body.success === false) {
    throw new ApiError(
      `POST ${new URL(res.url).pathname} failed: ${res.body.detail ?? 'the server did not delete the property'}`,
      res.status,
      { detail: res.body.detail },
      undefined,
      ExitCode.rejected,
    );
  }
  return res.status;
}

/** split: 201 `{"success": true}`; the split itself runs asynchronously. */
export async function splitPerson(client: ApiClient, projectId: string, id: string, body: SplitRequest): Promise<number> {
  const res = await personRequest(client, projectId, id, 'split', { method: 'POST', body });
  expectShape(res, 'POST', '{"success": true}', SUCCESS);
  return res.status;
}

/** delete_events: 202, queued for the weekly batch. */
export async function deleteEvents(client: ApiClient, projectId: string, id: string): Promise<number> {
  const res = await personRequest(client, projectId, id, 'delete_events', { method: 'POST' });
  expectShape(res, 'POST', 'an empty answer', EMPTY);
  return res.status;
}

/** delete_recordings: 202, started asynchronously. */
export async function deleteRecordings(client: ApiClient, projectId: string, id: string): Promise<number> {
  const res = await personRequest(client, projectId, id, 'delete_recordings', { method: 'POST' });
  expectShape(res, 'POST', 'an empty answer', EMPTY);
  return res.status;
}

/** One person's activity, or the whole project's; paged by `page`, following `next`. */
export function listActivity(
  client: ApiClient,
  projectId: string,
  id: string | undefined,
  options: { pageSize: number; limit?: number; signal?: AbortSignal },
) {
  const path =
    id === undefined ? personsPath(projectId, 'activity/') : personsPath(projectId, `${encodeURIComponent(checkPersonId(id))}/activity/`);
  return paginate<ActivityEntry>(client, path, { limit: options.pageSize }, options);
}

/** Makes the first page's 404 about the person (later pages follow links that cannot 404). */
export async function* personActivity(
  client: ApiClient,
  projectId: string,
  id: string | undefined,
  options: { pageSize: number; limit?: number; signal?: AbortSignal },
) {
  try {
    yield* listActivity(client, projectId, id, options);
  } catch (error) {
    if (id !== undefined && error instanceof ApiError && error.status === 404) {
      const notFound = personNotFound(projectId, id, { detail: error.server.detail });
      throw notFound.message.startsWith('person')
        ? new NotFoundError(
            notFound.message,
            "check the id with `hogctl persons list`; a deleted person's activity is listed by `hogctl persons activity` without an id",
          )
        : notFound;
    }
    throw error;
  }
}

/** reset_person_distinct_id: unblocks a deleted person's distinct id; 202, empty. */
export async function resetPersonDistinctId(client: ApiClient, projectId: string, distinctId: string): Promise<number> {
  const res = await client.post(personsPath(projectId, 'reset_person_distinct_id/'), { distinct_id: distinctId });
  expectShape(res, 'POST', 'an empty answer', EMPTY);
  return res.status;
}

export interface DeletionStatusFilter {
  status?: 'pending' | 'completed' | 'all';
  personUuid?: string;
}

/** deletion_status: queued event deletions, limit/offset paged. */
export function deletionStatus(
  client: ApiClient,
  projectId: string,
  filter: DeletionStatusFilter,
  options: { pageSize: number; limit?: number; signal?: AbortSignal },
) {
  const query: Query = { limit: options.pageSize, status: filter.status, person_uuid: filter.personUuid };
  return paginate<DeletionStatusEntry>(client, personsPath(projectId, 'deletion_status/'), query, options);
}
