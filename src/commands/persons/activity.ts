import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { personName } from '../../cli/names.js';
import { distinctIdOption, emailOption, personTarget, resolvePersonId } from './shared/person-target.js';
import { parseCount } from '../../cli/flags.js';
import { RecordWriter } from '../../io/output.js';
import * as api from '../../api/person-actions.js';

export interface PersonsActivityOptions {
  email?: string;
  distinctId?: string;
  limit?: string;
  all?: boolean;
  pageSize?: string;
}

export const ACTIVITY_COLUMNS = ['created_at', 'activity', 'user.email', 'item_id', 'changes'];

export function personsActivityCommand(): Command {
  return new Command('activity')
    .summary('show the activity log of a person, or of all persons')
    .description(
      "Show who changed, split or deleted persons, and when: one person's activity log, or the whole project's without an id (the only way to see deleted persons). " +
        'Newest first. The `changes` column sums up detail.changes; -o json prints the entries in full.',
    )
    .argument('[id]', 'the integer id or the UUID of the person (or give --distinct-id); omit both for every person')
    .addOption(distinctIdOption())
    .addOption(emailOption())
    .option('--limit <n>', 'the most entries to print', '100')
    .option('--all', 'every entry (ignores --limit)')
    .option('--page-size <n>', 'entries per request (default 100)')
    .addHelpText(
      'after',
      examples(
        'hogctl persons activity 42',
        'hogctl persons activity --limit 20',
        'hogctl persons activity --all -o ndjson > person-activity.ndjson',
      ),
    )
    .action(withContext(personsActivityRun));
}

/** One line for detail.changes: "changed properties", "split → {...}". */
export function summarizeChanges(changes: unknown): string {
  if (!Array.isArray(changes)) return '';
  return changes
    .map((c: { action?: string; field?: string | null; after?: unknown }) => {
      const head = [c.action, c.field].filter(Boolean).join(' ');
      if (c.after === undefined || c.after === null) return head;
      const after = JSON.stringify(c.after);
      return `${head} → ${after.length > 80 ? `${after.slice(0, 79)}…` : after}`;
    })
    .join('; ');
}

export async function personsActivityRun(ctx: Context, options: PersonsActivityOptions, given?: string): Promise<void> {
  // Without an id, --distinct-id or --email, the activity of every person.
  const target =
    given === undefined && options.distinctId === undefined && options.email === undefined
      ? undefined
      : personTarget('activity', options, [given]);
  const limit = options.all ? undefined : parseCount(options.limit ?? '100', '--limit');
  const pageSize = options.pageSize ? parseCount(options.pageSize, '--page-size') : Math.min(limit ?? 100, 100);
  const output = await ctx.output();
  const writer = new RecordWriter(output, { columns: ACTIVITY_COLUMNS, fields: api.ACTIVITY_FIELDS, openObjects: ['user', 'detail'] });
  const projectId = await ctx.projectId();
  const client = await ctx.api();
  const id = target && (await resolvePersonId(ctx, target, client));
  for await (const page of api.personActivity(client, projectId, id, { pageSize, limit, signal: ctx.deps.signal })) {
    await writer.writePage(page.map((entry) => ({ ...entry, changes: summarizeChanges(entry.detail?.changes) })));
  }
  await writer.end();
  if (writer.count === 0)
    ctx.info(id === undefined ? 'no person activity in this project' : `no activity for ${personName({ ...target, id })}`);
}
