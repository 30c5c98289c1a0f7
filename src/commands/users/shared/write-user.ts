// Prints a user record: a summary table on a terminal (the full record has the organisation and
// team objects), every field in json, and --fields checked against UserSerializer's fields.
import type { Context } from '../../../context.js';
import type { User } from '../../../api/users.js';
import { writeRecord } from '../../../io/output.js';
import { USER_COLUMNS, USER_FIELDS, USER_OPEN_OBJECTS } from '../../../api/users.js';

export async function writeUser(ctx: Context, user: User): Promise<void> {
  const output = await ctx.output();
  // The table view shows the summary columns; json every field.
  await writeRecord(output, user as unknown as Record<string, unknown>, {
    columns: USER_COLUMNS,
    fields: USER_FIELDS,
    openObjects: USER_OPEN_OBJECTS,
  });
}
