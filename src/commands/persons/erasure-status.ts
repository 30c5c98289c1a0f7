import { Command } from 'commander';
import type { Context } from '../../context.js';
import { NotDoneYetError, NotFoundError, PartialFailureError, UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { parseCount, parseDuration } from '../../cli/flags.js';
import { RecordWriter } from '../../io/output.js';
import { readSecretFromStdin } from '../../io/read-secret.js';
import { checkAddress, erasureStatus, readReceipt, type ErasureStatus } from '../../bulk/kinds/delete/erasure-status.js';
import { counted, formatNumber } from '../../io/counts.js';
import { survivorLines } from '../../bulk/kinds/delete/what-remains.js';

export interface PersonsErasureStatusOptions {
  receipt: string;
  readRate?: string;
  maxWait?: string;
  checkEmail?: string;
  /** Throws for a project the caller may not read (`hogctl mcp --projects`): the receipt names
   * the projects the status reads, so they are checked as soon as it is read, before any is. */
  checkProject?: (project: string) => void;
}

const COLUMNS = [
  'project',
  'status',
  'persons_checked',
  'persons_present',
  'distinct_ids_in_use',
  'events_pending',
  'events_completed',
  'events_remaining',
  'sweep_requests',
  'events_after_erasure',
];

export function personsErasureStatusCommand(): Command {
  return new Command('erasure-status')
    .summary('check later that an erasure is still complete, from its receipt')
    .description(
      'Reads the receipt of a `persons bulk-delete` run and asks the server, project by project: are the persons ' +
        "still gone, do their distinct ids still name no one (a deleted person's distinct ids stay blocked unless " +
        'someone resets them), and has the deletion of their events run? PostHog queues event deletions and runs them ' +
        'in a weekly batch (Saturday night UTC, after the person-overrides squash), so an erasure with --delete-events ' +
        'is pending until then; against `hogctl sandbox`, `hogctl api POST /_sandbox/deletions/run` runs that batch now. With --sweep-events it follows the query deletions too, and counts the events of the ' +
        "erased distinct ids up to the erasure's start (complete means zero); events collected after it are said apart. " +
        'It names what PostHog keeps after a person deletion. Reads only.\n\nMore in `hogctl help erasure` (the events a deletion leaves, what the receipt keeps in clear, ' +
        '--check-email, exit codes).',
    )
    .requiredOption('--receipt <path>', 'the receipt a bulk-delete run wrote')
    .option('--check-email <address>', 'tell whether the erasure was asked to erase this address (- reads it from standard input)')
    .option('--read-rate <n>', "reads a minute (default 240, PostHog Cloud's limit for reading persons with a personal key)")
    .option(
      '--max-wait <duration>',
      'the longest wait the HogQL query limit may ask for before the check stops, e.g. 90s, 1h (default 15m)',
    )
    .addHelpText(
      'after',
      examples(
        'hogctl persons erasure-status --receipt erasure.receipt.json',
        'hogctl persons erasure-status --receipt erasure.receipt.json -o json',
        'echo lee@example.net | hogctl persons erasure-status --receipt erasure.receipt.json --check-email -',
        'hogctl api POST /_sandbox/deletions/run   # hogctl sandbox only: run the weekly event deletion now',
      ),
    )
    .action(withContext(personsErasureStatusRun));
}

export async function personsErasureStatusRun(ctx: Context, options: PersonsErasureStatusOptions): Promise<void> {
  const readRate = options.readRate === undefined ? undefined : parseCount(options.readRate, '--read-rate');
  const maxWaitMs = options.maxWait === undefined ? undefined : parseDuration(options.maxWait, '--max-wait');
  const receipt = await readReceipt(options.receipt);
  for (const p of receipt.projects) options.checkProject?.(p.project);
  const output = await ctx.output();
  if (options.checkEmail !== undefined) return checkEmailRun(ctx, options, receipt, output);
  const { baseUrl } = await ctx.settings();
  if (baseUrl !== receipt.host) {
    throw new UsageError(
      `the receipt ${options.receipt} is of an erasure on ${receipt.host}, and the settings in effect point at ${baseUrl}`,
      `run it with the profile (--profile) or base URL (--base-url) of ${receipt.host}`,
    );
  }
  const statuses = await erasureStatus(ctx, await ctx.api(), receipt, readRate, maxWaitMs);
  // On a terminal the table shows the counts that explain a status (a pending deletion, events
  // left) before it gives way to the width; scripts (a pipe, CSV, --fields) keep every column.
  const columns =
    output.format === 'table' && output.stdout.isTTY && !output.fields
      ? COLUMNS.filter(
          (c) => c === 'project' || c === 'status' || statuses.some((s) => Number((s as unknown as Record<string, unknown>)[c]) > 0),
        )
      : COLUMNS;
  const writer = new RecordWriter(output, { columns, fields: Object.keys(statuses[0] ?? {}) });
  await writer.writePage(statuses as unknown as Record<string, unknown>[]);
  await writer.end();
  const open = statuses.filter((s) => s.status !== 'complete');
  sayWhatRemains(ctx, statuses, receipt.flags.delete_events);
  if (open.length === 0) {
    ctx.info(completeLine(statuses));
    return;
  }
  const details = open.map(describe).join('; ');
  // Waiting for PostHog's weekly deletion is the normal course of an erasure, not a failure.
  if (open.every((s) => s.status === 'pending')) throw new NotDoneYetError(`the erasure is not done yet: ${details}`, hintFor(open));
  throw new PartialFailureError(`the erasure is not complete: ${details}`, hintFor(open));
}

/** Events collected after the erasure (the case reopened, not a failure of the deletion), and
 * what PostHog's deletion by person leaves whatever hogctl does. */
function sayWhatRemains(ctx: Context, statuses: ErasureStatus[], deletedEvents: boolean): void {
  for (const s of statuses)
    if (s.events_after_erasure)
      ctx.info(
        `project ${s.project}: the case reopened: ${counted(s.events_after_erasure, 'event', 'events')} collected after the erasure under its distinct ids (new data, not left by the deletion: erase again to remove it)`,
      );
  if (!deletedEvents) return;
  ctx.info("What PostHog keeps after a person deletion (from PostHog's source):");
  for (const line of survivorLines()) ctx.info(line);
}

/**
 * The line of a complete erasure, counting the persons it deleted, not the ids it sent: ids that
 * named no one (a plain file is sent unlooked-up) were never persons, and are not "still gone".
 */
function completeLine(statuses: ErasureStatus[]): string {
  const ids = statuses.reduce((k, s) => k + s.persons_checked, 0);
  const known = statuses.every((s) => s.persons_deleted !== null);
  const deleted = statuses.reduce((k, s) => k + (s.persons_deleted ?? 0), 0);
  const events = statuses.reduce((k, s) => k + s.events_completed, 0);
  const swept = statuses.reduce((k, s) => k + s.sweep_requests_completed, 0);
  const ran =
    (events ? `, the deletion of their events has run (${formatNumber(events)})` : '') +
    (swept ? `, and ${counted(swept, 'sweep request')} completed: no event of the erased distinct ids up to the erasure is left` : '');
  // With --keep-person no person was to go: only their data.
  if (ids === 0) return `✔ the erasure is complete${ran}`;
  if (!known) return `✔ the erasure is complete: none of the ${counted(ids, 'id')} it sent names a person now${ran}`;
  if (deleted === 0) return `✔ the erasure deleted no one: none of the ${counted(ids, 'id')} it sent names a person now`;
  const others = ids > deleted ? `; the other ${counted(ids - deleted, 'id')} it sent named no person, and still name none` : '';
  return `✔ the erasure is complete: the ${counted(deleted, 'person')} it deleted ${deleted === 1 ? 'is' : 'are'} still gone${others}${ran}`;
}

function describe(s: ErasureStatus): string {
  const where = `project ${s.project}`;
  switch (s.status) {
    case 'unreachable':
      return `${where} was not searched by the erasure (the receipt says why)`;
    case 'reopened':
      return `${where}: ${[
        s.persons_present && `${counted(s.persons_present, 'person exists', 'persons exist')} again`,
        s.distinct_ids_in_use &&
          `${counted(s.distinct_ids_in_use, 'distinct id names', 'distinct ids name')} a person again (${s.distinct_ids_in_use_list.slice(0, 3).join(', ')})`,
      ]
        .filter(Boolean)
        .join(', ')}`;
    case 'pending':
      return s.events_pending
        ? `${where}: the deletion of the events of ${counted(s.events_pending, 'person', 'persons')} is still pending`
        : `${where}: ${formatNumber(s.sweep_requests! - s.sweep_requests_completed)} of the ${counted(s.sweep_requests!, 'sweep request')} ${s.sweep_requests_completed ? 'are' : 'is'} not completed yet (PostHog approves each, then its weekly deletion runs it)`;
    case 'not_swept':
      return `${where}: the persons are gone, but nothing was swept: ${s.sweep_problem}`;
    case 'events_remain':
      if (s.sweep_requests !== null)
        return `${where}: every sweep request completed, yet ${counted(s.events_remaining ?? 0, 'event', 'events')} of the erased distinct ids up to the erasure ${s.events_remaining === 1 ? 'is' : 'are'} still there`;
      return `${where}: ${counted(s.events_remaining ?? 0, 'event still carries', 'events still carry')} ${counted(s.events_remaining_distinct_ids.length, 'of the erased distinct ids', 'of the erased distinct ids')} (${s.events_remaining_distinct_ids.slice(0, 3).join(', ')}${s.events_remaining_distinct_ids.length > 3 ? ', …' : ''}): they carry another person id (distinct ids that were not the person's when it was deleted, or events the person-overrides squash had not reached: a deletion requested in the two days before the weekly run waits for the next), and PostHog's deletion goes by person id, so it has left them`;
    default:
      return `${where}: the server could not say${s.events_unseen ? ` (${formatNumber(s.events_unseen)} queued event deletions are not listed)` : ''}${s.sweep_problem ? `: the sweep ${s.sweep_problem}` : ''}`;
  }
}

function hintFor(open: ErasureStatus[]): string {
  if (open.some((s) => s.status === 'reopened'))
    return 'someone reset a distinct id, or data is being collected again for it: find out why, then delete again with `hogctl persons bulk-delete`';
  if (open.some((s) => s.status === 'events_remain'))
    return "delete_events and bulk_delete go by person: delete them by query with `hogctl events delete --distinct-id …` (PostHog's self-service deletion, where it has enabled it for the project); else, on PostHog Cloud, ask PostHog support to delete them, naming the project and the distinct ids (-o json lists them); on a self-hosted PostHog, delete them in ClickHouse by team_id and distinct_id";
  if (open.some((s) => s.status === 'not_swept')) return open.find((s) => s.status === 'not_swept')!.sweep_problem ?? '';
  if (open.every((s) => s.status === 'pending'))
    return 'PostHog runs event deletions weekly (Saturday night UTC, after the person-overrides squash): check again after that';
  return 'check again later; `hogctl persons deletion-status` lists the queued event deletions';
}

/** --check-email: the receipt and the evidence key alone answer; nothing is sent. */
async function checkEmailRun(
  ctx: Context,
  options: PersonsErasureStatusOptions,
  receipt: Awaited<ReturnType<typeof readReceipt>>,
  output: Awaited<ReturnType<Context['output']>>,
): Promise<void> {
  const address =
    options.checkEmail === '-' ? await readSecretFromStdin(ctx.io.stdin, 'e-mail address', '--check-email -') : options.checkEmail!.trim();
  if (!address.includes('@')) {
    throw new UsageError(
      `--check-email: "${address}" is not an e-mail address`,
      'give the address the request named, or - to read it from standard input',
    );
  }
  const { asked, matched } = checkAddress(options.receipt, receipt, address, ctx.env);
  // The run's status, named as such: beside an address, "status" read as the address's own.
  const writer = new RecordWriter(output, {
    columns: ['email', 'asked', 'matched', 'run_status'],
    fields: ['email', 'asked', 'matched', 'run_status'],
  });
  await writer.writePage([{ email: address, asked, matched, run_status: receipt.status }]);
  await writer.end();
  if (!asked) {
    throw new NotFoundError(
      `${address} is not among the addresses this erasure was asked to erase`,
      'another receipt may name it: check each one, or erase it now with `hogctl persons bulk-delete --email`',
    );
  }
  const run = receipt.status === 'completed' ? '' : ` (the run's status is ${receipt.status}: the receipt says what was not done)`;
  ctx.info(
    matched === false
      ? `✔ this erasure was asked to erase ${address}, and no person had it in the projects it searched${run}`
      : matched
        ? `✔ this erasure was asked to erase ${address}, and persons had it, whom the erasure covered${run}`
        : `✔ this erasure was asked to erase ${address}${run}`,
  );
}
