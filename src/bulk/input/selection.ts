// Persons chosen by a selection instead of a list of identifiers: `--where key=value` (as `persons
// list` reads it) and `--cohort <id>` become the `properties` filter of the persons list, paged
// through whole (list-all-persons.ts, which misses no one while others are deleted); `--query`
// is the user's HogQL over the persons table, paged by created_at and id (hogql/walk.ts), whose
// first column must be the person's id. A selection is run once per project; what it chose is
// journaled, so a resumed run deletes exactly those persons and no others that match meanwhile.
import { createHash } from 'node:crypto';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { getCohort } from '../../api/cohorts.js';
import { parseWhere, type PropertyFilter } from '../../api/person-filters.js';
import { listAllPersons } from '../../api/list-all-persons.js';
import type { ListedPerson } from '../../api/persons.js';
import { isUuid } from '../../api/uuid.js';
import type { ApiClient } from '../../http/client.js';
import { planKeyset, type KeysetPlan } from '../../hogql/keyset.js';
import { MAX_QUERY_ROWS, walkKeyset } from '../../hogql/walk.js';
import { queryUnderLimit } from '../../cli/wait-out-limit.js';
import type { SelectionSpec } from '../engine/journal-format.js';

export type { SelectionSpec };

/** Persons a list request asks for: few requests, modest pages (the read limit counts requests). */
const LIST_PAGE = 5_000;

/** What a selection found in one project. */
export interface Selected {
  /** The persons' UUIDs, each once. */
  ids: string[];
  /** Their distinct ids, where the selection read them (the persons list does; --query does not). */
  distinctIds: Map<string, string[]>;
  /** The first persons found, for the plan. */
  sample: ListedPerson[];
  /** HogQL queries sent (--query). */
  queries: number;
}

export function hasSelection(spec: SelectionSpec | undefined): spec is SelectionSpec {
  return Boolean(spec && (spec.where.length || spec.cohort !== null || spec.query !== null));
}

/** `--where plan=free --cohort 3`, as the plan and the receipt name the selection. */
export function describeSelection(spec: SelectionSpec): string {
  const parts = spec.where.map((w) => `--where ${w}`);
  if (spec.cohort !== null) parts.push(`--cohort ${spec.cohort}`);
  if (spec.query !== null) parts.push(`--query ${JSON.stringify(spec.query)}`);
  return parts.join(' ');
}

/** What the journal of a selection is bound to: the selection and where it runs, not the persons it finds. */
export function selectionSha256(spec: SelectionSpec, projects: string): string {
  return createHash('sha256')
    .update(JSON.stringify({ where: spec.where, cohort: spec.cohort, query: spec.query, projects }))
    .digest('hex');
}

/** Checks a selection before anything is sent: the --where expressions, the cohort id, the query. */
export function checkSelection(spec: SelectionSpec): { filters: PropertyFilter[]; plan?: KeysetPlan } {
  if (spec.query !== null && (spec.where.length || spec.cohort !== null)) {
    throw new UsageError('--query selects on its own: drop --where and --cohort, or write them into the query');
  }
  if (spec.cohort !== null && !/^\d+$/.test(spec.cohort)) {
    throw new UsageError(`invalid --cohort "${spec.cohort}": expected the cohort's id, a number`, 'the id is in the cohort URL in PostHog');
  }
  const filters = spec.where.map(parseWhere);
  if (spec.cohort !== null) filters.push({ type: 'cohort', key: 'id', value: Number(spec.cohort) });
  if (spec.query === null) return { filters };
  try {
    return { filters, plan: planKeyset(spec.query) };
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    throw new UsageError(
      `invalid --query: ${err.message.replace(/^--all cannot page this query: /, '')}`,
      'write it as SELECT id FROM persons WHERE <condition>: hogctl reads every row, paging by created_at and id',
    );
  }
}

export interface SelectOptions {
  /** The longest single wait the query limit may ask of --query (--max-wait); a longer one stops it. */
  maxWaitMs: number;
}

/** Runs the selection in one project. */
export async function selectPersons(
  ctx: Context,
  client: ApiClient,
  project: string,
  spec: SelectionSpec,
  o: SelectOptions,
): Promise<Selected> {
  const { filters, plan } = checkSelection(spec);
  const found: Selected = { ids: [], distinctIds: new Map(), sample: [], queries: 0 };
  const seen = new Set<string>();
  const add = (uuid: string) => {
    const id = uuid.toLowerCase();
    if (seen.has(id)) return false;
    seen.add(id);
    found.ids.push(id);
    return true;
  };
  if (plan) {
    const cap = { maxWaitMs: o.maxWaitMs, flag: '--max-wait' };
    const run = (query: string, values: Record<string, unknown>) =>
      queryUnderLimit(ctx, client, project, { query, values, name: 'hogctl: persons selected by --query' }, cap);
    const walk = { pages: 0 };
    for await (const page of walkKeyset(plan, MAX_QUERY_ROWS, walk, run)) {
      for (const row of page.rows) {
        const id = row[0];
        if (typeof id !== 'string' || !isUuid(id)) {
          throw new UsageError(
            `the first column of --query must be the person's id (a UUID), but a row has ${JSON.stringify(id)} (column ${page.columns[0] ?? '?'})`,
            'select the id first: SELECT id FROM persons WHERE <condition>',
          );
        }
        add(id);
      }
    }
    found.queries = walk.pages;
    return found;
  }
  if (spec.cohort !== null) {
    const cohort = await getCohort(client, project, spec.cohort, { signal: ctx.deps.signal });
    if (cohort.deleted) {
      throw new UsageError(
        `cohort ${spec.cohort} (${cohort.name}) in project ${project} is deleted`,
        'restore it in PostHog, or choose the persons another way (--where, --query)',
      );
    }
  }
  for await (const page of listAllPersons(client, project, { properties: filters }, { pageSize: LIST_PAGE, signal: ctx.deps.signal })) {
    for (const person of page) {
      if (!add(person.uuid ?? person.id)) continue;
      found.distinctIds.set(person.uuid.toLowerCase(), person.distinct_ids ?? []);
      if (found.sample.length < 5) found.sample.push(person);
    }
  }
  return found;
}
