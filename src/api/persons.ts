// Thin typed calls for /api/projects/{id}/persons/ (docs/server-contract.md §6).
import type { ApiClient, Query } from '../http/client.js';
import { paginate } from '../http/paginate.js';
import { expectShape, OBJECT_WITH } from '../http/foreign-answer.js';
import { NotFoundError, NotPostHogApiError, UsageError } from '../errors.js';
import type { PropertyFilter } from './person-filters.js';
import { isUuid } from './uuid.js';

/** A person as the list returns it: `id` is the UUID. */
export interface ListedPerson {
  type?: 'person';
  id: string;
  uuid: string;
  name?: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  created_at: string;
  is_identified?: boolean;
  last_seen_at?: string | null;
}

/** A person as retrieve returns it: `id` is the integer primary key. */
export interface PersonRecord {
  id: number;
  uuid: string;
  name?: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  created_at: string;
  last_seen_at?: string | null;
}

export const PERSON_FIELDS = [
  'id',
  'uuid',
  'name',
  'distinct_ids',
  'properties',
  'created_at',
  'last_seen_at',
  'is_identified',
  'type',
  'matched_recordings',
  'value_at_data_point',
];

export interface PersonFilters {
  email?: string;
  distinctId?: string;
  search?: string;
  properties?: PropertyFilter[];
}

/** Person ids in paths are an integer or a UUID; anything else is a usage error before any request. */
export function checkPersonId(id: string): string {
  const trimmed = id.trim();
  if (/^\d+$/.test(trimmed) || isUuid(trimmed)) return trimmed;
  throw new UsageError(
    `invalid person id "${id}": expected an integer id or a UUID`,
    trimmed.includes('@')
      ? `an e-mail address: \`hogctl persons get --email ${trimmed}\` finds the persons who have it (or, if it is a distinct id, use --distinct-id)`
      : 'to look a person up by distinct id, use --distinct-id <value>',
  );
}

export function personsPath(projectId: string, suffix = ''): string {
  return `/api/projects/${encodeURIComponent(projectId)}/persons/${suffix}`;
}

export function listQuery(filters: PersonFilters, pageSize: number): Query {
  return {
    limit: pageSize,
    email: filters.email,
    distinct_id: filters.distinctId,
    search: filters.search,
    properties: filters.properties?.length ? JSON.stringify(filters.properties) : undefined,
  };
}

export function listPersons(
  client: ApiClient,
  projectId: string,
  filters: PersonFilters,
  options: { pageSize: number; limit?: number; signal?: AbortSignal },
) {
  return paginate<ListedPerson>(client, personsPath(projectId), listQuery(filters, options.pageSize), options);
}

/** The most rows one page of the persons list (and its CSV export) holds: the paginator clamps
 * to MAX_SELECT_RETURNED_ROWS and then gives no `next` (docs/server-contract.md §2.1). */
export const MAX_PERSONS_PAGE = 50_000;

/** The server's own CSV export (`format=csv`): one body, limit forced server-side. */
export async function exportPersonsCsv(client: ApiClient, projectId: string, filters: PersonFilters): Promise<string> {
  const res = await client.get<string>(
    personsPath(projectId),
    { ...listQuery(filters, 100), limit: undefined, format: 'csv' },
    { text: true, answer: 'page' },
  );
  return typeof res.body === 'string' ? res.body : '';
}

export async function getPerson(client: ApiClient, projectId: string, id: string): Promise<PersonRecord> {
  const res = await client.get<PersonRecord>(personsPath(projectId, `${encodeURIComponent(checkPersonId(id))}/`), undefined, {
    acceptStatus: (s) => s === 404,
  });
  if (res.status === 404) {
    throw new NotFoundError(
      `person ${id} not found in project ${projectId}`,
      'check the id with `hogctl persons list`, and the project with --project',
    );
  }
  expectShape(res, 'GET', 'a person', OBJECT_WITH('uuid'));
  return res.body;
}

export async function findByDistinctId(client: ApiClient, projectId: string, distinctId: string): Promise<ListedPerson> {
  const res = await client.get<{ results?: ListedPerson[] }>(personsPath(projectId), { distinct_id: distinctId, limit: 1 });
  const person = res.body?.results?.[0];
  if (!person) {
    throw new NotFoundError(
      `no person with distinct id "${distinctId}" in project ${projectId}`,
      distinctId.includes('@')
        ? `for a person whose email property is the address: \`hogctl persons get --email ${distinctId}\``
        : 'check the value with `hogctl persons list --search <part of it>`',
    );
  }
  return person;
}

/** The most values batch_by_uuids and batch_by_distinct_ids look at per call. */
export const PERSON_BATCH_MAX = 200;

/**
 * The persons these values (UUIDs, or distinct ids) name now, by value: POST
 * `/persons/batch_by_uuids/` or `/persons/batch_by_distinct_ids/` (newer servers, docs/server-contract.md §6.7), at most
 * 200 values, answered with minimal records (at most 10 distinct ids each). A read, so it may
 * be retried. Returns null when the server does not have the endpoint (404, 405: an older PostHog).
 */
export async function batchPersons(
  client: ApiClient,
  projectId: string,
  kind: 'uuids' | 'distinct_ids',
  values: string[],
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<Map<string, ListedPerson> | null> {
  if (values.length > PERSON_BATCH_MAX) throw new Error(`at most ${PERSON_BATCH_MAX} values per call`);
  const path = personsPath(projectId, kind === 'uuids' ? 'batch_by_uuids/' : 'batch_by_distinct_ids/');
  const res = await client.post<{ results?: Record<string, ListedPerson> }>(
    path,
    { [kind]: values },
    { ...options, idempotent: true, acceptStatus: (s) => s === 404 || s === 405 },
  );
  if (res.status === 404 || res.status === 405) return null;
  const results = res.body?.results;
  if (results === null || typeof results !== 'object' || Array.isArray(results)) {
    throw new NotPostHogApiError(
      `${client.origin} answered POST ${path} without a map of results: this does not look like a PostHog API`,
      `check --base-url (now ${client.origin})`,
    );
  }
  return new Map(Object.entries(results).map(([k, v]) => [kind === 'uuids' ? k.toLowerCase() : k, v]));
}

/** Which of these values (UUIDs, or distinct ids) name a person now; null on an older server. */
export async function personsPresent(
  client: ApiClient,
  projectId: string,
  kind: 'uuids' | 'distinct_ids',
  values: string[],
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<Set<string> | null> {
  const found = await batchPersons(client, projectId, kind, values, options);
  return found && new Set(found.keys());
}
