import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { parseCount } from '../../cli/flags.js';
import { RecordWriter } from '../../io/output.js';
import { isUuid } from '../../api/uuid.js';
import * as api from '../../api/person-actions.js';

export interface PersonsDeletionStatusOptions {
  status?: 'pending' | 'completed' | 'all';
  person?: string;
  limit?: string;
  all?: boolean;
  pageSize?: string;
}

export const DELETION_STATUS_COLUMNS = ['person_uuid', 'status', 'created_at', 'delete_verified_at'];

export function personsDeletionStatusCommand(): Command {
  return new Command('deletion-status')
    .summary('show queued event deletions and whether they have run')
    .description(
      'List the event deletions queued by `persons delete --delete-events`, `persons delete-events` and bulk deletes, newest first. ' +
        "They stay pending until PostHog's weekly batch (Saturday night UTC, after the person-overrides squash) has run. Recording deletions are not listed.",
    )
    .addOption(new Option('--status <status>', 'only pending or completed deletions').choices(['pending', 'completed', 'all']))
    .option('--person <uuid>', "only this person's deletion (a person UUID)")
    .option('--limit <n>', 'the most entries to print', '100')
    .option('--all', 'every entry (ignores --limit)')
    .option('--page-size <n>', 'entries per request (default 100)')
    .addHelpText(
      'after',
      examples(
        'hogctl persons deletion-status --status pending',
        'hogctl persons deletion-status --person 01900000-aaaa-7bbb-8ccc-000000000001 -o json',
      ),
    )
    .action(withContext(personsDeletionStatusRun));
}

export async function personsDeletionStatusRun(ctx: Context, options: PersonsDeletionStatusOptions): Promise<void> {
  if (options.person !== undefined && !isUuid(options.person.trim())) {
    throw new UsageError(
      `invalid --person "${options.person}": expected a person UUID`,
      'deletions are recorded by UUID; `hogctl persons get <id>` shows it',
    );
  }
  const limit = options.all ? undefined : parseCount(options.limit ?? '100', '--limit');
  const pageSize = options.pageSize ? parseCount(options.pageSize, '--page-size') : Math.min(limit ?? 100, 100);
  const output = await ctx.output();
  const writer = new RecordWriter(output, { columns: DELETION_STATUS_COLUMNS, fields: api.DELETION_STATUS_FIELDS });
  const projectId = await ctx.projectId();
  let pending = 0;
  const filter = { status: options.status, personUuid: options.person?.trim().toLowerCase() };
  for await (const page of api.deletionStatus(await ctx.api(), projectId, filter, { pageSize, limit, signal: ctx.deps.signal })) {
    pending += page.filter((d) => d.status === 'pending').length;
    await writer.writePage(page as unknown as Record<string, unknown>[]);
  }
  await writer.end();
  if (writer.count === 0) ctx.info('no queued event deletions match');
  else if (pending > 0)
    ctx.info(
      `${pending} pending: PostHog runs queued event deletions in a weekly batch (Saturday night UTC, after the person-overrides squash).`,
    );
}
