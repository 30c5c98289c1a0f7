import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { collect, parseCount, parseDuration } from '../../cli/flags.js';
import { RecordWriter } from '../../io/output.js';
import { writeAll } from '../../io/streams.js';
import { fitToTerminal } from '../../io/columns.js';
import { UsageError } from '../../errors.js';
import { caseProjects, parseProjectList } from '../../bulk/engine/projects.js';
import { findDuplicates, keyText, parseKey, type DuplicateGroup, type FindResult } from '../../merge/find-duplicates.js';
import { comparable } from '../../merge/placeholders.js';
import { DEFAULT_MAX_GROUP } from '../../merge/join-persons.js';
import { cell, emailOf, identityOf, minute, nameOf } from '../../merge/who.js';
import { DEFAULT_EVENTS_SINCE, parseEventsSince } from '../../merge/events-since.js';
import { counted, formatNumber } from '../../io/counts.js';

export interface PersonsDuplicatesOptions {
  by?: string[];
  ignoreValue?: string[];
  minGroup?: string;
  maxGroup?: string;
  projects?: string;
  allProjects?: boolean;
  maxWait?: string;
  eventsSince?: string;
}

const DEFAULT_MAX_WAIT = '60m';

/** The review table and CSV: one row per candidate. */
const CANDIDATE_COLUMNS = [
  'group',
  'project_id',
  'key',
  'uuid',
  'email',
  'name',
  'distinct_ids',
  'created_at',
  'last_seen',
  'event_count',
  'is_identified',
  'differing',
];

export function personsDuplicatesCommand(): Command {
  return new Command('duplicates')
    .summary('find persons that look like one person: the same e-mail address, or the same value of --by')
    .description(
      'List groups of persons that share a normalised e-mail address (the email property, lower-cased and with the spaces around it removed, ' +
        "as HogQL's lower() and trim() do: ASCII letters only) or, with --by, the value of another property or of a HogQL expression over persons. " +
        '--by may be repeated: persons that share any one of the keys are one group.\n\n' +
        'Every read is a batched HogQL query: the shared values (GROUP BY ... HAVING count() >= --min-group), then the persons of those values, ' +
        'their distinct ids and their event counts, 10,000 persons a query at most, so the queries grow with the duplicates found, not with the project. ' +
        `Events are counted from --events-since on (the last ${DEFAULT_EVENTS_SINCE.replace('d', ' days')} by default; \`persons merge\` counts the same window), ` +
        "in asynchronous queries, which PostHog's time limit for API queries does not stop: counting every event (all) scans the whole events table. " +
        "A wait the server's query limit asks for is waited out, up to --max-wait.\n\n" +
        'On a terminal each group is a short review: per candidate its UUID, whether it is identified, its e-mail address and name ' +
        "(quoted, so that spaces show; the name is the first of name, Name, username, as PostHog's persons list shows it), created, last seen, event count, distinct ids " +
        'and the values of the properties that differ within its group. Piped (and with -o csv, --fields or --wide) there is one row per candidate ' +
        'with the same columns. -o json and -o ndjson print one object per group, with every property; ' +
        'that is what `hogctl persons merge --groups` reads. The counts of groups and persons go to stderr.\n\n' +
        'Some values join different people and never make a group: values that are not text (a boolean, a number, a list or an object, ' +
        "which HogQL's toString() turns into text), PostHog's placeholder words (the distinct ids its merge refuses: null, undefined, none, " +
        'anonymous, guest, 0, true, false, ... in any letter case), a few values forms and test suites fill in (n/a, na, nil, unknown, -, test, ' +
        'test@test.com, test@example.com, example@example.com, email@example.com, user@example.com, noreply@ and no-reply@ any domain), ' +
        'and those given to --ignore-value. Each value left out is named on stderr with the reason.\n\n' +
        'Groups never span projects: with --projects or --all-projects each project is searched on its own.',
    )
    .option(
      '--by <key>',
      'group by this property (email by default; any other compared as it is) or HogQL expression (repeatable)',
      collect,
    )
    .option(
      '--ignore-value <value>',
      'never group persons by this value, as placeholders are not (repeatable; compared trimmed, ignoring the case of ASCII letters)',
      collect,
    )
    .option('--min-group <n>', 'the fewest persons that make a group (default 2)')
    .option(
      '--max-group <n>',
      `a group larger than this, once every key is joined, is left out and named in a warning: that many persons are not one person (default ${DEFAULT_MAX_GROUP})`,
    )
    .option('--projects <ids>', 'search these projects, e.g. 1,2,3 (each on its own)')
    .option('--all-projects', 'search every project the key can see')
    .option(
      '--events-since <when>',
      `count events from this time on: days before now (30d), a date (2025-01-01), or all (default ${DEFAULT_EVENTS_SINCE})`,
    )
    .option('--max-wait <duration>', `the longest single wait the query limit may ask for, e.g. 90s, 1h (default ${DEFAULT_MAX_WAIT})`)
    .addHelpText(
      'after',
      examples(
        'hogctl persons duplicates',
        'hogctl persons duplicates --by email --by user_id --min-group 3',
        'hogctl persons duplicates -o json > groups.json',
        'hogctl persons duplicates --by "lower(properties.phone)" -o csv > review.csv',
      ),
    )
    .action(withContext(personsDuplicatesRun));
}

export async function personsDuplicatesRun(ctx: Context, options: PersonsDuplicatesOptions): Promise<void> {
  const keys = (options.by && options.by.length > 0 ? options.by : ['email']).map(parseKey);
  const minGroup = options.minGroup === undefined ? 2 : parseCount(options.minGroup, '--min-group', 2);
  const maxGroup = options.maxGroup === undefined ? DEFAULT_MAX_GROUP : parseCount(options.maxGroup, '--max-group', 2);
  if (maxGroup < minGroup) throw new UsageError(`--max-group ${maxGroup} is below --min-group ${minGroup}`);
  const maxWaitMs = parseDuration(options.maxWait ?? DEFAULT_MAX_WAIT, '--max-wait');
  const ignored = new Set((options.ignoreValue ?? []).map(comparable));
  const eventsSince = parseEventsSince(options.eventsSince ?? DEFAULT_EVENTS_SINCE, ctx.clock.now());
  if (options.projects !== undefined && options.allProjects) throw new UsageError('--projects and --all-projects cannot be used together');
  const projectsSetting = {
    projects: options.projects === undefined ? undefined : parseProjectList(options.projects),
    allProjects: options.allProjects,
  };

  const output = await ctx.output();
  const client = await ctx.api();
  const projects = await caseProjects(ctx, client, projectsSetting);
  const byGroup = output.format === 'json' || output.format === 'ndjson' || output.filter !== undefined;
  // On a terminal a table row of ten columns cannot fit 80 columns without dropping what a person
  // decides by, so each group is a short review instead; scripts (a pipe, CSV, --fields, --wide)
  // keep the one row per candidate.
  const review = output.format === 'table' && output.stdout.isTTY && !output.fields && !output.wide && !byGroup;
  const writer = byGroup
    ? new RecordWriter(output, { columns: ['project_id', 'key', 'size', 'differing_properties', 'persons'] })
    : new RecordWriter(output, { columns: CANDIDATE_COLUMNS, fields: CANDIDATE_COLUMNS });
  let groups = 0;
  let persons = 0;
  let queries = 0;
  for (const project of projects) {
    if (project.unreachable) {
      ctx.warn(`project ${project.id} was not searched: ${project.unreachable}`);
      continue;
    }
    const found = await findDuplicates(ctx, client, project.id, {
      keys,
      minGroup,
      maxGroup,
      ignored,
      maxWaitMs,
      eventsSince,
      onProgress: (what) => ctx.debug(`project ${project.id}: ${what}`),
    });
    queries += found.queries;
    for (const line of leftOutLines(found, maxGroup)) ctx.warn(`project ${project.id}: ${line}`);
    if (review) {
      for (const [i, g] of found.groups.entries())
        await writeAll(output.stdout, fitToTerminal(output.stdout, reviewText(g, groups + i + 1)));
    } else if (byGroup) await writer.writePage(found.groups as unknown as Record<string, unknown>[]);
    else await writer.writePage(found.groups.flatMap((g, i) => candidateRows(g, groups + i + 1)));
    groups += found.groups.length;
    persons += found.groups.reduce((n, g) => n + g.size, 0);
  }
  if (!review) await writer.end();
  const where = projects.length === 1 ? '' : ` in ${projects.length} projects`;
  ctx.info(
    `${counted(groups, 'group')} of duplicates, ${counted(persons, 'person')}${where}, found in ${counted(queries, 'query', 'queries')}`,
  );
}

/** What was left out and why, a line each: placeholder values, values that are not text, groups too large. */
function leftOutLines(found: FindResult, maxGroup: number): string[] {
  const lines: string[] = [];
  for (const v of found.leftOut) {
    // Text is quoted, so that "true" and true, "123" and 123 read apart.
    const shown = v.type === undefined || v.type === 'string' ? JSON.stringify(v.value) : v.value;
    lines.push(`left out ${v.key}=${shown} (${counted(v.persons, 'person')}): ${v.reason}`);
  }
  for (const big of found.tooLarge)
    lines.push(`${formatNumber(big.persons)} persons share ${big.key}=${big.value}, more than --max-group ${maxGroup}: left out`);
  for (const big of found.tooLargeGroups) {
    const values = Object.entries(big.values).flatMap(([k, list]) => list.map((v) => `${k}=${v}`));
    const named = values.slice(0, 5).join(', ') + (values.length > 5 ? `, … (${formatNumber(values.length)} values)` : '');
    lines.push(
      `a group of ${formatNumber(big.persons)} persons, joined through ${named}, is more than --max-group ${maxGroup}: left out (every value alone is shared by fewer: review it with fewer --by keys, or a larger --max-group)`,
    );
  }
  return lines;
}

/** A group as review rows: each candidate with the values of the properties that differ. */
function candidateRows(group: DuplicateGroup, index: number): Record<string, unknown>[] {
  const names = group.differing_properties.filter((name) => !name.startsWith('$'));
  return group.persons.map((p) => ({
    group: index,
    project_id: group.project_id,
    key: keyText(group),
    uuid: p.uuid,
    email: cell(emailOf(p)),
    name: cell(nameOf(p)),
    distinct_ids: p.distinct_ids.join(' '),
    created_at: p.created_at,
    last_seen: p.last_seen ?? '',
    event_count: p.event_count,
    is_identified: p.is_identified,
    differing: names.map((name) => `${name}=${name in p.properties ? JSON.stringify(p.properties[name]) : '(none)'}`).join(' '),
  }));
}

/**
 * A group as a person reviews it on a terminal: a line naming it, then per candidate its UUID
 * (what `persons merge` takes), who it is (e-mail, name, identified or not, events, created, last
 * seen: merge-kind's plan says the same), its distinct ids and the values of the properties that
 * differ within the group.
 */
function reviewText(group: DuplicateGroup, index: number): string {
  const names = group.differing_properties.filter((name) => !name.startsWith('$'));
  const lines = [`group ${index} · project ${group.project_id} · ${keyText(group)} · ${counted(group.size, 'person')}`];
  for (const p of group.persons) {
    lines.push(`  ${p.uuid}  ${p.is_identified ? 'identified' : 'not identified'}`);
    lines.push(`    ${identityOf(p)}`);
    lines.push(`    created ${minute(p.created_at)}, last seen ${minute(p.last_seen)}, ${counted(p.event_count, 'event')}`);
    lines.push(`    distinct ids: ${p.distinct_ids.join(' ')}`);
    if (names.length > 0)
      lines.push(
        `    differs: ${names.map((name) => `${name}=${name in p.properties ? JSON.stringify(p.properties[name]) : '(none)'}`).join(' ')}`,
      );
  }
  return `${lines.join('\n')}\n\n`;
}
