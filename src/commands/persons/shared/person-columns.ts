// The columns of every persons table (list, get --email, the persons behind insights), and the
// record of one person (get), under the server's names (ARCHITECTURE.md §3). A person is named by
// `uuid`: the list, retrieve and the legacy people lists all send it, with one meaning. `id` is
// left out of the columns because it has two: the list sends the UUID as `id`, retrieve the
// integer key (docs/server-contract.md §6.1, §6.3).
import { PERSON_FIELDS, type PersonRecord } from '../../../api/persons.js';
import { writeRecord, type OutputSettings } from '../../../io/output.js';

export const PERSON_COLUMNS = ['uuid', 'name', 'distinct_ids', 'created_at'];

/** As a record: everything the person has, under the server's names, the properties last. */
export async function printPersonRecord(output: OutputSettings, person: PersonRecord): Promise<void> {
  const record = person as unknown as Record<string, unknown>;
  const first = ['uuid', 'id', 'name', 'distinct_ids', 'created_at'];
  const recordKeys = [...first, ...Object.keys(record).filter((k) => !first.includes(k) && k !== 'properties'), 'properties'];
  await writeRecord(output, record, { columns: first, recordKeys, fields: PERSON_FIELDS, openObjects: ['properties'] });
}
