// Finds duplicate persons in one project: persons that share a normalised e-mail address (or the
// value of other keys), each group read with everything a reviewer needs to decide (distinct ids,
// created, last seen, event count, properties). Every read is a batched HogQL query, so the number
// of queries grows with the number of duplicates, not of persons:
//
// 1. the keys shared by at least --min-group persons: `GROUP BY <key> HAVING count() >= {min}`,
//    paged by keyset on the key itself (OFFSET is refused to personal keys, docs/server-contract.md §7);
// 2. the persons of those keys, as many keys a query as hold at most 10,000 persons (the older
//    servers' cap, `src/hogql/walk.ts`);
// 3. their distinct ids from `person_distinct_ids` (posthog/hogql/database/schema/person_distinct_ids.py);
// 4. their event counts and last event from `events`, by distinct id, which needs no person
//    resolution (docs/server-contract.md §14.5).
//
// Every function used is in HogQL's mapping: lower() and trim() in
// posthog/hogql/functions/clickhouse/strings.py (STRING_FUNCTIONS, POSTGRESQL_TRIM_FUNCTIONS),
// toString() in posthog/hogql/functions/clickhouse/conversions.py, count() and max() in
// posthog/hogql/functions/aggregations.py. ClickHouse's lower() changes ASCII letters only and
// trim() removes spaces only, and the sandbox copies both.
//
// Which values may join persons is join-persons.ts's rule. A property's stored JSON type is read
// from the `properties` column each person comes with, not computed in HogQL: toString() makes the
// same text of `true` and "true", of `123` and "123", and the type is needed per person anyway.
import type { Context } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import { runHogQL, type HogQLResponse, type RunOptions } from '../api/query.js';
import { underQueryLimit } from '../cli/wait-out-limit.js';
import { formatNumber } from '../io/counts.js';
import { joinPersons, type KeyedRow, type LeftOutValue } from './join-persons.js';
import { jsonType, placeholderReason } from './placeholders.js';
import { batchesThatFit } from '../hogql/query-size.js';

/** The most rows any of these queries asks for (MAX_SELECT_RETURNED_ROWS). */
const QUERY_LIMIT = 50_000;
/** Older servers return at most 10,000 rows whatever the LIMIT: a batch is cut to fit it. */
export const ROWS_A_QUERY = 10_000;
/** Distinct ids a query of event counts names. */
const EVENT_IDS_A_QUERY = 5_000;

/** A key persons are grouped by: a name for the output and the HogQL that computes it. */
export interface DuplicateKey {
  /** `email`, a property name, or the expression as given. */
  name: string;
  hogql: string;
  /** The property the value is read from, whose stored JSON type is checked (none for an expression). */
  property?: string;
}

/** `--by`: `email` (lower-cased and trimmed), another property's value as it is, or an expression. */
export function parseKey(raw: string): DuplicateKey {
  const text = raw.trim();
  if (text === '')
    throw new UsageError('--by is empty', 'give a property name (--by email, --by user_id) or a HogQL expression over persons');
  if (text === 'email') return { name: 'email', hogql: 'lower(trim(properties.email))', property: 'email' };
  if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(text)) return { name: text, hogql: `toString(properties.${text})`, property: text };
  // An expression (it calls a function) is compared as text.
  if (/[()]/.test(text)) return { name: text, hogql: `toString(${text})` };
  // A property name with other characters is quoted as HogQL quotes names.
  if (!/[`\n]/.test(text)) return { name: text, hogql: `toString(properties.\`${text}\`)`, property: text };
  throw new UsageError(
    `invalid --by "${raw}"`,
    'give a property name (--by email, --by user_id) or a HogQL expression over persons, e.g. --by "lower(properties.phone)"',
  );
}

export interface Candidate {
  uuid: string;
  distinct_ids: string[];
  created_at: string;
  /** The newest event of any of its distinct ids; null without events. */
  last_seen: string | null;
  event_count: number;
  is_identified: boolean;
  properties: Record<string, unknown>;
}

export interface DuplicateGroup {
  project_id: string;
  /** What the persons share, by key name (the normalised value). */
  key: Record<string, string>;
  size: number;
  /** Property names whose values are not the same in every candidate (a missing one counts). */
  differing_properties: string[];
  /** Oldest first. */
  persons: Candidate[];
}

export interface FindOptions {
  keys: DuplicateKey[];
  minGroup: number;
  /** Groups larger than this, once joined, are not returned (a shared placeholder value, not one person). */
  maxGroup: number;
  /** Values given to --ignore-value, as placeholders.ts `comparable` makes them. */
  ignored: ReadonlySet<string>;
  maxWaitMs: number;
  /** Events are counted from this time on (UTC ISO); null counts every event. */
  eventsSince: string | null;
  onProgress?: (what: string) => void;
}

export interface FindResult {
  groups: DuplicateGroup[];
  queries: number;
  /** Keys shared by more than maxGroup persons: name, value, how many. */
  tooLarge: { key: string; value: string; persons: number }[];
  /** Groups of more than maxGroup persons once joined (each value shared by fewer): how many, and their values. */
  tooLargeGroups: { persons: number; values: Record<string, string[]> }[];
  /** Values no person was joined through: placeholders, and values that are not text. */
  leftOut: LeftOutValue[];
}

/** One project's duplicate groups. */
export async function findDuplicates(ctx: Context, client: ApiClient, projectId: string, o: FindOptions): Promise<FindResult> {
  const counter = { queries: 0 };
  const query = queryRunner(ctx, client, projectId, o.maxWaitMs, counter);
  const rules = { minGroup: o.minGroup, maxGroup: o.maxGroup, ignored: o.ignored };

  // The persons of every value shared by --min-group or more, each row a person and a value; a
  // placeholder, or a value more persons share than --max-group, is not even read.
  const tooLarge: FindResult['tooLarge'] = [];
  const leftOut: LeftOutValue[] = [];
  const rows: KeyedRow[] = [];
  const persons = new Map<string, { created_at: string; is_identified: boolean; properties: Record<string, unknown> }>();
  for (const key of o.keys) {
    const kept: { value: string; persons: number }[] = [];
    for (const s of await sharedValues(key, o.minGroup, query)) {
      const reason = placeholderReason(s.value, o.ignored);
      if (reason !== undefined) leftOut.push({ key: key.name, value: s.value, persons: s.persons, reason });
      else if (s.persons > o.maxGroup) tooLarge.push({ key: key.name, value: s.value, persons: s.persons });
      else kept.push(s);
    }
    o.onProgress?.(`${formatNumber(kept.length)} values of ${key.name} shared by ${o.minGroup} or more persons`);
    const text = personsOfValuesQuery(key);
    const batches = batchesThatFit(text, 'values', kept, {
      values: (b) => b.map((s) => s.value),
      weight: (s) => s.persons,
      maxWeight: ROWS_A_QUERY,
    });
    for (const batch of batches) {
      const res = await query(text, { values: batch.map((s) => s.value) }, 'hogctl persons duplicates: persons of shared values');
      for (const row of res.results) {
        const [id, createdAt, identified, props, value] = row as unknown[];
        const uuid = String(id).toLowerCase();
        const properties = parseProperties(props);
        persons.set(uuid, { created_at: String(createdAt), is_identified: truthy(identified), properties });
        const type = key.property === undefined ? undefined : jsonType(properties[key.property]);
        rows.push({ uuid, key: key.name, value: String(value), ...(type ? { type } : {}) });
      }
    }
  }
  const joined = joinPersons(rows, rules);
  const uuids = joined.groups.flatMap((g) => g.uuids);

  const distinctIds = await distinctIdsOf(uuids, query);
  o.onProgress?.(`distinct ids of ${formatNumber(uuids.length)} persons read`);
  const activity = await eventsOf([...distinctIds.values()].flat(), query, o.eventsSince);

  const groups: DuplicateGroup[] = joined.groups.map((g) => {
    const candidates = g.uuids.map((uuid) => candidate(uuid, persons.get(uuid)!, distinctIds.get(uuid) ?? [], activity));
    candidates.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.uuid < b.uuid ? -1 : 1));
    return {
      project_id: projectId,
      key: Object.fromEntries(Object.entries(g.values).map(([k, values]) => [k, values[0]])),
      size: candidates.length,
      differing_properties: differing(candidates.map((c) => c.properties)),
      persons: candidates,
    };
  });
  groups.sort((a, b) => (keyText(a) < keyText(b) ? -1 : keyText(a) > keyText(b) ? 1 : 0));
  const tooLargeGroups = joined.tooLarge.map((g) => ({ persons: g.uuids.length, values: g.values }));
  return { groups, queries: counter.queries, tooLarge, tooLargeGroups, leftOut: [...leftOut, ...joined.leftOut] };
}

/** The persons whose key value is one of `{values}`. */
export function personsOfValuesQuery(key: DuplicateKey): string {
  return `SELECT id, created_at, is_identified, properties, ${key.hogql} AS hogctl_key\nFROM persons\nWHERE ${key.hogql} IN {values}\nLIMIT ${QUERY_LIMIT}`;
}

/** The queries that name a list, by the name of their list placeholder (query-size.ts). */
export const LIST_QUERIES = {
  personsOfDistinctIds: {
    text: `SELECT person_id, distinct_id FROM person_distinct_ids WHERE distinct_id IN {ids} LIMIT ${QUERY_LIMIT}`,
    list: 'ids',
  },
  persons: {
    text: `SELECT id, created_at, is_identified, properties FROM persons WHERE id IN {persons} LIMIT ${QUERY_LIMIT}`,
    list: 'persons',
  },
  distinctIds: {
    text: `SELECT person_id, distinct_id FROM person_distinct_ids WHERE person_id IN {persons} LIMIT ${QUERY_LIMIT}`,
    list: 'persons',
  },
  events: {
    text: `SELECT distinct_id, count() AS events, max(timestamp) AS last_seen FROM events WHERE distinct_id IN {ids} GROUP BY distinct_id LIMIT ${QUERY_LIMIT}`,
    list: 'ids',
  },
  eventsSince: {
    text: `SELECT distinct_id, count() AS events, max(timestamp) AS last_seen FROM events WHERE distinct_id IN {ids} AND timestamp >= toDateTime({since}) GROUP BY distinct_id LIMIT ${QUERY_LIMIT}`,
    list: 'ids',
  },
} as const;

/** A group's key as one line: `email=ana@example.com`. */
export function keyText(group: Pick<DuplicateGroup, 'key'>): string {
  return Object.entries(group.key)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}

type Query = (
  text: string,
  values: Record<string, unknown>,
  name: string,
  run?: Pick<RunOptions, 'async' | 'narrow'>,
) => Promise<HogQLResponse>;

/** HogQL queries of one project, waiting out the query limit up to maxWaitMs, counted. */
function queryRunner(ctx: Context, client: ApiClient, projectId: string, maxWaitMs: number, counter: { queries: number }): Query {
  const cap = { maxWaitMs, flag: '--max-wait' };
  return (text, values, name, run = {}) =>
    underQueryLimit(ctx, cap, (retry) => {
      counter.queries++;
      return runHogQL(
        client,
        projectId,
        { query: text, values, name },
        { signal: ctx.deps.signal, retry, sleep: ctx.clock.sleep, now: ctx.clock.now, ...run },
      );
    });
}

/**
 * The persons these UUIDs or distinct ids name now, read as `persons duplicates` reads them
 * (properties, distinct ids, event counts): what a merge plans from and keeps for --undo.
 * Values that name no person are absent.
 */
export async function readPersons(
  ctx: Context,
  client: ApiClient,
  projectId: string,
  values: { uuids: string[]; distinctIds: string[] },
  maxWaitMs: number,
  eventsSince: string | null,
  counter: { queries: number } = { queries: 0 },
): Promise<{ persons: Map<string, Candidate>; byDistinctId: Map<string, string> }> {
  const query = queryRunner(ctx, client, projectId, maxWaitMs, counter);
  const byDistinctId = new Map<string, string>();
  const byIds = LIST_QUERIES.personsOfDistinctIds;
  for (const ids of batchesThatFit(byIds.text, byIds.list, values.distinctIds, { maxItems: ROWS_A_QUERY })) {
    const res = await query(byIds.text, { ids }, 'hogctl persons merge: persons of distinct ids');
    for (const row of res.results) byDistinctId.set(String((row as unknown[])[1]), String((row as unknown[])[0]).toLowerCase());
  }
  const uuids = [...new Set([...values.uuids.map((u) => u.toLowerCase()), ...byDistinctId.values()])];
  const records = new Map<string, { created_at: string; is_identified: boolean; properties: Record<string, unknown> }>();
  const byUuid = LIST_QUERIES.persons;
  for (const persons of batchesThatFit(byUuid.text, byUuid.list, uuids, { maxItems: ROWS_A_QUERY })) {
    const res = await query(byUuid.text, { persons }, 'hogctl persons merge: persons');
    for (const row of res.results) {
      const [id, createdAt, identified, props] = row as unknown[];
      records.set(String(id).toLowerCase(), {
        created_at: String(createdAt),
        is_identified: truthy(identified),
        properties: parseProperties(props),
      });
    }
  }
  const found = [...records.keys()];
  const distinctIds = await distinctIdsOf(found, query);
  const activity = await eventsOf([...distinctIds.values()].flat(), query, eventsSince);
  const persons = new Map<string, Candidate>();
  for (const uuid of found) persons.set(uuid, candidate(uuid, records.get(uuid)!, distinctIds.get(uuid) ?? [], activity));
  return { persons, byDistinctId };
}

function candidate(
  uuid: string,
  p: { created_at: string; is_identified: boolean; properties: Record<string, unknown> },
  distinctIds: string[],
  activity: Map<string, { count: number; last: string | null }>,
): Candidate {
  const ids = [...distinctIds].sort();
  let count = 0;
  let last: string | null = null;
  for (const id of ids) {
    const a = activity.get(id);
    if (!a) continue;
    count += a.count;
    if (a.last !== null && (last === null || a.last > last)) last = a.last;
  }
  return {
    uuid,
    distinct_ids: ids,
    created_at: p.created_at,
    last_seen: last,
    event_count: count,
    is_identified: p.is_identified,
    properties: p.properties,
  };
}

/** The values of a key shared by at least `min` persons, paged by keyset on the value. */
async function sharedValues(key: DuplicateKey, min: number, query: Query): Promise<{ value: string; persons: number }[]> {
  const found: { value: string; persons: number }[] = [];
  let after: string | undefined;
  for (;;) {
    const conditions = [`${key.hogql} IS NOT NULL`, `${key.hogql} != ''`];
    if (after !== undefined) conditions.push(`${key.hogql} > {after}`);
    const res = await query(
      [
        `SELECT ${key.hogql} AS hogctl_key, count() AS hogctl_persons`,
        'FROM persons',
        `WHERE ${conditions.join(' AND ')}`,
        'GROUP BY hogctl_key',
        'HAVING count() >= {min}',
        'ORDER BY hogctl_key ASC',
        `LIMIT ${QUERY_LIMIT}`,
      ].join('\n'),
      after === undefined ? { min } : { min, after },
      `hogctl persons duplicates: values of ${key.name} shared by ${min} or more persons`,
    );
    for (const row of res.results) {
      const [value, count] = row as unknown[];
      found.push({ value: String(value), persons: Number(count) });
    }
    // A short page is the end only below the older servers' cap; above it, an empty page is.
    if (res.results.length === 0 || res.results.length < ROWS_A_QUERY) return found;
    const last = found[found.length - 1].value;
    if (last === after)
      throw new CliError('paging stopped: the server returned the same last value twice', 'report this with the --by you gave');
    after = last;
  }
}

/** Each person's distinct ids; a batch whose answer may have been cut is read again in halves. */
async function distinctIdsOf(uuids: string[], query: Query): Promise<Map<string, string[]>> {
  const ids = new Map<string, string[]>();
  const read = async (batch: string[]): Promise<void> => {
    if (batch.length === 0) return;
    const res = await query(LIST_QUERIES.distinctIds.text, { persons: batch }, 'hogctl persons duplicates: distinct ids');
    if (res.results.length >= ROWS_A_QUERY && batch.length > 1) {
      const half = Math.ceil(batch.length / 2);
      await read(batch.slice(0, half));
      await read(batch.slice(half));
      return;
    }
    for (const row of res.results) {
      const [person, distinctId] = row as unknown[];
      const list = ids.get(String(person).toLowerCase()) ?? [];
      list.push(String(distinctId));
      ids.set(String(person).toLowerCase(), list);
    }
  };
  // Two or three distinct ids a person is usual: 3,000 persons a query stays under the cap.
  const { text, list } = LIST_QUERIES.distinctIds;
  for (const batch of batchesThatFit(text, list, uuids, { maxItems: 3_000 })) await read(batch);
  return ids;
}

/**
 * Event count and newest event time by distinct id, from `since` on: a scan of `events` that
 * may run long on a large project, so it is bounded in time (ClickHouse then reads only the
 * partitions of that range) and sent as an async query, which PostHog's time limit for API
 * queries leaves out (docs/server-contract.md §7.2).
 */
async function eventsOf(
  distinctIds: string[],
  query: Query,
  since: string | null,
): Promise<Map<string, { count: number; last: string | null }>> {
  const found = new Map<string, { count: number; last: string | null }>();
  const { text, list } = since === null ? LIST_QUERIES.events : LIST_QUERIES.eventsSince;
  const run = { async: true, narrow: 'count fewer events: give a later --events-since (e.g. 30d)' };
  for (const ids of batchesThatFit(text, list, distinctIds, { maxItems: EVENT_IDS_A_QUERY, others: { since } })) {
    const res = await query(text, since === null ? { ids } : { ids, since }, 'hogctl persons duplicates: events by distinct id', run);
    for (const row of res.results) {
      const [id, count, last] = row as unknown[];
      found.set(String(id), { count: Number(count), last: last === null || last === undefined ? null : String(last) });
    }
  }
  return found;
}

/** The property names whose values are not all the same (a missing one differs from any value). */
export function differing(all: Record<string, unknown>[]): string[] {
  const names = new Set(all.flatMap((p) => Object.keys(p)));
  return [...names].filter((name) => new Set(all.map((p) => (name in p ? JSON.stringify(p[name]) : '\u0000missing'))).size > 1).sort();
}

function truthy(value: unknown): boolean {
  return value === true || value === 1 || value === 'true' || value === '1';
}

function parseProperties(value: unknown): Record<string, unknown> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  if (typeof value !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
