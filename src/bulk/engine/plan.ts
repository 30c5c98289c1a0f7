// What a bulk run tells its user before it sends anything: the plan (where, what, how many
// requests, how long under the server's rate windows) and the exact words of the confirmation.
import { formatDuration } from '../../io/progress.js';
import { formatWindow, readBurst, simulate, type RateWindow } from './rate.js';
import type { IdList } from '../input/validate.js';
import { type FoundBy, type IdentifierTotals } from '../input/targets.js';
import type { Prepared } from './prepare.js';
import { counted, formatNumber, plural } from '../../io/counts.js';

/**
 * What one bulk_delete of 1000 ids is assumed to take, answer included, before any has been
 * measured [an assumption: PostHog does not document it]. It decides how fast --concurrency
 * requests can go; under the hourly window it barely moves the estimate.
 */
export const ASSUMED_REQUEST_MS = 500;

/** "480/min + 4,800/h". */
export function describeWindows(windows: readonly RateWindow[]): string {
  return windows.map(formatWindow).join(' + ');
}

/** How long `requests` requests take under `windows`, request time included. */
export function estimateMs(requests: number, windows: readonly RateWindow[], concurrency: number, requestMs = ASSUMED_REQUEST_MS): number {
  return simulate(requests, windows, concurrency, requestMs);
}

/**
 * What one read of the verification (batch_by_uuids of 200 ids) is assumed to take [an
 * assumption, like ASSUMED_REQUEST_MS].
 */
const ASSUMED_READ_MS = 150;
/** Ids a read of the verification asks about (batch_by_uuids, docs/server-contract.md §6.7). */
const READ_BATCH = 200;

/** The verification's reads: of persons known to exist (looked up), or of ids that may not. */
export interface VerifyReads {
  /** Persons looked up before the run: each is read back. */
  known: number;
  /** Ids sent as given (a plain file): read back only if the server reports finding them. */
  unknown: number;
  readsPerMinute: number;
}

/** How long `reads` reads of the verification take at the read budget. */
function readsMs(reads: number, perMinute: number): number {
  return reads ? simulate(reads, [{ limit: perMinute, windowMs: 60_000 }], 1, ASSUMED_READ_MS, [], 0, { burst: readBurst(perMinute) }) : 0;
}

const readsOf = (ids: number) => Math.ceil(ids / READ_BATCH);

/** The plan's verify line: the reads after the run, and the time of the whole run with them. */
function describeVerify(v: VerifyReads, sendMs: number): string {
  const rate = `${formatNumber(v.readsPerMinute)}/min`;
  const reads = (k: number) => counted(k, 'read');
  const known = readsOf(v.known);
  const knownMs = readsMs(known, v.readsPerMinute);
  if (!v.unknown)
    return `${reads(known)} of the ${counted(v.known, 'person')} at ${rate}, about ${formatDuration(knownMs)}; estimated time in all about ${formatDuration(sendMs + knownMs)}`;
  const most = readsOf(v.known + v.unknown);
  const mostMs = readsMs(most, v.readsPerMinute);
  return `only ids the server reports deleted are read back (none for ids it does not find): at most ${reads(most)} at ${rate} (about ${formatDuration(mostMs)}); estimated time in all about ${formatDuration(sendMs + knownMs)} (up to ${formatDuration(sendMs + mostMs)} if every id names a person)`;
}

/** The plan's estimate line: "about 2h01m (…)". */
export function describeEstimate(
  requests: number,
  windows: readonly RateWindow[],
  concurrency: number,
  requestMs = ASSUMED_REQUEST_MS,
): string {
  const ms = estimateMs(requests, windows, concurrency, requestMs);
  const capped = windows.filter((w) => requests > w.limit).map(formatWindow);
  const why = capped.length ? `; ${capped.join(' and ')} ${plural(capped.length, 'caps', 'cap')} it` : '';
  return `about ${formatDuration(ms)} (at ~${requestMs / 1000} s a request${why}; longer if the server is slower)`;
}

/** A person shown in the plan: "user12@example.com · user-12, 0190… · created 2025-03-02". */
export interface SamplePerson {
  project: string;
  person: { uuid: string; name?: string; properties?: Record<string, unknown>; distinct_ids?: string[]; created_at?: string };
}

function describePerson({ project, person }: SamplePerson, spans: boolean): string {
  const email = typeof person.properties?.email === 'string' ? person.properties.email : undefined;
  const who = email ?? person.name ?? person.uuid;
  const ids = (person.distinct_ids ?? []).slice(0, 2).map((d) => (d.length > 24 ? `${d.slice(0, 23)}…` : d));
  const more = (person.distinct_ids?.length ?? 0) > 2 ? ` +${(person.distinct_ids?.length ?? 0) - 2}` : '';
  const created = person.created_at ? ` · created ${person.created_at.slice(0, 10)}` : '';
  return `${who}${ids.length ? ` · ${ids.join(', ')}${more}` : ''}${created}${spans ? ` (project ${project})` : ''}`;
}

/** Everything the plan states. */
export interface PlanFacts {
  /** What the job does: "delete persons by person id". */
  title: string;
  /** What the job does to persons, for the dry run's note: "deleted", "changed". */
  done: string;
  /** How the near-matches of addresses are taken by person id instead (JobKind.byPersonId). */
  byPersonId?: { verb: string; how: string };
  dryRun: boolean;
  profile: string | null;
  host: string;
  /** The projects and how many persons (or ids) each gets; a job over several names them all. */
  projects: { id: string; name: string | null; unreachable?: string; targets: number }[];
  spans: boolean;
  input: { label: string; list: IdList };
  /** Integer ids are there but not resolved yet (a dry run sends no lookups). */
  resolveLater: boolean;
  resolvedDuplicates: number;
  unresolved: number;
  /** Identifiers looked up: what they matched, and those that match no one (in clear: the plan
   * goes to the operator's terminal, never to a file). */
  identifiers?: IdentifierTotals;
  /** A selection: how it reads. */
  selection?: string;
  /** A kind's own input (a merge's groups): its lines say what it holds. */
  ownInput?: boolean;
  /** The kind's own lines of the plan (BulkAction.planLines). */
  kindLines?: string[];
  sample: SamplePerson[];
  /** Resuming: ids answered in earlier runs, and those left. */
  resume?: { answered: number; left: number };
  requests: number;
  /** Ids a request carries at most, and what they are ("ids", "persons"). */
  chunkSize: number;
  unit?: string;
  /** "POST /api/projects/1/persons/bulk_delete/". */
  request: string;
  flags: string;
  flagsLabel: string;
  windows: readonly RateWindow[];
  concurrency: number;
  /** The reads of the verification after the run (none with --no-verify or --keep-person). */
  verify?: VerifyReads;
  backup?: string;
  /** What one request does, for the backup's line: "deletion" (JobKind.words.request). */
  requestWord: string;
  journal?: string;
  receipt?: string;
  planOut?: string;
  /** The flag that applies the plan written (KindPlanOut.applyWith); default --plan. */
  planApplyWith?: string;
  /** Applying a plan file: its path. */
  planFile?: string;
}

/** What the values of an input are, in the words of the plan and the closing line. */
export const KIND_WORDS: Record<string, [one: string, many: string]> = {
  distinct_ids: ['distinct id', 'distinct ids'],
  emails: ['e-mail address', 'e-mail addresses'],
  person_ids: ['person id', 'person ids'],
  mixed: ['identifier', 'identifiers'],
};

/** "1 e-mail address names", "3 e-mail addresses name". */
const naming = (k: number, [one, many]: [string, string]) => counted(k, `${one} names`, `${many} name`);

/** What the plan of a prepared job states. */
export function planFacts(p: Prepared): PlanFacts {
  const { s, targets, bound } = p;
  return {
    title: p.action.title,
    done: p.kind.words.done,
    byPersonId: p.kind.byPersonId,
    dryRun: Boolean(s.dryRun),
    profile: p.profile,
    host: p.host,
    projects: targets.projects.map((t) => ({ id: t.id, name: t.name, unreachable: t.unreachable, targets: t.ids.length })),
    spans: p.spans,
    input: p.input,
    resolveLater: !p.client,
    resolvedDuplicates: targets.resolvedDuplicates,
    unresolved: targets.unresolved.length,
    identifiers: targets.identifiers,
    selection: s.input.kind === 'selection' ? p.input.label : undefined,
    ownInput: s.input.kind === 'own',
    kindLines: p.action.planLines,
    sample: targets.projects.flatMap((t) => t.sample.map((person) => ({ project: t.id, person }))),
    resume: bound.state && { answered: p.done.size, left: p.remaining },
    requests: p.chunks.length,
    chunkSize: p.kind.requests.chunkSize,
    unit: p.kind.words.unit,
    requestWord: p.kind.words.request,
    request: p.action.request,
    flags: p.action.flags,
    flagsLabel: p.action.flagsLabel ?? 'flags',
    windows: s.rate,
    concurrency: s.concurrency,
    verify: verifyReads(p),
    backup: s.backup,
    planOut: s.planOut,
    planApplyWith: p.kind.planOut?.applyWith,
    planFile: s.input.kind === 'plan' ? s.input.file : undefined,
    journal: s.dryRun ? undefined : bound.path,
    receipt: p.receiptPath,
  };
}

/** The reads the verification will make, as far as the plan can know them. */
function verifyReads(p: Prepared): VerifyReads | undefined {
  if (!p.kind.check.readsBack || p.s.verify === false) return undefined;
  const lookedUp = p.lookUp || Boolean(p.plan);
  return { known: lookedUp ? p.remaining : 0, unknown: lookedUp ? 0 : p.remaining, readsPerMinute: p.s.readPerMinute };
}

export function planText(p: PlanFacts): string {
  const words = KIND_WORDS[p.input.list.kind] ?? ['id', 'ids'];
  return [
    ...whereLines(p),
    ...inputLines(p, words),
    ...(p.kindLines ?? []),
    ...(p.selection
      ? [
          `  selected  ${counted(
            p.projects.reduce((k, x) => k + x.targets, 0),
            'person',
          )}`,
        ]
      : []),
    ...(p.identifiers ? identifierLines(p, p.identifiers, words) : resolvedLines(p)),
    ...sendingLines(p),
    ...fileLines(p),
  ].join('\n');
}

/** The plan's title, and where it goes: profile, host and project(s). */
function whereLines(p: PlanFacts): string[] {
  // Looking persons up reads from the server even in a dry run.
  const dryRun = p.identifiers || p.selection ? ` (dry run: nothing will be ${p.done})` : ' (dry run: nothing will be sent)';
  const lines = [
    `Plan: ${p.title}${p.dryRun ? dryRun : ''}`,
    `  profile   ${p.profile ?? '(none: settings from flags and environment)'}`,
    `  host      ${p.host}`,
  ];
  if (!p.spans) lines.push(`  project   ${p.projects[0].id}${p.projects[0].name ? ` (${p.projects[0].name})` : ''}`);
  else {
    const reached = p.projects.filter((x) => !x.unreachable);
    lines.push(`  projects  ${reached.map((x) => `${x.id}${x.name ? ` (${x.name})` : ''}: ${counted(x.targets, 'person')}`).join(' · ')}`);
    for (const x of p.projects.filter((y) => y.unreachable))
      lines.push(`  ✗ project ${x.id} cannot be searched (${x.unreachable}): nothing in it will be ${p.done}, and the receipt says so`);
  }
  return lines;
}

/** Where the persons come from: a plan file, a selection, or an input read. */
function inputLines(p: PlanFacts, words: [string, string]): string[] {
  const { list } = p.input;
  const integerNote =
    list.integerCount > 0 && p.resolveLater ? ` (${formatNumber(list.integerCount)} integer ids would be resolved to UUIDs first)` : '';
  if (p.planFile) return [`  plan      ${p.planFile} (as reviewed: no lookup is made)`];
  if (p.selection) return [`  selection ${p.selection}`];
  if (p.ownInput) return [`  input     ${p.input.label}`];
  return [
    `  input     ${p.input.label} (${list.format}): ${counted(list.requested, 'value')}, ${formatNumber(list.ids.length)} unique ${plural(list.ids.length, ...words)}, ${counted(list.duplicates, 'duplicate')} dropped, ${formatNumber(list.invalidCount)} invalid${integerNote}`,
  ];
}

/** How the identifiers looked up fared: matched, where found, missing, near. */
function identifierLines(p: PlanFacts, e: IdentifierTotals, words: [string, string]): string[] {
  const lines: string[] = [];
  const several = e.several
    ? `; ${formatNumber(e.several)} of them ${plural(e.several, 'names', 'name')} more than one person${p.spans ? ' in a project' : ''}, and all of those go`
    : '';
  const across = e.inSeveralProjects
    ? `; ${formatNumber(e.inSeveralProjects)} ${plural(e.inSeveralProjects, 'names', 'name')} persons in more than one project`
    : '';
  lines.push(`  matched   ${naming(e.matched, words)} ${counted(e.persons, 'person')}${across}${several}`);
  if (e.foundBy) lines.push(`  found     ${foundWhere(e.foundBy)}`);
  if (e.noRestLookup)
    lines.push(
      '  warning   this server has no batch_by_distinct_ids (an older PostHog): persons revived after an earlier deletion, which HogQL does not show, were not sought',
    );
  if (e.unmatchedKeys.length) lines.push(`  missing   ${describeMissing(e, words)}`);
  if (e.near?.length) lines.push(nearLine(p, e.near));
  return lines;
}

/** Stored addresses near ones given. Not taken without the operator's say-so: a stray space may
 * be a slip of the same person, or another person's address altogether. */
function nearLine(p: PlanFacts, near: NonNullable<IdentifierTotals['near']>): string {
  const count = near.length;
  const it = count === 1 ? 'it' : 'them';
  const instead = p.byPersonId ? `${p.byPersonId.verb} ${it} by person id (${p.byPersonId.how})` : `name ${it} by person id`;
  const shown = near
    .slice(0, 10)
    .map(
      (m) =>
        `${JSON.stringify(m.stored)} (${m.as ? `${m.as} of ` : ''}person ${m.uuid}${p.spans ? ` in project ${m.project}` : ''}) for ${m.address}`,
    )
    .join('; ');
  const more = count > 10 ? `; … and ${formatNumber(count - 10)} more` : '';
  return `  near      ${formatNumber(count)} stored ${count === 1 ? 'address differs' : 'addresses differ'} from one given only by surrounding spaces or a trailing dot; ${count === 1 ? 'it' : 'they'} will not be ${p.done}: ${shown}${more}. If ${count === 1 ? 'it is the same person' : 'they are the same people'}, ${instead}`;
}

/** A plain file's integer ids: those that named a person already listed, and those that named no one. */
function resolvedLines(p: PlanFacts): string[] {
  const lines: string[] = [];
  if (p.resolvedDuplicates)
    lines.push(`  dupes     ${formatNumber(p.resolvedDuplicates)} integer ids name a person already in the list by UUID; sent once`);
  if (p.unresolved) lines.push(`  missing   ${formatNumber(p.unresolved)} integer ids match no person and will not be sent`);
  return lines;
}

/** The sample, what is left of a resumed run, the requests and their budget, the verification. */
function sendingLines(p: PlanFacts): string[] {
  const lines = p.sample.slice(0, 5).map((person, i) => `  ${i === 0 ? 'sample   ' : '         '} ${describePerson(person, p.spans)}`);
  if (p.resume)
    lines.push(
      `  resume    ${counted(p.resume.answered, 'id')} already answered in earlier runs (journal); ${formatNumber(p.resume.left)} left`,
    );
  lines.push(
    `  requests  ${formatNumber(p.requests)}${p.chunkSize === 1 ? ', one person each' : ` of at most ${formatNumber(p.chunkSize)} ${p.unit ?? 'ids'}`} (${p.request})`,
    `  ${p.flagsLabel.padEnd(9)} ${p.flags}`,
    `  budget    ${describeWindows(p.windows)} requests, ${p.concurrency} in flight; ${p.requests ? `estimated time ${describeEstimate(p.requests, p.windows, p.concurrency)}` : 'nothing to send'}`,
  );
  if (p.verify && p.requests) lines.push(`  verify    ${describeVerify(p.verify, estimateMs(p.requests, p.windows, p.concurrency))}`);
  return lines;
}

/** The files the run writes. */
function fileLines(p: PlanFacts): string[] {
  const lines: string[] = [];
  if (p.backup) lines.push(`  backup    ${p.backup} (the records of every person, written before the first ${p.requestWord})`);
  if (p.planOut) lines.push(`  plan out  ${p.planOut} (apply it with ${p.planApplyWith ?? '--plan'} ${p.planOut})`);
  if (p.journal) lines.push(`  journal   ${p.journal}`);
  if (p.receipt) lines.push(`  receipt   ${p.receipt}`);
  return lines;
}

/** Addresses that named no one the plan shows: three rows at 80 columns, so that the plan, with
 * its journal and receipt lines, stays on a 24-row screen. */
const MISSING_SHOWN = 8;

/** The identifiers that named no one: the first as given, or (a plan applied without them, or
 * made before they were kept sealed) only their count; never their hashes, which tell a reader
 * nothing and fill a screen. */
function describeMissing(e: IdentifierTotals, words: [string, string]): string {
  const unmatched = e.unmatchedKeys.length;
  const shown = e.unmatchedFirst.slice(0, MISSING_SHOWN);
  const lead = `${naming(unmatched, words)} no person`;
  if (!shown.length) return `${lead} (the plan keeps them by hash only; the receipt counts them)`;
  const more = unmatched > shown.length ? `, … and ${formatNumber(unmatched - shown.length)} more` : '';
  return `${lead} (the receipt lists them): ${shown.join(', ')}${more}`;
}

/** Where the addresses of an erasure were found, in words: "2 as the email property, 1 as a
 * distinct id (1 of a person revived after an earlier deletion, which HogQL does not show)". */
function foundWhere(f: FoundBy<number>): string {
  const revived = f.revived
    ? ` (${formatNumber(f.revived)} of ${plural(f.revived, 'a person', 'persons')} revived after an earlier deletion, which HogQL does not show)`
    : '';
  return `${counted(f.emailProperty, 'address', 'addresses')} as the email property, ${formatNumber(f.distinctId)} as a distinct id${revived}`;
}

/** What the identifiers of the input named, to lead a closing line: "5 e-mail addresses: 4 named
 * 4 persons, 1 named no one (nobody@example.com); ". Person ids that all named someone say
 * nothing the persons' count does not: then nothing. */
export function describeAsked(kind: string, t: IdentifierTotals): string {
  const unmatched = t.unmatchedKeys.length;
  if (kind === 'person_ids' && unmatched === 0) return '';
  const words = KIND_WORDS[kind] ?? ['identifier', 'identifiers'];
  const given = t.matched + unmatched;
  const persons = counted(t.persons, 'person');
  const first = t.unmatchedFirst.slice(0, 5);
  const rest = unmatched - first.length;
  const listed = first.length ? ` (${first.join(', ')}${rest ? `, … and ${formatNumber(rest)} more: the receipt lists them` : ''})` : '';
  const missing = unmatched ? `, ${formatNumber(unmatched)} named no one${listed}` : '';
  return `${formatNumber(given)} ${words[given === 1 ? 0 : 1]}: ${formatNumber(t.matched)} named ${persons}${missing}; `;
}
