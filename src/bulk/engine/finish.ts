// What a bulk job writes down: the journal's first line (what the run is bound to, and the
// settings --resume takes from it), the findings journaled before the first request, and at the
// end the receipt (built from the journal: the server's answers) with its summary on stdout.
import { resolve as resolvePath } from 'node:path';
import type { Context } from '../../context.js';
import { VERSION } from '../../context.js';
import { writeSummary } from '../../io/summary.js';
import type { JobVerification } from './action.js';
import { namingOf, recordedDistinctId, type IdentifierPolicy } from '../input/identifiers.js';
import { ENGINE_HEADER_FIELDS, type JournalHeaderFields, type JournalRecord, type KindFields } from './journal-format.js';
import { type JournalState } from './journal-state.js';
import type { Prepared } from './prepare.js';
import { spansProjects } from './projects.js';
import { buildReceipt, summaryRecord, type Receipt, type ReceiptStatus } from './receipt.js';
import { ReceiptNotWrittenError, writeReceipt } from './receipt-write.js';
import type { Missing } from './unrecorded.js';
import { FilterFailedError } from '../../io/filter.js';
import { columnOf, selectionOf } from '../input/input.js';
import { projectNames, runBy } from './receipt-names.js';
import type { CaseTargets } from '../input/targets.js';

/** The journal's first line: what the run is bound to, and the settings --resume takes from it. */
export function journalHeader(ctx: Context, p: Prepared): JournalHeaderFields {
  const { s, input, kind } = p;
  const own = kindHeader(kind.journal.binding.fields, kind.journal.header?.(p.startedAt));
  const selection = selectionOf(s.input);
  return {
    created_at: p.startedAt,
    profile: p.profile,
    host: p.host,
    project: p.projects[0],
    ...(p.projects.length > 1 || spansProjects(s) ? { projects: p.projects } : {}),
    id_kind: input.list.kind,
    command: kind.journal.command,
    ...own,
    input: {
      file: input.label,
      format: input.list.format,
      column: columnOf(s.input),
      ids: input.list.ids.length,
      id_list_sha256: input.list.sha256,
      given: { kind: s.input.kind, flag: s.input.flag },
    },
    ...(selection ? { selection } : {}),
    settings: {
      receipt: p.receiptPath ? resolvePath(p.receiptPath) : null,
      output: ctx.askedFormat() ?? s.output ?? null,
      rate: s.rate.map((w) => ({ limit: w.limit, window_ms: w.windowMs })),
      concurrency: s.concurrency,
      retries: s.retries,
      max_wait_ms: s.maxWaitMs,
      skip_invalid: Boolean(s.skipInvalid),
      backup: s.backup ? resolvePath(s.backup) : null,
      read_rate: s.readPerMinute,
      reference: s.reference ?? null,
      projects_flag: s.allProjects ? 'all' : s.projects ? 'list' : null,
    },
    ...(p.policy.by !== 'clear' || input.list.kind === 'emails' || input.list.kind === 'mixed' ? { identifiers: namingOf(p.policy) } : {}),
  };
}

/** The kind's fields of the header: its binding and what it adds. A name of the engine's is a
 * mistake of the kind, which would overwrite what the journal needs. */
function kindHeader(binding: KindFields, extra: KindFields = {}): KindFields {
  const own = { ...binding, ...extra };
  const taken = Object.keys(own).filter((k) => (ENGINE_HEADER_FIELDS as readonly string[]).includes(k));
  if (taken.length) throw new Error(`a kind of bulk job may not name its journal fields ${taken.join(', ')}: the engine's own`);
  return own;
}

/** What the lookups found, as journal records, so that a resume need not look again. */
export function findings(targets: CaseTargets, policy: IdentifierPolicy): JournalRecord[] {
  const out: JournalRecord[] = [];
  const slices = <T>(entries: T[], make: (part: T[]) => JournalRecord) => {
    for (let i = 0; i < entries.length; i += 10_000) out.push(make(entries.slice(i, i + 10_000)));
  };
  slices([...targets.newlyResolved], (part) => ({ type: 'resolved', ids: Object.fromEntries(part) }));
  for (const p of targets.projects) {
    slices([...p.newlyMatched], (part) => ({ type: 'matched', project: p.id, ids: Object.fromEntries(part) }));
    if (p.newlySelected) {
      const ids = p.newlySelected;
      for (let i = 0; i < ids.length || i === 0; i += 10_000)
        out.push({
          type: 'selected',
          project: p.id,
          ids: ids.slice(i, i + 10_000),
          ...(i + 10_000 >= ids.length ? { complete: true } : {}),
        });
    }
    const recorded = [...p.distinctIds].map(
      ([uuid, ids]) => [uuid, p.distinctIdsRecorded ? ids : ids.map((d) => recordedDistinctId(d, policy))] as const,
    );
    slices(recorded, (part) => ({ type: 'recorded', project: p.id, persons: Object.fromEntries(part) }));
  }
  return out;
}

export interface Finish {
  status: ReceiptStatus;
  journal?: JournalState;
  error?: string;
  /** Print the summary on stdout (a dry run prints it only for scripts that asked for JSON). */
  print: boolean;
  verification?: JobVerification;
}

/** The receipt, and what of it could not be written or printed after requests were sent. */
export interface Finished {
  receipt: Receipt;
  missing: Missing;
}

/** Writes the receipt and prints its summary. Once something was sent, a receipt that cannot be
 * written or a filter that fails on the summary does not stop the run from saying what it did:
 * they come back as `missing` (unrecorded.ts); before that, they are errors as any other. */
export async function finish(ctx: Context, p: Prepared, f: Finish): Promise<Finished> {
  const { s, input, targets, kind } = p;
  // A dry run sends nothing, reads included: its receipt names what the run already knew.
  const dry = f.status === 'dry_run';
  const names = dry ? new Map(targets.projects.map((t) => [t.id, t.name])) : await projectNames(ctx, targets.projects);
  const receipt = buildReceipt(f.journal, input.list, {
    command: kind.journal.command,
    status: f.status,
    version: VERSION,
    startedAt: f.journal?.header?.created_at ?? p.startedAt,
    finishedAt: new Date(ctx.clock.now()).toISOString(),
    profile: p.profile,
    host: p.host,
    project: targets.projects[0].id,
    reference: s.reference ?? null,
    runBy: dry ? null : await runBy(ctx),
    // A reviewed plan applied: the input as the user named it when the plan was made, and the plan.
    file: s.reviewed ? s.reviewed.input.file : input.label,
    plan: s.reviewed && s.input.kind === 'plan' ? resolvePath(s.input.file) : undefined,
    format: input.list.format,
    column: columnOf(s.input),
    kind: input.list.kind,
    sentIdKind: !p.lookUp && !p.plan ? (input.list.kind === 'distinct_ids' ? 'distinct_ids' : 'person_ids') : 'person_uuids',
    part: kind.receipt,
    skipInvalid: Boolean(s.skipInvalid),
    journal: f.journal?.header ? p.bound.path : null,
    receipt: p.receiptPath ?? null,
    targets: targets.projects.reduce((k, t) => k + t.ids.length, 0),
    // Identifiers are named by their keys; several naming one person are no duplicates.
    unresolved: targets.identifiers ? targets.identifiers.unmatchedKeys : targets.unresolved,
    resolvedDuplicates: targets.identifiers ? 0 : targets.resolvedDuplicates,
    identifiers: targets.identifiers && { policy: p.policy, totals: targets.identifiers },
    verification: f.verification?.total,
    selection: selectionOf(s.input),
    projects: targets.projects.map((t) => ({
      id: t.id,
      name: names.get(t.id) ?? null,
      unreachable: t.unreachable,
      targets: t.ids.length,
      verification: f.verification?.perProject.get(t.id),
    })),
    backup: s.backup ? resolvePath(s.backup) : null,
    error: f.error,
  });
  const sent = f.status !== 'dry_run' && (f.journal?.chunks.size ?? 0) > 0;
  const missing: Missing = {};
  if (p.receiptPath) {
    try {
      await writeReceipt(p.receiptPath, receipt);
    } catch (err) {
      if (!sent || !(err instanceof ReceiptNotWrittenError)) throw err;
      missing.receipt = err;
    }
  }
  if (!f.print) return { receipt, missing };
  const record = summaryRecord(receipt, kind.receipt);
  record.receipt = missing.receipt ? null : (p.receiptPath ?? null);
  // A person at a terminal has read what happened on stderr (the success or failure line): the
  // thirty fields of the record would push the plan and the progress off the screen.
  const every =
    p.receiptPath && !missing.receipt ? 'every count is in the receipt, and -o json prints them here' : '-o json prints every count';
  try {
    await writeSummary(p.output, [`${receipt.status}: ${every}`], record, { columns: Object.keys(record) });
  } catch (err) {
    if (!sent || !(err instanceof FilterFailedError)) throw err;
    missing.output = err;
  }
  return { receipt, missing };
}
