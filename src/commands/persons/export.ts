import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { collect, parseDuration } from '../../cli/flags.js';
import { writeRecord } from '../../io/output.js';
import { parseProjectList } from '../../bulk/engine/projects.js';
import { checkSettings, runExport, type ExportResult } from '../../export/run.js';
import { PartialFailureError, UsageError } from '../../errors.js';

export interface PersonsExportOptions {
  out?: string;
  email?: string[];
  distinctId?: string[];
  person?: string[];
  projects?: string;
  allProjects?: boolean;
  from?: string;
  dryRun?: boolean;
  resume?: boolean;
  zip?: boolean;
  recordings?: boolean;
  maxWait?: string;
}

const FIELDS = ['bundle', 'persons', 'events', 'queries', 'files', 'zip', 'unavailable', 'dry_run'];

export function personsExportCommand(): Command {
  return new Command('export')
    .summary("export everything PostHog holds about a person (a subject-access request's bundle)")
    .description(
      'Answers a subject-access request (GDPR Art. 15, CCPA "right to know"): finds the persons an e-mail address, a ' +
        'distinct id or a person id names, in one project, several (--projects) or all (--all-projects), exactly as ' +
        '`persons bulk-delete --email` finds them for an erasure, and writes a bundle into --out: per project and ' +
        'person, the record with all distinct ids and properties (person.json), the properties as of the export ' +
        '(properties-at-export.json) and every change of them the events carry (properties-history.ndjson.gz), the ' +
        'cohorts, the activity log, the session recordings listed, and every event of every distinct id ' +
        '(events.ndjson.gz, read from HogQL 50,000 at a time); then summary.html, one page to send on, and ' +
        'manifest.json, with who asked, the host, the identifiers as given, the counts, the time range and the SHA-256 ' +
        'of every file. Events are exported up to the moment the export began.\n\n' +
        'The bundle holds personal data: its directory is made 0700 and its files 0600, a directory that exists and is ' +
        'not empty is refused (a bundle is never written over), and no key is written into it. The plan (persons per ' +
        'project, events, queries) comes first; --dry-run stops there and writes nothing. Every part and every page of ' +
        'events is journaled as it is written: after Ctrl-C, a crash or a query limit, --resume --out <dir> continues ' +
        'without writing any event twice. A part the key may not read (a missing scope) is named, and the rest is ' +
        'exported.\n\n' +
        'Scopes: person:read and query:read; activity_log:read, cohort:read and session_recording:read for those parts.\n\n' +
        'Exit codes: 0 the bundle is complete, 2 bad flags or --out not usable (nothing written), 3 no person matches, ' +
        '4 authentication, 6 the server asks to wait longer than --max-wait (resume later), 8 the bundle is written but ' +
        'some parts could not be read (listed), 130 interrupted (resume then).',
    )
    .option('--out <dir>', 'the directory of the bundle (created 0700; must not exist or be empty)')
    .option('--email <address>', 'an e-mail address of the data subject (repeatable)', collect)
    .option('--distinct-id <id>', 'a distinct id of the data subject (repeatable)', collect)
    .option('--person <uuid>', 'a person UUID of the data subject (repeatable)', collect)
    .option('--projects <ids>', 'export from these projects, e.g. 1,2,3 (each is searched on its own)')
    .option('--all-projects', 'export from every project the key can see')
    .option('--from <date>', 'only events from this date or time on (default: all)')
    .option('--recordings', "also the session recordings' content, as the server serves it (recordings/<session id>.jsonl)")
    .option('--zip', 'hand the bundle over as <out>.zip (the directory is removed once the archive is written)')
    .option('--dry-run', 'find the persons and print the plan; write nothing')
    .option('--resume', 'continue the unfinished export in --out')
    .option(
      '--max-wait <duration>',
      'the longest wait the server may ask for (Retry-After of the query limit) before the export stops, to be resumed later, e.g. 90s, 1h (default 15m)',
    )
    .addHelpText(
      'after',
      examples(
        'hogctl persons export --email user1@example.com --out ./user1-export --dry-run',
        'hogctl persons export --email user1@example.com --all-projects --out ./user1-export',
        'hogctl persons export --distinct-id user-2 --projects 1,2 --from 2024-01-01 --out ./user-2-export -o json',
        'hogctl persons export --email user3@example.com --out ./user3-export --zip',
        'hogctl persons export --resume --out ./user1-export',
      ),
    )
    .action(withContext(personsExportRun));
}

export async function personsExportRun(ctx: Context, options: PersonsExportOptions): Promise<void> {
  if (!options.out) {
    throw new UsageError('--out <dir> is required: the directory of the bundle', 'e.g. --out ./lee-export');
  }
  const settings = {
    out: options.out,
    emails: options.email ?? [],
    distinctIds: options.distinctId ?? [],
    persons: options.person ?? [],
    projects: options.projects ? parseProjectList(options.projects) : undefined,
    allProjects: Boolean(options.allProjects),
    from: options.from,
    recordings: Boolean(options.recordings),
    zip: Boolean(options.zip),
    dryRun: Boolean(options.dryRun),
    resume: Boolean(options.resume),
    maxWaitMs: options.maxWait ? parseDuration(options.maxWait, '--max-wait') : 15 * 60_000,
  };
  checkSettings(settings);
  const output = await ctx.output();
  let result: ExportResult;
  try {
    result = await runExport(ctx, settings);
  } catch (err) {
    const partial = (err as { result?: ExportResult }).result;
    if (err instanceof PartialFailureError && partial) {
      await writeRecord(output, { ...partial, unavailable: partial.unavailable.length }, { columns: FIELDS, fields: FIELDS });
    }
    throw err;
  }
  await writeRecord(output, { ...result, unavailable: result.unavailable.length }, { columns: FIELDS, fields: FIELDS });
}
