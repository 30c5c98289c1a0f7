// E-mail addresses as the identifiers of an erasure. A request arrives as "delete everything
// about lee@example.net", so the job finds the persons whose `email` property is that address:
// batched HogQL reads, EMAIL_BATCH addresses a query through one list placeholder
// (`lower(properties.email) IN {emails}`; PostHog passes lists to IN the same way in its own
// HogQL tests), never one list request per address. Matching is exact and case-insensitive for
// ASCII letters, as HogQL's lower() (ClickHouse's) is: the addresses are lowered the same way.
//
// The evidence must not become new personal data: the journal and the receipt name each address
// by SHA-256 of a per-case salt and the address, unless --keep-identifiers.
import { createHash, randomBytes } from 'node:crypto';
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

/** How a case names its identifiers in its journal and receipt. */
export interface IdentifierPolicy {
  /** Hex; null when the identifiers are kept in clear. */
  salt: string | null;
}

export function newPolicy(keepIdentifiers: boolean): IdentifierPolicy {
  return { salt: keepIdentifiers ? null : randomBytes(16).toString('hex') };
}

/** The name of an identifier in the journal and the receipt. */
export function identifierKey(value: string, policy: IdentifierPolicy): string {
  return policy.salt === null ? value : createHash('sha256').update(`${policy.salt}:${value}`).digest('hex');
}

/**
 * A distinct id as the journal and the receipt keep it: as it is, so that erasure-status can ask
 * whether it names a person again, unless it looks like an e-mail address and the case names
 * its identifiers by salted hash.
 */
export function recordedDistinctId(distinctId: string, policy: IdentifierPolicy): string {
  return policy.salt !== null && distinctId.includes('@') ? `sha256:${identifierKey(distinctId, policy)}` : distinctId;
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
