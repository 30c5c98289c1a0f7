// A receipt as a person reads it (`hogctl persons receipt`): what was asked, by whom and for which
// request, what was found and done, what PostHog still holds and when it goes, and what the
// check afterwards said. The facts come from the receipt alone, as label and sentence pairs that
// the terminal view and the HTML report lay out each their own way. No identifier is repeated:
// the receipt holds addresses only by keyed hash, and the report is about the request.
import { counted, formatNumber } from '../../io/counts.js';
import { KIND_WORDS } from './plan.js';

/** The fields of a receipt this view reads; every kind's receipt has them. */
export interface ReceiptLike {
  command: string;
  status: string;
  started_at: string;
  finished_at: string;
  profile: string | null;
  host: string;
  project: string;
  reference?: string | null;
  run_by?: string | null;
  input: { file: string; id_kind: string; plan?: string };
  counts: Record<string, number | null | undefined>;
  flags?: { delete_events?: boolean; delete_recordings?: boolean; keep_person?: boolean };
  identifiers?: { matched?: number; unmatched?: number; persons?: number };
  verification?: {
    status: string;
    at?: string;
    checked?: number;
    still_present?: number;
    events?: { status: string; pending?: number };
  } | null;
  projects?: { project: string; name: string | null }[];
}

export interface ReceiptFacts {
  title: string;
  facts: [label: string, text: string][];
}

/** The engine's own counts; the rest are the kind's (persons_deleted, …), said in words. */
const ENGINE_COUNTS = new Set(['requested', 'unique', 'duplicates', 'invalid', 'unresolved', 'sent', 'failed', 'not_sent', 'unconfirmed']);

/** "3 e-mail addresses", as the plan says them (KIND_WORDS). */
function kindWords(kind: string, count: number): string {
  const words = KIND_WORDS[kind];
  return words ? words[count === 1 ? 0 : 1] : kind.replace(/_/g, ' ');
}

const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

export function receiptFacts(r: ReceiptLike, file: string): ReceiptFacts {
  const projects = (r.projects ?? []).map((p) => (p.name ? `${p.name} (${p.project})` : p.project)).join(', ') || r.project;
  const facts: [string, string][] = [
    ['reference', r.reference ?? 'none given (--reference <ticket> records one)'],
    ['run by', r.run_by ?? 'not recorded (the key may not read its user: no user:read scope)'],
    ['where', `${new URL(r.host).host}, project ${projects}${r.profile ? ` (profile "${r.profile}")` : ''}`],
    ['when', `${when(r.started_at)} to ${when(r.finished_at)}`],
    [
      'asked',
      `${formatNumber(r.counts.requested ?? 0)} ${kindWords(r.input.id_kind, r.counts.requested ?? 0)} from ${r.input.file}${r.input.plan ? `, through the reviewed plan ${r.input.plan}` : ''}`,
    ],
    ['found', found(r)],
    ['done', done(r)],
  ];
  const held = stillHeld(r, file);
  if (held) facts.push(['PostHog holds', held]);
  facts.push(['verified', verified(r)]);
  return { title: `${r.command}: ${r.status}`, facts };
}

function found(r: ReceiptLike): string {
  const id = r.identifiers;
  if (id?.matched !== undefined)
    return `${counted(id.matched, 'identifier')} matched ${counted(id.persons ?? 0, 'person')}; ${formatNumber(id.unmatched ?? 0)} named no one`;
  const persons = r.counts.persons_found;
  return persons === undefined || persons === null
    ? `${formatNumber(r.counts.unique ?? 0)} unique ids`
    : `${formatNumber(persons)} persons`;
}

function done(r: ReceiptLike): string {
  const kind = Object.entries(r.counts)
    .filter(([k, v]) => !ENGINE_COUNTS.has(k) && typeof v === 'number' && v > 0 && !k.startsWith('persons_found'))
    .map(([k, v]) => `${k.replace(/_/g, ' ')} ${formatNumber(v as number)}`);
  const failed = r.counts.failed ? `; ${formatNumber(r.counts.failed)} failed` : '';
  return `${kind.length ? kind.join(', ') : 'nothing changed'}${failed}`;
}

/** What a deletion leaves on the server for now, and how to see it go. */
function stillHeld(r: ReceiptLike, file: string): string | undefined {
  if (r.command !== 'persons bulk-delete' || !r.flags) return undefined;
  const check = `\`hogctl persons erasure-status --receipt ${file}\` checks`;
  if (!r.flags.delete_events) return `their events (not asked: no --delete-events)${r.flags.delete_recordings ? '' : ' and recordings'}`;
  const events = r.verification?.events;
  if (events?.status === 'completed') return `no events of these persons: their deletion has run; ${check} again`;
  return `their events until PostHog's weekly deletion runs (Saturday night UTC, after the person-overrides squash); ${check}`;
}

function verified(r: ReceiptLike): string {
  const v = r.verification;
  if (!v) return 'not checked (--no-verify, or the run stopped first)';
  const checked =
    v.checked === undefined ? '' : `: ${formatNumber(v.checked)} checked, ${formatNumber(v.still_present ?? 0)} still present`;
  return `${v.status}${v.at ? ` at ${when(v.at)}` : ''}${checked}`;
}
