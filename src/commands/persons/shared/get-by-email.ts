// `persons get --email`, apart from the verb because it needs the erasure's lookup (HogQL, the
// evidence key, the wait for the query limit), which a person by id does not (ARCHITECTURE.md §6).
import * as api from '../../../api/persons.js';
import type { Context } from '../../../context.js';
import { NotFoundError } from '../../../errors.js';
import { RecordWriter } from '../../../io/output.js';
import { lowerAscii, matchEmails } from '../../../bulk/input/identifiers.js';
import { PERSON_COLUMNS, printPersonRecord } from './person-columns.js';
import { parseDuration } from '../../../cli/flags.js';

/**
 * `--email`: the persons the address names (as their email property, or as a distinct id), found
 * by the lookup the erasure uses (src/bulk/input/identifiers.ts), so both agree on who has an address. One person prints
 * as the record; several as a list, newest first, with their number on stderr.
 */
export async function getByEmail(ctx: Context, address: string, maxWait: string): Promise<void> {
  const maxWaitMs = parseDuration(maxWait, '--max-wait');
  const [output, projectId, client] = await Promise.all([ctx.output(), ctx.projectId(), ctx.api()]);
  const wanted = lowerAscii(address);
  const { matches } = await matchEmails(ctx, client, projectId, [wanted], {
    maxWaitMs,
    byDistinctIds: (ids) => api.batchPersons(client, projectId, 'distinct_ids', ids, { signal: ctx.deps.signal }),
  });
  const uuids = matches.get(wanted) ?? [];
  const persons: api.PersonRecord[] = [];
  for (const uuid of uuids) {
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
  if (persons.length === 1) return printPersonRecord(output, persons[0]);
  persons.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.uuid.localeCompare(a.uuid));
  const writer = new RecordWriter(output, { columns: PERSON_COLUMNS, fields: api.PERSON_FIELDS, openObjects: ['properties'] });
  await writer.writePage(persons as unknown as Record<string, unknown>[]);
  await writer.end();
  ctx.info(`${persons.length} persons have the address ${address}: give \`hogctl persons get\` one of their uuids for the whole record`);
}
