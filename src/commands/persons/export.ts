import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { collect, parseDuration } from '../../cli/flags.js';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseProjectList } from '../../bulk/engine/projects.js';
import { runBulkJob, settleBulkJob } from '../../bulk/engine/job.js';
import { getUser } from '../../api/users.js';
import { configDir, ensurePrivateDir } from '../../config/paths.js';
import { checkBundleDir, checkOutPath } from '../../bulk/kinds/export/bundle.js';
import { bundlePath, checkExportFlags, exportFieldsOf, exportKind, zipPathOf } from '../../bulk/kinds/export/kind.js';
import { loadState } from '../../bulk/kinds/export/state.js';
import { UsageError } from '../../errors.js';

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

export function personsExportCommand(): Command {
  return new Command('export')
    .summary("export everything PostHog holds about a person (a subject-access request's bundle)")
    .description(
      'Answers a subject-access request (GDPR Art. 15, CCPA "right to know"): finds the persons an e-mail address, a ' +
        'distinct id or a person id names, in one project, several (--projects) or all (--all-projects), exactly as ' +
        '`persons bulk-delete --email` finds them for an erasure, and writes a bundle into --out, with the events up ' +
        'to the moment the export began.\n\n' +
        'Per project and person, the bundle holds the record with all distinct ids and properties (person.json), the ' +
        'properties PostHog rebuilds from the $set events of the last two years (properties-from-set-events.json) and ' +
        'every change of them the events carry (properties-history.ndjson.gz), the cohorts, the activity log, the ' +
        'session recordings listed, the feature flags with the reason each has its value (feature-flags.json; PostHog ' +
        'serves these to a signed-in session only: run `hogctl auth login` first), and every event of every distinct id ' +
        '(events.ndjson.gz, read from HogQL 50,000 at a time). An address or distinct id given that no person ' +
        'found holds may still carry events (sent without a person profile, or an address used only as a distinct ' +
        'id): those are exported too, per project into distinct-ids-of-no-person/, and a subject with only such ' +
        'events is exported rather than refused. Then summary.html, one page to send on (the ' +
        "person's properties and distinct ids, and counts), and manifest.json, with who asked, the host, the " +
        'identifiers as given, the counts, the time range, the SHA-256 of every file, and what PostHog holds that the ' +
        'bundle does not (LLM analytics content, heatmaps, e-mails sent by Workflows).\n\n' +
        'The bundle holds personal data: its directory is made 0700 and its files 0600, a directory that exists and is ' +
        'not empty is refused (a bundle is never written over), and no key is written into it. The plan (persons per ' +
        'project, events, queries) comes first; --dry-run stops there and writes nothing. Every part and every page of ' +
        'events is recorded as it is written: after Ctrl-C, a crash or a query limit, --resume --out <dir> continues ' +
        'without writing any event twice. It runs as the bulk jobs do, one person at a time: their journal and a ' +
        'receipt (the persons and events per project, the bundle, the SHA-256 of manifest.json), kept with their ' +
        'journals; at the end every file is read back against the manifest. It only reads, so it asks for no ' +
        'confirmation. A part the key may not read (a missing scope) is named, and the rest is exported.\n\n' +
        'Scopes: person:read and query:read; activity_log:read, cohort:read and session_recording:read for those parts.\n\n' +
        'Exit codes: 0 the bundle is complete, 2 bad flags or --out not usable (nothing written), 3 no person matches and ' +
        'no event carries the identifiers, ' +
        '4 authentication, 6 the server asks to wait longer than --max-wait (resume later), 7 the server or the network ' +
        'failed, or the server answered a project id or person UUID that PostHog never gives (nothing written), 8 the bundle is written but ' +
        'some parts could not be read (listed), fewer events were read than the plan counted (the server ended them early), ' +
        'or a file is not what the manifest says, 130 interrupted (resume then).',
    )
    .option(
      '--out <dir>',
      'the directory of the bundle, its own (not . or .., the current directory or a root; created 0700; must not exist or be empty)',
    )
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
  const out = options.out;
  checkOutPath(out, options.zip ? zipPathOf(out) : null);
  const resume = Boolean(options.resume);
  const dryRun = Boolean(options.dryRun);
  const emails = options.email ?? [];
  const distinctIds = options.distinctId ?? [];
  const persons = options.person ?? [];
  checkExportFlags({ resume, given: emails.length + distinctIds.length + persons.length, from: options.from });
  const maxWaitMs = options.maxWait ? parseDuration(options.maxWait, '--max-wait') : 15 * 60_000;

  // --resume --out <dir>: the bundle names its journal and the identifiers it began with.
  const state = resume ? loadState(out) : undefined;
  const identifiers = state?.identifiers ?? { emails, distinct_ids: distinctIds, persons };
  if (!resume && !dryRun) {
    // Before anything is asked: a bundle is never written over.
    checkBundleDir(out);
    if (options.zip && existsSync(zipPathOf(out)))
      throw new UsageError(`${zipPathOf(out)} exists, and a bundle is never written over`, 'move it away, or give --out another directory');
  }
  const startedAt = new Date(ctx.clock.now()).toISOString();
  const journalsDir = join(configDir(ctx.env), 'journals');
  // The journal of a new export is its own, named after its bundle and when it began.
  const journal =
    state?.journal ??
    join(
      journalsDir,
      `export-${createHash('sha256').update(bundlePath(out)).digest('hex').slice(0, 12)}-${startedAt.replace(/[-:]|\.\d+/g, '')}.ndjson`,
    );
  if (!dryRun && !state) ensurePrivateDir(journalsDir);
  const settled = await settleBulkJob(ctx, {
    input: {
      kind: 'identifiers',
      flag: identifiers.emails.length ? '--email' : identifiers.distinct_ids.length ? '--distinct-id' : '--person',
      emails: identifiers.emails,
      distinctIds: identifiers.distinct_ids,
      persons: identifiers.persons,
    },
    dryRun,
    resume,
    journal: dryRun ? undefined : journal,
    projects: options.projects ? parseProjectList(options.projects) : undefined,
    allProjects: Boolean(options.allProjects),
    // One person at a time: its progress is one line, and its queries share one budget.
    concurrency: 1,
    maxWaitMs,
  });
  let fields = exportFieldsOf(settled.recorded);
  if (!fields) {
    const me = await getUser(await ctx.api()).catch(() => null);
    const team = (me as { team?: { id?: unknown } } | null)?.team?.id;
    fields = {
      out: bundlePath(out),
      until: startedAt,
      from: options.from ?? null,
      recordings: Boolean(options.recordings),
      zip: Boolean(options.zip),
      requested_by: me?.email ?? (await ctx.settings()).profileName ?? null,
      current_team: team === undefined || team === null ? null : String(team),
      identifiers,
    };
  }
  await runBulkJob(ctx, settled, exportKind(ctx, { out, journal, fields, state, maxWaitMs: settled.maxWaitMs }));
}
