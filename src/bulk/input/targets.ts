// A bulk job's persons, the last thing prepare.ts settles before the plan: the persons it acts
// on, project by project, found before anything is changed. Two ways:
//
// - A plain file of person ids (or distinct ids) for one project is sent as it is: UUIDs go out
//   unchanged, integer ids are looked up first (bulk_delete matches UUIDs only), and the server's
//   answers say whom they found (resolve.ts). No read per person, so 250,000 ids start at once.
// - Everything else is looked up, in every project of the job: e-mail addresses with batched
//   HogQL reads (identifiers.ts), person UUIDs and distinct ids with batch_by_uuids and
//   batch_by_distinct_ids (200 a request, within the read rate), a mixed file by its columns,
//   and a selection by running it (selection.ts). Then the plan can say how many persons each
//   project holds and which identifiers name no one, and only persons that exist are sent.
//
// What was found is journaled (matched identifiers, selected persons), so that --resume finds
// the same persons without asking again.
import type { Context } from '../../context.js';
import { ApiError, AuthError, CancelledError, UsageError } from '../../errors.js';
import { batchPersons, PERSON_BATCH_MAX, type ListedPerson } from '../../api/persons.js';
import type { ApiClient } from '../../http/client.js';
import type { JournalState } from '../engine/journal-state.js';
import { IdSet, type Ids } from './id-set.js';
import { inOrder } from './in-order.js';
import { identifierKey, matchEmails, type IdentifierPolicy, type NearMatch } from './identifiers.js';
import { unreachableReason, type CaseProject } from '../engine/projects.js';
import { withinBudget, type RateBudget } from '../engine/rate.js';
import { resolveTargets, uuidLookup } from './resolve.js';
import { hasSelection, selectPersons, type SelectionSpec } from './selection.js';
import { isIntegerId, splitTagged, type IdList } from './validate.js';
import { counted, formatNumber } from '../../io/counts.js';

export interface ProjectTargets {
  id: string;
  name: string | null;
  /** Why the job could not search this project; then `ids` is empty. */
  unreachable?: string;
  /** The persons to act on, each once: UUIDs (or the values as given, in a job without lookups),
   * compactly when there can be millions (id-set.ts). */
  ids: Ids;
  /** The persons each identifier (by key) names here. */
  matches: Map<string, string[]>;
  /** Identifiers looked up in this run, by key, to journal. */
  newlyMatched: Map<string, string[]>;
  /** The persons a selection chose in this run, to journal. */
  newlySelected?: string[];
  /** Distinct ids of the persons, where the lookups read them whole. */
  distinctIds: Map<string, string[]>;
  /** They are as the journal keeps them already (a plan's: e-mail-like ones by hash). */
  distinctIdsRecorded?: boolean;
  /** The first persons found, for the plan. */
  sample: ListedPerson[];
  /** Where the addresses were found, by key, when every one was looked up in this run. */
  foundBy?: FoundBy<Set<string>>;
  /** Stored addresses that differ from one asked only by spaces or a trailing dot: reported. */
  near?: NearMatch[];
}

/** Where e-mail addresses were found: as the `email` property, as a distinct id, and of those,
 * as the distinct id of a person HogQL does not show (revived after an earlier deletion). */
export interface FoundBy<T> {
  emailProperty: T;
  distinctId: T;
  revived: T;
}

export interface IdentifierTotals {
  /** Identifiers that name at least one person. */
  matched: number;
  /** ...that name more than one person in one project (all of them go). */
  several: number;
  /** ...that name persons in more than one project. */
  inSeveralProjects: number;
  /** Persons named, over every project. */
  persons: number;
  /** Identifiers that name no one in any project searched, by key (as many as there are)... */
  unmatchedKeys: string[];
  /** ...and the first of them as given, the most the terminal shows (UNMATCHED_SHOWN): a list of
   * a million addresses would be kept only to be counted. */
  unmatchedFirst: string[];
  /** Every identifier of the input, by key: what `erasure-status --check-email` looks in. */
  keys: readonly string[];
  /** How many addresses were found where, over every project; absent when some were not looked
   * up in this run (a resumed one finds them in its journal). */
  foundBy?: FoundBy<number>;
  /** The server could not look addresses up as distinct ids in the person store. */
  noRestLookup?: boolean;
  /** Persons whose stored address is near one asked, over every project: not deleted. */
  near?: (NearMatch & { project: string })[];
}

export interface CaseTargets {
  projects: ProjectTargets[];
  /** With identifiers looked up (not a selection, not a plain file). */
  identifiers?: IdentifierTotals;
  /** A plain file: integer ids no person has, ids that name a person already listed, lookups to journal. */
  unresolved: string[];
  resolvedDuplicates: number;
  newlyResolved: Map<string, string | null>;
  /** HogQL queries sent to find the persons. */
  queries: number;
}

export interface FindSettings {
  /** Look every identifier up (else: a plain file for one project, sent as it is). */
  lookUp: boolean;
  policy: IdentifierPolicy;
  selection?: SelectionSpec;
  maxWaitMs: number;
  /** The read budget of the job. */
  reads: RateBudget;
  concurrency: number;
}

export async function findTargets(
  ctx: Context,
  client: ApiClient | undefined,
  projects: CaseProject[],
  list: IdList,
  journal: JournalState | undefined,
  s: FindSettings,
): Promise<CaseTargets> {
  if (!s.lookUp) return sendAsGiven(ctx, client, projects[0], list, journal, s);
  if (!client) throw new Error('looking persons up needs a client');
  const search: ProjectSearch = { ctx, client, list, journal, s: { ...s, budget: s.reads, spans: projects.length > 1 } };
  // Each identifier's key (an HMAC under the evidence key, unless --keep-identifiers), made once
  // and shared by every map and list that names it: a million keys are 80 MB a copy.
  const keys = hasSelection(s.selection) ? [] : Array.from(list.ids, (value) => identifierKey(value, s.policy));
  const out: ProjectTargets[] = [];
  let queries = 0;
  let noRestLookup = false;
  for (const project of projects) {
    const targets: ProjectTargets = {
      ...project,
      ids: [],
      matches: new Map(),
      newlyMatched: new Map(),
      distinctIds: new Map(),
      sample: [],
    };
    out.push(targets);
    if (project.unreachable) continue;
    const searched = await searchProject(search, keys, targets);
    queries += searched.queries;
    noRestLookup ||= searched.noRestLookup;
  }
  refuseIfNoneSearched(out);
  return {
    projects: out,
    identifiers: hasSelection(s.selection) ? undefined : { ...totals(list, keys, out), ...(noRestLookup ? { noRestLookup } : {}) },
    unresolved: [],
    resolvedDuplicates: 0,
    newlyResolved: new Map(),
    queries,
  };
}

/** A plain file for one project: sent as it is, integer ids resolved first (resolve.ts). */
async function sendAsGiven(
  ctx: Context,
  client: ApiClient | undefined,
  project: CaseProject,
  list: IdList,
  journal: JournalState | undefined,
  s: FindSettings,
): Promise<CaseTargets> {
  const found = await resolveTargets(ctx, list, journal?.resolved ?? new Map(), client && uuidLookup(client, project.id), s);
  return {
    projects: [{ ...project, ids: found.ids, matches: new Map(), newlyMatched: new Map(), distinctIds: new Map(), sample: [] }],
    unresolved: found.unresolved,
    resolvedDuplicates: found.resolvedDuplicates,
    newlyResolved: found.newlyResolved,
    queries: 0,
  };
}

/** What every project's search shares. */
interface ProjectSearch {
  ctx: Context;
  client: ApiClient;
  list: IdList;
  journal: JournalState | undefined;
  s: MatchSettings;
}

/** Finds the persons of one project into `targets`: by its selection, or by the identifiers. */
async function searchProject(
  search: ProjectSearch,
  keys: readonly string[],
  targets: ProjectTargets,
): Promise<{ queries: number; noRestLookup: boolean }> {
  const { ctx, client, list, journal, s } = search;
  if (s.spans) ctx.info(`project ${targets.id}${targets.name ? ` (${targets.name})` : ''}:`);
  try {
    if (hasSelection(s.selection)) return { queries: await selectInProject(search, s.selection, targets), noRestLookup: false };
    const known = journal?.matched.get(targets.id) ?? new Map<string, string[]>();
    const found = await matchInProject(ctx, client, targets.id, list, keys, known, s);
    Object.assign(targets, found.targets);
    return { queries: found.queries, noRestLookup: found.noRestLookup };
  } catch (err) {
    // A project the key may not read is reported, not skipped silently; one of several only.
    if (!s.spans || !(err instanceof ApiError) || (err.status !== 403 && err.status !== 404)) throw err;
    targets.unreachable = unreachableReason(err);
    targets.ids = [];
    return { queries: 0, noRestLookup: false };
  }
}

/** The persons a selection chooses in one project (journaled once complete); the queries sent. */
async function selectInProject(search: ProjectSearch, selection: SelectionSpec, targets: ProjectTargets): Promise<number> {
  const { ctx, client, journal, s } = search;
  let queries = 0;
  const done = journal?.selected.get(targets.id);
  if (done?.complete) targets.ids = done.ids;
  else {
    const selected = await selectPersons(ctx, client, targets.id, selection, { maxWaitMs: s.maxWaitMs });
    queries = selected.queries;
    Object.assign(targets, {
      ids: selected.ids,
      newlySelected: selected.ids,
      distinctIds: selected.distinctIds,
      sample: selected.sample,
    });
  }
  if (s.spans) ctx.info(`  selected ${counted(targets.ids.length, 'person')}`);
  return queries;
}

/** A job none of whose projects could be searched stops, naming why for each. */
function refuseIfNoneSearched(out: ProjectTargets[]): void {
  if (out.every((p) => p.unreachable)) {
    throw new AuthError(
      `no project could be searched: ${out.map((p) => `project ${p.id}: ${p.unreachable}`).join('; ')}; nothing was deleted`,
      'check the key with `hogctl auth status` and the projects with `hogctl projects list`',
    );
  }
}

interface MatchSettings extends FindSettings {
  budget: RateBudget;
  spans: boolean;
}

/** What an identifier that names no one matches: one shared empty list, not one per identifier
 * (frozen, so that nothing can add to it). */
const NO_PERSONS = Object.freeze([]) as unknown as string[];

/** The persons each identifier names in one project: those journaled, and the rest looked up.
 * `keys[i]` is the key of the i-th value of the list. */
async function matchInProject(
  ctx: Context,
  client: ApiClient,
  project: string,
  list: IdList,
  keys: readonly string[],
  known: Map<string, string[]>,
  s: MatchSettings,
): Promise<{
  targets: Pick<ProjectTargets, 'ids' | 'matches' | 'newlyMatched' | 'distinctIds' | 'sample' | 'foundBy' | 'near'>;
  queries: number;
  noRestLookup: boolean;
}> {
  const pending = pendingLookups(list, keys, known);
  refuseIntegersAcrossProjects(pending, s.spans);
  const at: ProjectLookup = { ctx, client, project, keys, s };
  const matched: Matched = { newlyMatched: new Map(), distinctIds: new Map(), sample: [] };
  let emails: EmailsFound = { queries: 0, noRestLookup: false };
  const todo = pending.values.email.length + pending.values.person_id.length + pending.values.distinct_id.length;
  if (todo > 0) {
    ctx.info(`${s.spans ? '  ' : ''}looking up ${counted(todo, 'identifier')}…`);
    if (pending.values.email.length) emails = await lookUpEmails(at, list, pending, known, matched);
    for (const kind of ['uuids', 'distinct_ids'] as const) await lookUpInBatches(at, pending, kind, matched);
    await lookUpIntegerIds(at, pending, matched);
    if (pending.values.email.length && matched.sample.length < 5) await readSampleOfAddresses(at, matched);
  }
  const { ids, matches } = personsOfEveryKey(list, keys, known, matched.newlyMatched);
  ctx.info(`${s.spans ? '  ' : ''}found ${counted(ids.length, 'person')}`);
  const { newlyMatched, distinctIds, sample } = matched;
  return {
    targets: { ids, matches, newlyMatched, distinctIds, sample, foundBy: emails.foundBy, near: emails.near },
    queries: emails.queries,
    noRestLookup: emails.noRestLookup,
  };
}

/** Where one project's lookups go, and how. */
interface ProjectLookup {
  ctx: Context;
  client: ApiClient;
  project: string;
  keys: readonly string[];
  s: MatchSettings;
}

type LookupKind = 'email' | 'person_id' | 'distinct_id';

/** The values not journaled yet, by kind, each with its place in the list (where its key is). */
interface Pending {
  values: Record<LookupKind, string[]>;
  places: Record<LookupKind, number[]>;
  /** Which of `values.person_id` are integer ids: they are looked up one at a time. */
  integers: number[];
  /** A value without its column tag (a mixed file tags each one). */
  bare: (value: string) => string;
}

function pendingLookups(list: IdList, keys: readonly string[], known: Map<string, string[]>): Pending {
  const values = { email: [] as string[], person_id: [] as string[], distinct_id: [] as string[] };
  const places = { email: [] as number[], person_id: [] as number[], distinct_id: [] as number[] };
  let place = 0;
  for (const value of list.ids) {
    const at = place++;
    if (known.has(keys[at])) continue;
    const kind =
      list.kind === 'mixed'
        ? splitTagged(value).tag
        : list.kind === 'emails'
          ? 'email'
          : list.kind === 'distinct_ids'
            ? 'distinct_id'
            : 'person_id';
    values[kind].push(value);
    places[kind].push(at);
  }
  const bare = (value: string) => (list.kind === 'mixed' ? splitTagged(value).value : value);
  const integers: number[] = [];
  values.person_id.forEach((v, i) => {
    if (isIntegerId(bare(v))) integers.push(i);
  });
  return { values, places, integers, bare };
}

/** Integer ids are numbered per project: over several, one could name a different person in each. */
function refuseIntegersAcrossProjects(pending: Pending, spans: boolean): void {
  const { integers, values, bare } = pending;
  if (integers.length && spans) {
    throw new UsageError(
      `${formatNumber(integers.length)} integer person ids (e.g. ${bare(values.person_id[integers[0]])}) in a job over several projects: integer ids are numbered per project`,
      'give the persons by UUID, distinct id or e-mail address, or run one project at a time with --project',
    );
  }
}

/** What the lookups of one project found, filled as the answers come. */
interface Matched {
  newlyMatched: Map<string, string[]>;
  distinctIds: Map<string, string[]>;
  sample: ListedPerson[];
}

/** Notes the persons one identifier (by key) names, their distinct ids, and the plan's sample. */
function notePersons(matched: Matched, key: string, persons: ListedPerson[]): void {
  const uuids = persons.map((p) => p.uuid.toLowerCase());
  matched.newlyMatched.set(key, persons.length ? uuids : NO_PERSONS);
  persons.forEach((p, i) => {
    // A minimal record holds at most 10 distinct ids: a full ten may be cut short.
    if (p.distinct_ids && p.distinct_ids.length < 10) matched.distinctIds.set(uuids[i], p.distinct_ids);
    if (matched.sample.length < 5) matched.sample.push(p);
  });
}

interface EmailsFound {
  queries: number;
  noRestLookup: boolean;
  foundBy?: FoundBy<Set<string>>;
  near?: NearMatch[];
}

/** The addresses, with batched HogQL reads and by distinct id (identifiers.ts). */
async function lookUpEmails(
  at: ProjectLookup,
  list: IdList,
  pending: Pending,
  known: Map<string, string[]>,
  matched: Matched,
): Promise<EmailsFound> {
  const { ctx, client, project, keys, s } = at;
  const places = pending.places.email;
  const addresses = list.kind === 'mixed' ? pending.values.email.map(pending.bare) : pending.values.email;
  const found = await matchEmails(ctx, client, project, addresses, {
    maxWaitMs: s.maxWaitMs,
    byDistinctIds: (ids) => read(ctx, s.budget, () => batchPersons(client, project, 'distinct_ids', ids, { signal: ctx.deps.signal })),
  });
  const keysOf = (of: Set<string>) => {
    const found = new Set<string>();
    addresses.forEach((address, i) => of.has(address) && found.add(keys[places[i]]));
    return found;
  };
  // Where they were found is told only when every address was looked up in this run.
  const foundBy =
    known.size === 0
      ? { emailProperty: keysOf(found.byProperty), distinctId: keysOf(found.byDistinctId), revived: keysOf(found.revived) }
      : undefined;
  addresses.forEach((address, i) => matched.newlyMatched.set(keys[places[i]], found.matches.get(address) ?? NO_PERSONS));
  return { queries: found.queries, noRestLookup: found.noRestLookup, near: found.near, foundBy };
}

/** Person UUIDs or distinct ids, PERSON_BATCH_MAX a request (integer ids are not UUIDs: skipped). */
async function lookUpInBatches(at: ProjectLookup, pending: Pending, kind: 'uuids' | 'distinct_ids', matched: Matched): Promise<void> {
  const { ctx, client, project, keys, s } = at;
  const values = kind === 'uuids' ? pending.values.person_id : pending.values.distinct_id;
  const places = kind === 'uuids' ? pending.places.person_id : pending.places.distinct_id;
  const isInteger = new Set(pending.integers);
  const todo = values.flatMap((_, i) => (kind === 'uuids' && isInteger.has(i) ? [] : [i]));
  // Up to --concurrency reads on their way: a lookup is bound by round trips, not by the
  // server (one at a time, 100,000 distinct ids took 500 requests and 2.9 s against a sandbox
  // idle half of it); the read budget still paces them. Taken in order, they fill the matches
  // and the plan's sample as one at a time did.
  const answers = inOrder(Math.ceil(todo.length / PERSON_BATCH_MAX), s.concurrency, async (b) => {
    const batch = todo.slice(b * PERSON_BATCH_MAX, (b + 1) * PERSON_BATCH_MAX);
    const asked = batch.map((j) => pending.bare(values[j]));
    return { batch, found: await read(ctx, s.budget, () => batchPersons(client, project, kind, asked, { signal: ctx.deps.signal })) };
  });
  for await (const { batch, found } of answers) {
    if (found === null) {
      throw new UsageError(
        `this server has no /persons/batch_by_${kind}/ endpoint (an older PostHog), so the ${kind === 'uuids' ? 'person ids' : 'distinct ids'} cannot be looked up`,
        'run one project at a time with a plain --file of person ids (or --distinct-ids), which needs no lookup',
      );
    }
    for (const j of batch) {
      const value = pending.bare(values[j]);
      const person = found.get(kind === 'uuids' ? value.toLowerCase() : value);
      notePersons(matched, keys[places[j]], person ? [person] : []);
    }
  }
}

/** Integer person ids, one read each (no batch endpoint takes them). */
async function lookUpIntegerIds(at: ProjectLookup, pending: Pending, matched: Matched): Promise<void> {
  const { ctx, client, project, keys, s } = at;
  const lookup = uuidLookup(client, project);
  for (const i of pending.integers) {
    const uuid = await read(ctx, s.budget, () => lookup(pending.bare(pending.values.person_id[i])));
    matched.newlyMatched.set(keys[pending.places.person_id[i]], uuid ? [uuid.toLowerCase()] : NO_PERSONS);
  }
}

/** Addresses give UUIDs only: read a few records for the plan. */
async function readSampleOfAddresses(at: ProjectLookup, matched: Matched): Promise<void> {
  const { ctx, client, project, s } = at;
  const some = [...matched.newlyMatched.values()].flat().slice(0, 5 - matched.sample.length);
  if (some.length) {
    const found = await read(ctx, s.budget, () => batchPersons(client, project, 'uuids', some, { signal: ctx.deps.signal }));
    for (const p of found?.values() ?? []) matched.sample.push(p);
  }
}

/** The persons every identifier names (looked up now, or journaled), and all of them as a set. */
function personsOfEveryKey(
  list: IdList,
  keys: readonly string[],
  known: Map<string, string[]>,
  newlyMatched: Map<string, string[]>,
): { ids: IdSet; matches: Map<string, string[]> } {
  // The set is the list of persons, in the order they were found, 16 bytes a UUID.
  const ids = new IdSet();
  // Addresses or distinct ids all looked up in this run were noted in the list's order (each kind
  // in one pass over it): that map is the matches, not a second map of as many keys.
  const inListOrder = list.kind === 'emails' || list.kind === 'distinct_ids';
  const matches = inListOrder && known.size === 0 ? newlyMatched : new Map<string, string[]>();
  for (const key of keys) {
    const persons = newlyMatched.get(key) ?? known.get(key) ?? NO_PERSONS;
    if (matches !== newlyMatched) matches.set(key, persons);
    for (const uuid of persons) ids.add(uuid);
  }
  return { ids, matches };
}

/** One read within the read rate; Ctrl-C stops it before anything was deleted. */
function read<T>(ctx: Context, budget: RateBudget, send: () => Promise<T>): Promise<T> {
  return withinBudget(
    budget,
    ctx.deps.signal,
    send,
    () => new CancelledError('cancelled while looking the persons up; nothing was deleted'),
  );
}

/** How the identifiers fared over every project. */
function totals(list: IdList, keys: readonly string[], projects: ProjectTargets[]): IdentifierTotals {
  const t = tallyIdentifiers(
    list.ids,
    keys,
    projects.map((p) => p.matches),
  );
  const searched = projects.filter((p) => !p.unreachable);
  const near = searched.flatMap((p) => (p.near ?? []).map((m) => ({ ...m, project: p.id })));
  if (near.length) t.near = near;
  if (searched.length && searched.every((p) => p.foundBy)) {
    const count = (of: (f: FoundBy<Set<string>>) => Set<string>) => new Set(searched.flatMap((p) => [...of(p.foundBy!)])).size;
    t.foundBy = { emailProperty: count((f) => f.emailProperty), distinctId: count((f) => f.distinctId), revived: count((f) => f.revived) };
  }
  return t;
}

/** How many identifiers that name no one are kept as given, to be shown. */
export const UNMATCHED_SHOWN = 20;

/** How identifiers (as given, and by key: `keys[i]` is the i-th value's) fared over projects,
 * from what each key matched in each. */
export function tallyIdentifiers(values: Iterable<string>, keys: readonly string[], matches: Map<string, string[]>[]): IdentifierTotals {
  const t: IdentifierTotals = { matched: 0, several: 0, inSeveralProjects: 0, persons: 0, unmatchedKeys: [], unmatchedFirst: [], keys };
  const persons = new Set<string>();
  let at = 0;
  for (const value of values) {
    const key = keys[at++];
    let where = 0;
    let several = false;
    for (const project of matches) {
      const found = project.get(key) ?? [];
      if (found.length) where++;
      if (found.length > 1) several = true;
      for (const uuid of found) persons.add(uuid);
    }
    if (where === 0) {
      if (t.unmatchedFirst.length < UNMATCHED_SHOWN) t.unmatchedFirst.push(value);
      t.unmatchedKeys.push(key);
    } else t.matched++;
    if (several) t.several++;
    if (where > 1) t.inSeveralProjects++;
  }
  t.persons = persons.size;
  return t;
}
