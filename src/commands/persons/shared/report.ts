// How a person verb that changes something reports success: a "✔ ..." line (and notes) on stderr
// for people, and, when a machine format was asked for (-o json, ndjson or csv), one record on
// stdout for scripts. The table format prints no record: the ✔ line says it all.
import type { Context } from '../../../context.js';
import { checkFields, writeRecord } from '../../../io/output.js';
import { FilterFailedError } from '../../../io/filter.js';
import { NotRecordedError } from '../../../errors.js';

/** When queued event deletions run (the `delete_events` parameter help of the API). */
export const EVENTS_BATCH_NOTE = 'PostHog deletes queued events in a weekly batch (Saturday night UTC, after the person-overrides squash)';

export type Report = (record: Record<string, unknown>, done: string, notes?: string[]) => Promise<void>;

/**
 * Checks -o and --fields against the record the verb will print, before anything is sent (a
 * typo must not surface only after the change was made), and returns the reporter.
 */
export async function prepareReport(ctx: Context, fields: string[], openObjects: string[] = []): Promise<Report> {
  const output = await ctx.output();
  checkFields(output.fields, fields, openObjects);
  return async (record, done, notes = []) => {
    // A --jq or --template that fails on the record comes after the change was made: the ✔ line
    // still says what was done, and the exit code is not the usage error's "nothing happened".
    let failed: FilterFailedError | undefined;
    if (output.format !== 'table')
      await writeRecord(output, record, { columns: Object.keys(record), fields, openObjects }).catch((err: unknown) => {
        if (!(err instanceof FilterFailedError)) throw err;
        failed = err;
      });
    ctx.info(`${ctx.colorOn() ? '\u001b[32m✔\u001b[39m' : '✔'} ${done}`);
    for (const note of notes) ctx.info(`  ${note}`);
    if (failed) throw new NotRecordedError(`${failed.message}; the change itself was made, as said above`, failed.hint);
  };
}
