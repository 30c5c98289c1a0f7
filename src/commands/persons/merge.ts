import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import type { Context } from '../../context.js';
import { NotFoundError, UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { parseCount, parseDuration } from '../../cli/flags.js';
import { readPersons } from '../../merge/find-duplicates.js';
import { DEFAULT_EVENTS_SINCE, parseEventsSince } from '../../merge/events-since.js';
import { DEFAULT_KEEP, KEEP_MEANS, KEEP_RULES, PROPERTY_RULE, parseKeepRule, type InputGroup } from '../../merge/plan-groups.js';
import { readGroups, refuseLargeGroups } from '../../merge/read-groups.js';
import { DEFAULT_MAX_GROUP } from '../../merge/join-persons.js';
import { mergeKind } from '../../bulk/kinds/merge/merge-kind.js';
import { checkPlanSignature } from '../../config/signed-plan.js';
import { runBulkJob, settleBulkJob } from '../../bulk/engine/job.js';
import type { JobInput } from '../../bulk/input/input.js';
import { readMergeToUndo, undoKind } from '../../bulk/kinds/undo/undo.js';
import { CHANGED_RULES, parseChangedRule } from '../../bulk/kinds/undo/undo-check.js';
import { NOT_GIVEN_BACK } from '../../bulk/kinds/merge/not-given-back.js';
import { lockJournal } from '../../bulk/engine/lock.js';
import { CAPTURE_URL_HELP, givenCaptureUrl, runCaptureHost } from './shared/capture-url.js';
import { parseRateFlag, parseReference, REFERENCE_HELP } from './shared/job-flags.js';
import { isUuid } from '../../api/uuid.js';

export interface PersonsMergeOptions {
  groups?: string;
  keep?: string;
  maxGroup?: string;
  dryRun?: boolean;
  planOut?: string;
  yes?: boolean;
  resume?: boolean;
  journal?: string;
  receipt?: string;
  reference?: string;
  verifyTimeout?: string;
  maxWait?: string;
  undo?: string;
  changed?: string;
  captureUrl?: string;
  rate?: string;
}

const DEFAULT_VERIFY_TIMEOUT = '5m';

export function personsMergeCommand(): Command {
  return new Command('merge')
    .summary('merge duplicate persons into one, through capture: planned, confirmed, journaled, verified')
    .description(
      'Merge each group of duplicate persons into one of them. The groups are what `hogctl persons duplicates -o json` (or -o ndjson) ' +
        'prints, from a file or standard input (--groups -), or a plan written by --plan-out and reviewed; ' +
        '`hogctl persons merge <keep> <other>...` merges one group: the persons these UUIDs or distinct ids name, into the first.\n\n' +
        `The person kept in each group is chosen by --keep: ${KEEP_RULES.map((r) => `${r}, ${KEEP_MEANS[r]}`).join('; ')} ` +
        `(default ${DEFAULT_KEEP}; ties go to the oldest, then the lowest UUID). The plan names each kept person and those merged into it ` +
        'by e-mail address, name, identified or not, events, created and last seen. ' +
        `Properties: ${PROPERTY_RULE}; the earliest created_at stays, and the kept person becomes identified.\n\n` +
        'PostHog has no REST endpoint for merging: each person merged away is one `$merge_dangerously` event sent through capture ' +
        '(with the project API key, read with your personal key), applied asynchronously. So the merge reads back the person store ' +
        'until each group is one person holding every distinct id, or --verify-timeout passes; the receipt lists each group as merged, pending or failed. ' +
        'A person holding a distinct id PostHog refuses to merge (such as "null" or "undefined", usually many people under one placeholder) ' +
        'is left out and named in the plan, never merged. Groups never span projects, and no person is created: every person is read again before the plan.\n\n' +
        'A groups file can come from anywhere, so it is checked before anything is sent: a person in two groups or twice in one, a group of one, ' +
        "and a group of more than --max-group persons are refused (exit 2), naming the line; a person its group's project does not hold " +
        '(of another project, never there, deleted since) is refused (exit 3); a group whose key is a placeholder or test value ' +
        '(as persons duplicates leaves out: null, n/a, test@test.com, ...) is left out and named in the plan, as is a person merged into its own group since it was listed.\n\n' +
        "Before anything is sent the journal (0600) records every group as it was (each person's distinct ids and properties), " +
        'then each request and answer. Interrupted (Ctrl-C, a lost connection, a kill), the same command with --resume sends what was not ' +
        'accepted and reads back again; one run per journal (a lock). As for the bulk jobs, above 100 groups the confirmation asks for their number ' +
        'to be typed, and off a terminal --yes is needed.\n\n' +
        "--undo <receipt> gives the persons a merge merged away their distinct ids and properties back, from the merge's journal: " +
        'each kept person is split (POST persons/{id}/split/), the distinct ids each former person had are joined again, ' +
        'and its properties are set back through capture; read back like the merge. A split gives each distinct id the UUID PostHog made for it, ' +
        'so a person ingestion created for one of its ids gets its old UUID back; the kept person keeps its own. ' +
        'Before anything is written every group is checked: a group whose distinct ids no longer all name the kept person ' +
        '(merged again, split or deleted since) is refused, and so, unless --changed says otherwise, is a group whose kept person changed since the merge; ' +
        'the plan names each with its reason. The undo runs only on the host and project of the merge, and once. ' +
        `What it cannot give back: ${NOT_GIVEN_BACK.join('; ')}. ` +
        'An undo is journaled and locked like the merge: interrupted, `--undo <receipt> --resume` finishes it.',
    )
    .argument('[persons...]', 'one group: the person to keep, then the persons to merge into it (UUIDs or distinct ids)')
    .option(
      '--groups <file>',
      'the groups to merge: `persons duplicates -o json|ndjson` output or a --plan-out plan (- reads standard input)',
    )
    .option(
      '--keep <rule>',
      `which person of a group is kept: ${KEEP_RULES.join(', ')} (default ${DEFAULT_KEEP}: ${KEEP_MEANS[DEFAULT_KEEP]})`,
    )
    .option(
      '--max-group <n>',
      `refuse the input if a group has more persons than this: that many are rarely one person (default ${DEFAULT_MAX_GROUP}, as persons duplicates)`,
    )
    .option('--dry-run', 'read the persons and print the plan; send nothing')
    .option(
      '--plan-out <file>',
      'write the plan (each group with its kept person) to this file for review, signed with the evidence key; --groups <file> applies it unless it was edited',
    )
    .option('-y, --yes', 'do not ask for confirmation (needed off a terminal)')
    .option('--resume', 'continue the merge of this input (or the --undo of this receipt) where it stopped (its journal)')
    .option('--journal <path>', 'the journal (default: one per input, in the config directory)')
    .option('--receipt <path>', 'where the receipt goes (default: beside the journal)')
    .option('--reference <ticket>', REFERENCE_HELP)
    .option(
      '--verify-timeout <duration>',
      `how long to read back before a group is reported pending, e.g. 90s, 10m (default ${DEFAULT_VERIFY_TIMEOUT})`,
    )
    .option('--undo <receipt>', "give every person a merge merged away its distinct ids and properties back, from the merge's journal")
    .option(
      '--changed <rule>',
      `with --undo, a group whose kept person changed since the merge: ${CHANGED_RULES.join(', ')} (default refuse: left as it is, named in the plan; keep: undone, the keys changed stay on the kept person as they are now; overwrite: set back too)`,
    )
    .option('--max-wait <duration>', 'the longest single wait the query limit may ask for (default 60m)')
    .option(
      '--rate <windows>',
      "requests at most per window, where the server's limits are not PostHog Cloud's, e.g. 1200/min (default 600/min for a merge's capture requests; 24/min for an undo's chunks of 10 groups, within PostHog's 240 person writes a minute)",
    )
    .option('--capture-url <url>', CAPTURE_URL_HELP)
    .addHelpText(
      'after',
      examples(
        'hogctl persons duplicates -o json > groups.json && hogctl persons merge --groups groups.json --dry-run',
        'hogctl persons duplicates -o ndjson | hogctl persons merge --groups - --keep most-events --yes',
        'hogctl persons merge --groups groups.json --dry-run --plan-out merge-plan.json',
        'hogctl persons merge user-1 user-2 --yes',
        'hogctl persons merge user-1 user-2 --yes --receipt merged.json && hogctl persons merge --undo merged.json --yes',
      ),
    )
    .action(withContext(personsMergeRun));
}

export async function personsMergeRun(ctx: Context, options: PersonsMergeOptions, persons: string[] = []): Promise<void> {
  if (options.undo !== undefined) {
    if (options.groups !== undefined || persons.length > 0 || options.keep !== undefined || options.planOut !== undefined)
      throw new UsageError(
        '--undo takes the receipt of a merge alone (with --changed, --yes, --dry-run, --resume, --journal, --verify-timeout, --receipt, --reference, --max-wait, --rate, --capture-url)',
      );
    if (options.resume && options.dryRun) throw new UsageError('--resume continues an undo; --dry-run sends nothing: choose one');
    return undoMerge(ctx, options);
  }
  refuseMergeInput(options, persons);
  const keep = options.keep === undefined ? DEFAULT_KEEP : parseKeepRule(options.keep);
  const verifyTimeoutMs = parseDuration(options.verifyTimeout ?? DEFAULT_VERIFY_TIMEOUT, '--verify-timeout');
  const maxWaitMs = parseDuration(options.maxWait ?? '60m', '--max-wait');
  const maxGroup = options.maxGroup === undefined ? DEFAULT_MAX_GROUP : parseCount(options.maxGroup, '--max-group', 2);
  const captureUrl = givenCaptureUrl(options);
  if (new Set(persons).size !== persons.length) throw new UsageError('a person is named twice');

  // Everything is read and checked before anything is sent; on --resume the groups are the
  // journal's (the persons merged away no longer exist), and the input only finds and binds it.
  const read =
    options.groups !== undefined
      ? await groupsFromFile(ctx, options, options.groups, maxGroup)
      : await groupOfPersons(ctx, options, persons, maxWaitMs);
  // `persons duplicates` found none: nothing to plan, journal or send.
  if (read === undefined) {
    ctx.info('nothing to merge: the input holds no groups');
    return;
  }
  const { groups, fromPlan, input } = read;
  const settled = await settleBulkJob(ctx, {
    input,
    dryRun: Boolean(options.dryRun),
    yes: Boolean(options.yes),
    journal: options.journal,
    resume: Boolean(options.resume),
    receipt: options.receipt,
    reference: parseReference(options.reference),
    maxWaitMs,
    rate: parseRateFlag(options.rate),
    planOut: options.planOut,
  });
  const captureHost = await runCaptureHost(ctx, captureUrl, settled.recorded);
  const kind = mergeKind({ groups, keep, fromPlan, verifyTimeoutMs, captureHost });
  await runBulkJob(ctx, settled, kind);
}

/** The input flags that do not go together, or name no group, refused before anything is read. */
function refuseMergeInput(options: PersonsMergeOptions, persons: string[]): void {
  if (options.groups !== undefined && persons.length > 0)
    throw new UsageError('give either --groups or the persons of one group, not both');
  if (options.groups === undefined && persons.length === 1)
    throw new UsageError(
      'one person is not a group: give the person to keep and at least one to merge into it',
      'e.g. hogctl persons merge user-1 user-2',
    );
  if (options.groups === undefined && persons.length === 0 && options.resume)
    throw new UsageError(
      '--resume continues the merge of an input: give the same --groups <file> or persons as the run it continues',
      'its journal is found from them (or named by --journal), and the groups come from the journal',
    );
  if (options.groups === undefined && persons.length === 0)
    throw new UsageError(
      'nothing to merge: give --groups <file> or the persons of one group',
      'e.g. hogctl persons duplicates -o ndjson | hogctl persons merge --groups -',
    );
  if (options.planOut !== undefined && !options.dryRun)
    throw new UsageError('--plan-out goes with --dry-run: it writes the plan instead of running it');
  if (options.resume && options.dryRun) throw new UsageError('--resume continues a merge; --dry-run sends nothing: choose one');
}

interface MergeInput {
  groups: InputGroup[];
  /** The groups are a reviewed plan's, which names the person kept in each. */
  fromPlan: boolean;
  input: JobInput;
}

/** The groups of --groups (a file, or `-` for standard input); undefined when it holds none. */
async function groupsFromFile(ctx: Context, options: PersonsMergeOptions, file: string, maxGroup: number): Promise<MergeInput | undefined> {
  const source = file === '-' ? 'standard input' : file;
  const text = file === '-' ? await readAll(ctx.io.stdin as AsyncIterable<Buffer | string>) : await readFileOrUsage(file);
  const { fromPlan, groups } = readGroups(text, source);
  // A plan is applied only as it was signed: a reviewed plan is the plan that runs.
  if (fromPlan) checkPlanSignature(text, source, ctx.env);
  if (fromPlan && options.keep !== undefined)
    throw new UsageError('a plan names the person it keeps in each group: --keep does not apply to it');
  refuseLargeGroups(groups, maxGroup);
  if (groups.length === 0) return undefined;
  const input = ownInput('--groups', file, text, {
    label: file === '-' ? 'stdin' : file,
    projects: [...new Set(groups.map((g) => g.project_id))],
    args: ['--groups', file],
  });
  return { groups, fromPlan, input };
}

/** The one group of the persons named on the command line (none on --resume: the journal's). */
async function groupOfPersons(ctx: Context, options: PersonsMergeOptions, persons: string[], maxWaitMs: number): Promise<MergeInput> {
  const text = `persons merge ${persons.join('\u0000')}`;
  const project = await ctx.projectId();
  const groups = options.resume ? [] : await oneGroup(ctx, persons, maxWaitMs);
  const input = ownInput('<persons>', undefined, text, { label: 'the persons named', projects: [project], args: persons });
  return { groups, fromPlan: true, input };
}

/**
 * --undo <receipt>: a job of its own (journal, lock, --resume), whose groups are the merge's. The
 * merge's journal is locked as well, so that an undo and a --resume of the same merge never run
 * at once.
 */
async function undoMerge(ctx: Context, options: PersonsMergeOptions): Promise<void> {
  const receipt = options.undo!;
  const captureUrl = givenCaptureUrl(options);
  const maxWaitMs = parseDuration(options.maxWait ?? '60m', '--max-wait');
  const changed = options.changed === undefined ? undefined : parseChangedRule(options.changed);
  const { text, mergeJournal, groups, made } = await readMergeToUndo(receipt);
  await sameHostAndProject(ctx, receipt, made);
  const input = ownInput('--undo', receipt, text, {
    label: receipt,
    projects: [...new Set(groups.map((g) => g.project_id))],
    args: ['--undo', receipt],
  });
  const settled = await settleBulkJob(ctx, {
    input,
    dryRun: Boolean(options.dryRun),
    yes: Boolean(options.yes),
    journal: options.journal,
    resume: Boolean(options.resume),
    receipt: options.receipt ?? `${receipt.replace(/\.json$/, '')}.undo.json`,
    reference: parseReference(options.reference),
    maxWaitMs,
    rate: parseRateFlag(options.rate),
  });
  const kind = undoKind({
    receipt,
    mergeJournal,
    groups,
    changed,
    verifyTimeoutMs: parseDuration(options.verifyTimeout ?? DEFAULT_VERIFY_TIMEOUT, '--verify-timeout'),
    captureHost: await runCaptureHost(ctx, captureUrl, settled.recorded),
  });
  const lock = options.dryRun ? undefined : await lockJournal(mergeJournal, ctx.clock.now);
  try {
    await runBulkJob(ctx, settled, kind);
  } finally {
    await lock?.release();
  }
}

/**
 * An undo writes where the merge was made, and nowhere else: on another host the same project ids
 * and distinct ids name other persons, and a merge of ids without persons creates one. So the
 * host and a project of the receipt must be the ones in use.
 */
async function sameHostAndProject(ctx: Context, receipt: string, made: { host: string; projects: string[] }): Promise<void> {
  const { baseUrl } = await ctx.settings();
  const origin = (url: string) => {
    try {
      return new URL(url).origin;
    } catch {
      return url;
    }
  };
  if (origin(made.host) !== origin(baseUrl))
    throw new UsageError(
      `${receipt} is the receipt of a merge on ${origin(made.host)}, not on ${origin(baseUrl)} (the host in use); nothing was sent`,
      `undo it with the profile or --base-url of ${origin(made.host)}`,
    );
  const project = await ctx.projectId();
  if (!made.projects.includes(project))
    throw new UsageError(
      `${receipt} is the receipt of a merge in project ${made.projects.join(', ')}, not in project ${project} (the project in use); nothing was sent`,
      `undo it with --project ${made.projects[0]}`,
    );
}

/** The groups as the engine takes them: a kind's own input, bound by the hash of its text. */
function ownInput(
  flag: string,
  file: string | undefined,
  text: string,
  o: { label: string; projects: string[]; args: string[] },
): JobInput {
  const sha256 = createHash('sha256').update(text).digest('hex');
  return { kind: 'own', flag, ...(file !== undefined ? { file } : {}), own: { ...o, sha256, stem: 'merge' } };
}

/** `merge <keep> <other>...`: the persons these values name in the project of the settings. */
async function oneGroup(ctx: Context, values: string[], maxWaitMs: number): Promise<InputGroup[]> {
  const project = await ctx.projectId();
  const client = await ctx.api();
  const { persons, byDistinctId } = await readPersons(
    ctx,
    client,
    project,
    { uuids: values.filter(isUuid), distinctIds: values.filter((v) => !isUuid(v)) },
    maxWaitMs,
    parseEventsSince(DEFAULT_EVENTS_SINCE, ctx.clock.now()),
  );
  const uuids = values.map((v) => (isUuid(v) ? v.toLowerCase() : byDistinctId.get(v)));
  const missing = values.filter((_, i) => uuids[i] === undefined || !persons.has(uuids[i]!));
  // Not found, as `persons get` says it (exit 3).
  if (missing.length > 0)
    throw new NotFoundError(
      `no person in project ${project} has ${missing.map((m) => JSON.stringify(m)).join(', ')}; nothing was merged`,
      'give person UUIDs or distinct ids of this project (`hogctl persons get <id>` checks one)',
    );
  if (new Set(uuids).size !== uuids.length)
    throw new UsageError('two of the values name the same person: there is nothing to merge between them');
  return [{ project_id: project, persons: uuids.map((u) => persons.get(u!)!), keep: uuids[0], where: 'the persons named' }];
}

async function readAll(stream: AsyncIterable<Buffer | string>): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
  return text;
}

async function readFileOrUsage(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}
