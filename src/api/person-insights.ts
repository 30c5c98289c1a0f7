// The persons actions behind insights (docs/server-contract.md §6.7): cohorts of a person, the
// properties timeline, and the legacy people lists of funnels, funnel correlation and lifecycle.
// All but cohorts refuse personal API keys on current servers (docs/server-contract.md §3.3): callers pass a client
// made with `auth: 'prefer-session'`.
import type { ApiClient, Query } from '../http/client.js';
import { personsPath } from './persons.js';
import { expectShape } from '../http/foreign-answer.js';

export interface PersonCohort {
  id: number;
  name: string;
  count?: number | null;
}

export interface TimelinePoint {
  timestamp: string;
  properties: Record<string, unknown>;
  relevant_event_count: number;
}

export interface PropertiesTimeline {
  points: TimelinePoint[];
  crucial_property_keys?: string[];
  effective_date_from?: string;
  effective_date_to?: string;
}

/** The legacy people envelope: groups of people, and a `next` link for the following page. */
export interface PeoplePage {
  results: { people: Record<string, unknown>[]; count?: number }[];
  next?: string | null;
  missing_persons?: number;
}

export type Params = Record<string, unknown>;

/** Query-string form of filter params: strings as they are, anything else as JSON. */
export function toQuery(params: Params): Query {
  const query: Query = {};
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null) continue;
    query[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return query;
}

export async function personCohorts(client: ApiClient, projectId: string, personId: string): Promise<PersonCohort[]> {
  const res = await client.get<{ results?: PersonCohort[] } | PersonCohort[]>(personsPath(projectId, 'cohorts/'), { person_id: personId });
  // Older servers returned full cohort objects; the fields we show are in both.
  const body = res.body;
  expectShape(res, 'GET', 'a list of cohorts', (b) => Array.isArray(b) || Array.isArray((b as { results?: unknown } | null)?.results));
  return Array.isArray(body) ? body : body.results!;
}

export async function propertiesTimeline(
  client: ApiClient,
  projectId: string,
  personId: string,
  params: Params,
): Promise<PropertiesTimeline> {
  const res = await client.get<PropertiesTimeline>(
    personsPath(projectId, `${encodeURIComponent(personId)}/properties_timeline/`),
    toQuery(params),
  );
  return res.body;
}

export type PeopleEndpoint = 'funnel/' | 'funnel/correlation/' | 'lifecycle/' | 'trends/';

/** One page of people: GET with the params in the query, or POST with them as the JSON body. */
export async function peoplePage(
  client: ApiClient,
  projectId: string,
  endpoint: PeopleEndpoint,
  params: Params,
  options: { post?: boolean; url?: string } = {},
): Promise<PeoplePage> {
  const path = options.url ?? personsPath(projectId, endpoint);
  const res = options.post
    ? // A POST here only reads (the filter is too long for a URL), so it may be sent again.
      await client.post<PeoplePage>(path, params, { idempotent: true })
    : await client.get<PeoplePage>(path, options.url ? undefined : toQuery(params));
  return res.body;
}
