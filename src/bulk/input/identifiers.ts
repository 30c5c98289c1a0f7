// E-mail addresses as the identifiers of an erasure. A request arrives as "delete everything
// about lee@example.net", so the job finds the persons that address names: as their `email`
// property, and as one of their distinct ids (matchEmails says how, and why both HogQL and the
// REST lookup are asked). Batched reads, up to EMAIL_BATCH addresses a query through one list
// placeholder (`lower(properties.email) IN {emails}`; PostHog passes lists to IN the same way in
// its own HogQL tests), never one list request per address. Matching is exact and
// case-insensitive for ASCII letters, as HogQL's lower() (ClickHouse's) is: the addresses are
// lowered the same way.
//
// The evidence must not become new personal data: the journal, the receipt and the plan name each
// address by HMAC-SHA256 under the evidence key (src/config/evidence-key.ts), unless
// --keep-identifiers. The key is not in those files, so they cannot be checked against guessed
// addresses by anyone who lacks it; `persons erasure-status --check-email` does it with the key.
import { keyedHash, requireEvidenceKey, type EvidenceKey } from '../../config/evidence-key.js';
import type { Context } from '../../context.js';
import { CliError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import { runHogQL } from '../../api/query.js';
import { PERSON_BATCH_MAX, type ListedPerson } from '../../api/persons.js';
import { underQueryLimit } from '../../cli/wait-out-limit.js';
import { MAX_QUERY_ROWS as MAX_ROWS } from '../../hogql/walk.js';
import { formatNumber } from '../../io/counts.js';
import { batchesThatFit } from '../../hogql/query-size.js';

/** How a journal names identifiers: by the evidence key `key_id`, else in clear
 * (--keep-identifiers). */
export interface IdentifierNaming {
  key_id?: string;
}

/** Addresses a query: 10,000 addresses take 10 batches, two queries each. */
const EMAIL_BATCH = 1000;
/** The addresses in batches of at most EMAIL_BATCH, each making queries under hogctl's size
 * budget (src/hogql/query-size.ts): `{emails}` holds each address twice (as asked and with a
 * trailing dot), and both queries take the same list. */
export function emailBatches(emails: readonly string[]): string[][] {
  const longer = EMAIL_QUERY.length > DISTINCT_ID_QUERY.length ? EMAIL_QUERY : DISTINCT_ID_QUERY;
  return batchesThatFit(longer, 'emails', emails, { values: emailValues, maxItems: EMAIL_BATCH });
}

/** What `{emails}` holds for a batch. */
export function emailValues(batch: readonly string[]): string[] {
  return [...batch, ...batch.map((e) => `${e}.`)];
}

// The addresses as they are stored (as the email property or as a distinct id), and those that
// differ from one asked only by spaces around it or one trailing dot: `{emails}` holds each
// address and the address with a dot after it.
// HogQL's trim() is ClickHouse's trimBoth(), which removes spaces at both ends
// (posthog/hogql/functions/mapping.py: "trim": HogQLFunctionMeta("trimBoth", 1, 1)). The near ones
// are reported, never deleted: they may be typing slips of the same person, or someone else.
export const EMAIL_QUERY =
  'SELECT id, lower(properties.email), properties.email FROM persons WHERE lower(trim(properties.email)) IN {emails} LIMIT 50000';
export const DISTINCT_ID_QUERY =
  'SELECT person_id, lower(distinct_id), distinct_id FROM person_distinct_ids WHERE lower(trim(distinct_id)) IN {emails} LIMIT 50000';

/** ClickHouse's lower(): ASCII letters only. */
export function lowerAscii(text: string): string {
  return text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** How a case names its identifiers in its journal, receipt and plan. */
export type IdentifierPolicy =
  | { by: 'clear' }
  /** HMAC-SHA256 under the identifier sub-key of the evidence key `keyId`. */
  | { by: 'key'; key: Buffer; keyId: string };

export const CLEAR: IdentifierPolicy = { by: 'clear' };

export function keyedPolicy(key: EvidenceKey): IdentifierPolicy {
  return { by: 'key', key: key.identifiers, keyId: key.id };
}

/** How the journal's header says a policy. */
export function namingOf(policy: IdentifierPolicy): IdentifierNaming {
  return policy.by === 'key' ? { key_id: policy.keyId } : {};
}

/** The policy of a journal being continued: the same key (refused without it), or in clear. */
export function policyOfJournal(naming: IdentifierNaming, env: NodeJS.ProcessEnv, journal: string): IdentifierPolicy {
  if (naming.key_id) return keyedPolicy(requireEvidenceKey(env, naming.key_id, `the journal ${journal} names its identifiers`));
  return CLEAR;
}

/** The name of an identifier in the journal, the receipt and the plan. */
export function identifierKey(value: string, policy: IdentifierPolicy): string {
  switch (policy.by) {
    case 'clear':
      return value;
    case 'key':
      return keyedHash(policy.key, value);
  }
}

/** What binds a journal and a receipt to the list of identifiers (its SHA-256): keyed, so that
 * it cannot be checked against a guessed list either. */
export function listBinding(sha256: string, policy: IdentifierPolicy): string {
  switch (policy.by) {
    case 'clear':
      return sha256;
    case 'key':
      return keyedHash(policy.key, `id list:${sha256}`);
  }
}

/**
 * A distinct id as the journal and the receipt keep it: as it is, so that erasure-status can ask
 * whether it names a person again, unless it looks like an e-mail address and the case names
 * its identifiers by their keyed hash (`hmac:…`).
 */
export function recordedDistinctId(distinctId: string, policy: IdentifierPolicy): string {
  if (policy.by === 'clear' || !distinctId.includes('@')) return distinctId;
  return `hmac:${identifierKey(distinctId, policy)}`;
}

export interface MatchOptions {
  /** The longest single wait the query limit may ask for (--max-wait); a longer one stops the job. */
  maxWaitMs: number;
  /** batch_by_distinct_ids within the read rate (at most PERSON_BATCH_MAX a call): the persons
   * these distinct ids name, as the person store knows them; null on a server without it. */
  byDistinctIds: (ids: string[]) => Promise<Map<string, ListedPerson> | null>;
  onBatch?: (done: number, total: number) => void;
}

/** Where the addresses were found: each address (lowered) at most once in each set. */
export interface EmailFinds {
  /** The persons (UUIDs) each address names; an address that names no one is absent. */
  matches: Map<string, string[]>;
  /** Addresses that are the `email` property of a person. */
  byProperty: Set<string>;
  /** Addresses that are a distinct id of a person. */
  byDistinctId: Set<string>;
  /** ...of a person HogQL does not show: revived after an earlier deletion (or not yet in
   * ClickHouse), found through the person store only. */
  revived: Set<string>;
  queries: number;
  /** The server has no batch_by_distinct_ids (an older PostHog): revived persons were not sought. */
  noRestLookup: boolean;
  /** Persons whose stored `email` or distinct id differs from an address asked only by spaces
   * around it or a trailing dot: not matched, reported in the plan. */
  near: NearMatch[];
}

/** A stored address that is almost one asked for (ARCHITECTURE.md §3: reported, not deleted). */
export interface NearMatch {
  /** The address asked for (lowered). */
  address: string;
  /** The `email` property, or the distinct id, as stored. */
  stored: string;
  uuid: string;
  /** Set when the stored value is a distinct id of the person, not its `email` property. */
  as?: 'distinct id';
}

/** The address a stored one is near: spaces at both ends and one trailing dot removed, lowered. */
export function nearAddress(stored: string): string {
  return lowerAscii(stored.replace(/^ +| +$/g, '')).replace(/\.$/, '');
}

/**
 * The persons each address names, found three ways, up to 1,000 addresses at a time:
 *
 * - the `email` property, case-insensitively: `lower(properties.email) IN {emails}` over `persons`;
 * - a distinct id equal to the address, case-insensitively as well: HogQL's `person_distinct_ids`
 *   table (posthog/hogql/database/schema/person_distinct_ids.py), because `persons` does not
 *   carry distinct ids and a person identified by their address (posthog.identify('lee@…'))
 *   often has no `email` property at all;
 * - the address as a distinct id in the person store: POST batch_by_distinct_ids (200 a call,
 *   docs/server-contract.md §6.7), because HogQL reads ClickHouse, where a person revived after a
 *   deletion stays hidden until its distinct id is reset (its rows lose to the deleted ones,
 *   docs/server-contract.md §14.4), while the REST lookup reads PostgreSQL, where it exists.
 *   That lookup is exact, so it finds a revived person whose distinct id is the address as it was
 *   written in the request (with its letters lowered); one written in other letter case is found
 *   by HogQL only once it is visible there.
 */
export async function matchEmails(
  ctx: Context,
  client: ApiClient,
  projectId: string,
  emails: string[],
  o: MatchOptions,
): Promise<EmailFinds> {
  const finds: EmailFinds = {
    matches: new Map(),
    byProperty: new Set(),
    byDistinctId: new Set(),
    revived: new Set(),
    queries: 0,
    noRestLookup: false,
    near: [],
  };
  const { shown, near } = await matchByHogQL({ ctx, client, projectId, finds, maxWaitMs: o.maxWaitMs }, emails, o.onBatch);
  await matchInPersonStore(finds, emails, shown, o.byDistinctIds);
  // A person that an address names anyway (as a distinct id, say) goes: no need to report it.
  // Asked only of the few near ones, not by a set of every person the addresses name.
  if (near.length) {
    const nearPersons = new Set(near.map((m) => m.uuid));
    const named = new Set<string>();
    for (const uuids of finds.matches.values()) for (const uuid of uuids) if (nearPersons.has(uuid)) named.add(uuid);
    finds.near = near.filter((m) => !named.has(m.uuid));
  }
  return finds;
}

/** Where the HogQL reads go, and the finds they fill. */
interface EmailQueries {
  ctx: Context;
  client: ApiClient;
  projectId: string;
  finds: EmailFinds;
  maxWaitMs: number;
}

function addMatch(finds: EmailFinds, email: string, uuid: string): void {
  const list = finds.matches.get(email) ?? [];
  if (!list.includes(uuid)) list.push(uuid);
  finds.matches.set(email, list);
}

/** By the `email` property and by distinct id, as HogQL shows them, a batch at a time; returns
 * the persons HogQL shows (one found by the REST lookup alone is hidden from it) and the near
 * addresses. */
async function matchByHogQL(
  q: EmailQueries,
  emails: string[],
  onBatch: MatchOptions['onBatch'],
): Promise<{ shown: Set<string>; near: NearMatch[] }> {
  const { finds } = q;
  const shown = new Set<string>();
  const near: NearMatch[] = [];
  let done = 0;
  for (const batch of emailBatches(emails)) {
    const asked = new Set(batch);
    for (const [uuid, email, stored] of await queryBatch(q, EMAIL_QUERY, batch, 'hogctl erasure: persons by e-mail')) {
      if (!asked.has(email)) {
        if (typeof stored === 'string') near.push({ address: nearAddress(stored), stored, uuid });
        continue;
      }
      addMatch(finds, email, uuid);
      finds.byProperty.add(email);
      shown.add(uuid);
    }
    for (const [uuid, email, stored] of await queryBatch(
      q,
      DISTINCT_ID_QUERY,
      batch,
      'hogctl erasure: persons by an address as distinct id',
    )) {
      if (!asked.has(email)) {
        if (typeof stored === 'string') near.push({ address: nearAddress(stored), stored, uuid, as: 'distinct id' });
        continue;
      }
      addMatch(finds, email, uuid);
      finds.byDistinctId.add(email);
      shown.add(uuid);
    }
    done += batch.length;
    onBatch?.(done, emails.length);
  }
  return { shown, near };
}

/** One HogQL read of a batch of addresses, within the query limit: rows of (uuid lowered, the
 * address asked, the value stored). */
async function queryBatch(q: EmailQueries, hogql: string, batch: string[], name: string): Promise<[string, string, unknown][]> {
  const { ctx, client, projectId, finds } = q;
  const res = await underQueryLimit(ctx, { maxWaitMs: q.maxWaitMs, flag: '--max-wait' }, (retry) => {
    finds.queries++;
    return runHogQL(
      client,
      projectId,
      { query: hogql, values: { emails: emailValues(batch) }, name },
      { signal: ctx.deps.signal, retry, sleep: ctx.clock.sleep, now: ctx.clock.now },
    );
  });
  if (res.results.length >= MAX_ROWS) {
    throw new CliError(
      `more than ${formatNumber(MAX_ROWS)} persons match ${batch.length} of the e-mail addresses; nothing was deleted`,
      'split the input into smaller files, or check that the email property holds what you expect',
    );
  }
  const rows: [string, string, unknown][] = [];
  for (const [id, email, stored] of res.results as unknown[][])
    if (typeof id === 'string' && typeof email === 'string') rows.push([id.toLowerCase(), email, stored]);
  return rows;
}

/** The addresses as distinct ids in the person store, PERSON_BATCH_MAX a call: a person found
 * here that HogQL does not show was revived after a deletion. */
async function matchInPersonStore(
  finds: EmailFinds,
  emails: string[],
  shown: Set<string>,
  byDistinctIds: MatchOptions['byDistinctIds'],
): Promise<void> {
  for (let i = 0; i < emails.length; i += PERSON_BATCH_MAX) {
    const some = emails.slice(i, i + PERSON_BATCH_MAX);
    const found = await byDistinctIds(some);
    if (found === null) {
      finds.noRestLookup = true;
      break;
    }
    for (const email of some) {
      const person = found.get(email);
      if (!person) continue;
      const uuid = person.uuid.toLowerCase();
      addMatch(finds, email, uuid);
      finds.byDistinctId.add(email);
      if (!shown.has(uuid)) finds.revived.add(email);
    }
  }
}
