// `persons get --email`, apart from the verb because it needs the erasure's lookup (HogQL, the
// evidence key, the wait for the query limit), which a person by id does not (ARCHITECTURE.md §6).
import * as api from '../../../api/persons.js';
import type { Context } from '../../../context.js';
import { NotFoundError, UsageError } from '../../../errors.js';
import { RecordWriter } from '../../../io/output.js';
import { lowerAscii, matchEmails } from '../../../bulk/input/identifiers.js';
import { PERSON_COLUMNS, printPersonRecord } from './person-columns.js';
import { parseDuration } from '../../../cli/flags.js';

/** The longest single wait for the query limit that --email sits out by default. */
export const DEFAULT_EMAIL_MAX_WAIT = '5m';

/**
 * `--email`: the persons the address names (as their email property, or as a distinct id), found
 * by the lookup the erasure uses (src/bulk/input/identifiers.ts), so both agree on who has an address. One person prints
 * as the record; several as a list, newest first, with their number on stderr.
 */
export async function getByEmail(ctx: Context, address: string, maxWait: string): Promise<void> {
  const maxWaitMs = parseDuration(maxWait, '--max-wait');
  const output = await ctx.output();
  const persons = await personsWithAddress(ctx, address, maxWaitMs);
  if (persons.length === 1) return printPersonRecord(output, persons[0]);
  const writer = new RecordWriter(output, { columns: PERSON_COLUMNS, fields: api.PERSON_FIELDS, openObjects: ['properties'] });
  await writer.writePage(persons as unknown as Record<string, unknown>[]);
  await writer.end();
  ctx.info(`${persons.length} persons have the address ${address}: give \`hogctl persons get\` one of their uuids for the whole record`);
}

/**
 * The UUID of the one person a per-person verb's `--email` names. Several persons with the
 * address is a usage error naming them: a write must not pick one of them on its own.
 */
export async function onePersonWithAddress(ctx: Context, address: string): Promise<string> {
  const persons = await personsWithAddress(ctx, address, parseDuration(DEFAULT_EMAIL_MAX_WAIT, '--max-wait'));
  if (persons.length === 1) return persons[0].uuid;
  throw new UsageError(
    `${persons.length} persons have the address ${address}: ${persons.map((p) => p.uuid).join(', ')}`,
    'give the UUID of the one you mean instead of --email (`hogctl persons get --email` shows them)',
  );
}

/** Every person the address names, newest first; none is a NotFoundError. */
async function personsWithAddress(ctx: Context, address: string, maxWaitMs: number): Promise<api.PersonRecord[]> {
  const [projectId, client] = await Promise.all([ctx.projectId(), ctx.api()]);
  const wanted = lowerAscii(address);
  const { matches } = await matchEmails(ctx, client, projectId, [wanted], {
    maxWaitMs,
    byDistinctIds: (ids) => api.batchPersons(client, projectId, 'distinct_ids', ids, { signal: ctx.deps.signal }),
  });
  const persons: api.PersonRecord[] = [];
  for (const uuid of matches.get(wanted) ?? []) {
    try {
      persons.push(await api.getPerson(client, projectId, uuid));
    } catch (error) {
      // Deleted between the lookup and the read: no longer a person with the address.
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  if (persons.length === 0) {
    throw new NotFoundError(
      `no person with the e-mail address ${address} in project ${projectId}`,
      'the whole address must match (ASCII letters in any case); `hogctl persons list --search <part of it>` finds addresses that contain a part',
    );
  }
  return persons.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.uuid.localeCompare(a.uuid));
}
