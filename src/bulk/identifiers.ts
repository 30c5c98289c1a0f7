// E-mail addresses as the identifiers of an erasure. A request arrives as "delete everything
// about lee@example.net", so the job finds the persons whose `email` property is that address:
// batched HogQL reads, EMAIL_BATCH addresses a query through one list placeholder
// (`lower(properties.email) IN {emails}`; PostHog passes lists to IN the same way in its own
// HogQL tests), never one list request per address. Matching is exact and case-insensitive for
// ASCII letters, as HogQL's lower() (ClickHouse's) is: the addresses are lowered the same way.
//
// The evidence must not become new personal data: the journal, the receipt and the plan name each
// address by HMAC-SHA256 under the evidence key (src/config/evidence-key.ts), unless
// --keep-identifiers. The key is not in those files, so they cannot be checked against guessed
// addresses by anyone who lacks it; `persons erasure-status --check-email` does it with the key.
// Journals of earlier versions named them by SHA-256 of a salt stored beside them: a run of such
// a journal is continued under its salt, as it began.
import { createHash } from 'node:crypto';
import { keyedHash, requireEvidenceKey, type EvidenceKey } from '../config/evidence-key.js';
import type { IdentifierNaming } from './journal.js';
import type { Context } from '../context.js';
import { CliError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import { runHogQL } from '../api/query.js';
import { underQueryLimit } from '../io/countdown.js';
import { MAX_QUERY_ROWS as MAX_ROWS } from '../hogql/walk.js';

/** Addresses a query: 10,000 addresses take 20 queries. */
export const EMAIL_BATCH = 500;

const EMAIL_QUERY = 'SELECT id, lower(properties.email) FROM persons WHERE lower(properties.email) IN {emails} LIMIT 50000';

/** ClickHouse's lower(): ASCII letters only. */
export function lowerAscii(text: string): string {
  return text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** How a case names its identifiers in its journal, receipt and plan. */
export type IdentifierPolicy =
  | { by: 'clear' }
  /** HMAC-SHA256 under the identifier sub-key of the evidence key `keyId`. */
  | { by: 'key'; key: Buffer; keyId: string }
  /** SHA-256 of a salt and the identifier: journals of earlier versions, continued. */
  | { by: 'salt'; salt: string };

export const CLEAR: IdentifierPolicy = { by: 'clear' };

export function keyedPolicy(key: EvidenceKey): IdentifierPolicy {
  return { by: 'key', key: key.identifiers, keyId: key.id };
}

/** How the journal's header says a policy. */
export function namingOf(policy: IdentifierPolicy): IdentifierNaming {
  return policy.by === 'key' ? { key_id: policy.keyId } : { salt: policy.by === 'salt' ? policy.salt : null };
}

/** The policy of a journal being continued: the same key (refused without it) or salt. */
export function policyOfJournal(naming: IdentifierNaming, env: NodeJS.ProcessEnv, journal: string): IdentifierPolicy {
  if (naming.key_id) return keyedPolicy(requireEvidenceKey(env, naming.key_id, `the journal ${journal} names its identifiers`));
  return naming.salt ? { by: 'salt', salt: naming.salt } : CLEAR;
}

/** The name of an identifier in the journal, the receipt and the plan. */
export function identifierKey(value: string, policy: IdentifierPolicy): string {
  switch (policy.by) {
    case 'clear':
      return value;
    case 'key':
      return keyedHash(policy.key, value);
    case 'salt':
      return createHash('sha256').update(`${policy.salt}:${value}`).digest('hex');
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
    case 'salt':
      return createHash('sha256').update(`${policy.salt}:${sha256}`).digest('hex');
  }
}

/**
 * A distinct id as the journal and the receipt keep it: as it is, so that erasure-status can ask
 * whether it names a person again, unless it looks like an e-mail address and the case names
 * its identifiers by a hash (`hmac:…`, or `sha256:…` in journals of earlier versions).
 */
export function recordedDistinctId(distinctId: string, policy: IdentifierPolicy): string {
  if (policy.by === 'clear' || !distinctId.includes('@')) return distinctId;
  return `${policy.by === 'key' ? 'hmac' : 'sha256'}:${identifierKey(distinctId, policy)}`;
}

export interface MatchOptions {
  /** The longest single wait the query limit may ask for (--max-wait); a longer one stops the job. */
  maxWaitMs: number;
  onBatch?: (done: number, total: number) => void;
}

/** The persons (UUIDs) each address names; an address that names no one is absent. */
export async function matchEmails(
  ctx: Context,
  client: ApiClient,
  projectId: string,
  emails: string[],
  o: MatchOptions,
): Promise<{ matches: Map<string, string[]>; queries: number }> {
  const matches = new Map<string, string[]>();
  const cap = { maxWaitMs: o.maxWaitMs, flag: '--max-wait' };
  let queries = 0;
  for (let i = 0; i < emails.length; i += EMAIL_BATCH) {
    const batch = emails.slice(i, i + EMAIL_BATCH);
    const res = await underQueryLimit(ctx, cap, (retry) => {
      queries++;
      return runHogQL(
        client,
        projectId,
        { query: EMAIL_QUERY, values: { emails: batch }, name: 'hogctl erasure: persons by e-mail' },
        { signal: ctx.deps.signal, retry, sleep: ctx.deps.sleep, now: ctx.deps.now },
      );
    });
    if (res.results.length >= MAX_ROWS) {
      throw new CliError(
        `more than ${MAX_ROWS.toLocaleString('en-US')} persons match ${batch.length} of the e-mail addresses; nothing was deleted`,
        'split the input into smaller files, or check that the email property holds what you expect',
      );
    }
    for (const row of res.results as unknown[][]) {
      const [id, email] = row;
      if (typeof id !== 'string' || typeof email !== 'string') continue;
      const list = matches.get(email) ?? [];
      list.push(id.toLowerCase());
      matches.set(email, list);
    }
    o.onBatch?.(Math.min(i + EMAIL_BATCH, emails.length), emails.length);
  }
  return { matches, queries };
}
