// What a bulk run tells its user before it sends anything: the plan (where, what, how many
// requests, how long under the server's rate windows) and the exact words of the confirmation.
import { formatDuration } from '../io/progress.js';
import { CHUNK_SIZE } from './chunk.js';
import { formatWindow, simulate, type RateWindow } from './rate.js';
import type { DeleteFlags } from './journal.js';
import type { IdKind, IdList } from './validate.js';

/**
 * What one bulk_delete of 1000 ids is assumed to take, answer included, before any has been
 * measured [an assumption: PostHog does not document it]. It decides how fast --concurrency
 * requests can go; under the hourly window it barely moves the estimate.
 */
export const ASSUMED_REQUEST_MS = 500;

const n = (x: number) => x.toLocaleString('en-US');

/** "480/min + 4,800/h". */
export function describeWindows(windows: readonly RateWindow[]): string {
  return windows.map(formatWindow).join(' + ');
}

/** How long `requests` requests take under `windows`, request time included. */
export function estimateMs(requests: number, windows: readonly RateWindow[], concurrency: number, requestMs = ASSUMED_REQUEST_MS): number {
  return simulate(requests, windows, concurrency, requestMs);
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
  const why = capped.length ? `; ${capped.join(' and ')} ${capped.length === 1 ? 'caps' : 'cap'} it` : '';
  return `about ${formatDuration(ms)} (at ~${requestMs / 1000} s a request${why}; longer if the server is slower)`;
}

/**
 * The confirmation's description of what goes: "18,997 persons and their events", "the events
 * and recordings of 12 persons (keeping the persons)".
 */
export function describeDeletion(kind: IdKind, count: number, flags: DeleteFlags): string {
  const persons =
    kind === 'distinct_ids'
      ? `the persons behind ${n(count)} distinct ${count === 1 ? 'id' : 'ids'}`
      : `${n(count)} ${count === 1 ? 'person' : 'persons'}`;
  const data = [flags.delete_events && 'events', flags.delete_recordings && 'recordings'].filter(Boolean).join(' and ');
  if (flags.keep_person) return `the ${data} of ${persons} (keeping the persons themselves)`;
  return data ? `${persons} and their ${data}` : `${persons} (their events and recordings stay)`;
}

/** Everything the plan states. */
export interface PlanFacts {
  /** What the job does: "delete persons by person id". */
  title: string;
  dryRun: boolean;
  profile: string | null;
  host: string;
  projectId: string;
  input: { label: string; list: IdList };
  /** Integer ids are there but not resolved yet (a dry run sends no lookups). */
  resolveLater: boolean;
  resolvedDuplicates: number;
  unresolved: number;
  /** With --emails: what the addresses matched, and those that match no one (in clear: the plan
   * goes to the operator's terminal, never to a file). */
  emails?: { matched: number; several: number; persons: number; unmatched: string[] };
  /** Resuming: ids answered in earlier runs, and those left. */
  resume?: { answered: number; left: number };
  requests: number;
  /** "POST /api/projects/1/persons/bulk_delete/". */
  request: string;
  flags: string;
  windows: readonly RateWindow[];
  concurrency: number;
  journal?: string;
  receipt?: string;
}

export function planText(p: PlanFacts): string {
  const { list } = p.input;
  const what = list.kind === 'distinct_ids' ? 'distinct ids' : list.kind === 'emails' ? 'e-mail addresses' : 'person ids';
  // Finding the persons of e-mail addresses reads from the server even in a dry run.
  const dryRun = list.kind === 'emails' ? ' (dry run: nothing will be deleted)' : ' (dry run: nothing will be sent)';
  const integerNote =
    list.integerCount > 0 && p.resolveLater ? ` (${n(list.integerCount)} integer ids would be resolved to UUIDs first)` : '';
  const lines = [
    `Plan: ${p.title}${p.dryRun ? dryRun : ''}`,
    `  profile   ${p.profile ?? '(none: settings from flags and environment)'}`,
    `  host      ${p.host}`,
    `  project   ${p.projectId}`,
    `  input     ${p.input.label} (${list.format}): ${n(list.requested)} values, ${n(list.ids.length)} unique ${what}, ${n(list.duplicates)} duplicates dropped, ${n(list.invalidCount)} invalid${integerNote}`,
  ];
  if (p.emails) {
    const e = p.emails;
    const several = e.several ? `; ${n(e.several)} of them name more than one person, and all of those go` : '';
    lines.push(
      `  matched   ${n(e.matched)} e-mail ${e.matched === 1 ? 'address names' : 'addresses name'} ${n(e.persons)} ${e.persons === 1 ? 'person' : 'persons'}${several}`,
    );
    if (e.unmatched.length) {
      const shown = e.unmatched.slice(0, 20).join(', ');
      const more = e.unmatched.length > 20 ? `, … and ${n(e.unmatched.length - 20)} more` : '';
      lines.push(
        `  missing   ${n(e.unmatched.length)} e-mail ${e.unmatched.length === 1 ? 'address names' : 'addresses name'} no person (the receipt lists them): ${shown}${more}`,
      );
    }
  } else {
    if (p.resolvedDuplicates)
      lines.push(`  dupes     ${n(p.resolvedDuplicates)} integer ids name a person already in the list by UUID; sent once`);
    if (p.unresolved) lines.push(`  missing   ${n(p.unresolved)} integer ids match no person and will not be sent`);
  }
  if (p.resume) lines.push(`  resume    ${n(p.resume.answered)} ids already answered in earlier runs (journal); ${n(p.resume.left)} left`);
  lines.push(
    `  requests  ${n(p.requests)} of at most ${n(CHUNK_SIZE)} ids (${p.request})`,
    `  flags     ${p.flags}`,
    `  budget    ${describeWindows(p.windows)} requests, ${p.concurrency} in flight; ${p.requests ? `estimated time ${describeEstimate(p.requests, p.windows, p.concurrency)}` : 'nothing to send'}`,
  );
  if (p.journal) lines.push(`  journal   ${p.journal}`);
  if (p.receipt) lines.push(`  receipt   ${p.receipt}`);
  return lines.join('\n');
}
