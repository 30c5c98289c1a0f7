// The boundary between the bulk engine and a kind of bulk job.
//
// How to add a kind (beside deleting, updating, merging, undoing a merge and exporting persons):
//   1. Write a function that returns a `JobKind` (below), as `deleteKind()`
//      (src/bulk/kinds/delete/delete-persons.ts), `updateKind()` (src/bulk/kinds/update/update-persons.ts),
//      `mergeKind()` (src/bulk/kinds/merge/merge-kind.ts) and `exportKind()` (src/bulk/kinds/export/kind.ts, a kind that
//      only reads) do. Put its files together in a folder of its own, src/bulk/kinds/<kind>/, importing
//      the engine's types from here; the engine imports no kind's code.
//   2. Supply its four parts: `journal` (KindJournal: its command and the fields of the journal's
//      header that bind it, compared on --resume), `requests` (KindRequests: chunk size, rate
//      windows, `makeAction` → `BulkAction`: one attempt at a chunk, the plan's and
//      confirmation's words, the scope), `check` (KindCheck: its verification and what the end
//      means) and `receipt` (ReceiptPart: what its answers add up to, its fields, its notes).
//      Typed by its receipt `R`, its verdict and summary read their own fields without a cast.
//   3. Its verb (src/commands/<group>/<verb>.ts) reads its flags (the job flags of
//      src/commands/persons/shared/job-flags.ts), settles the settings with
//      `settleBulkJob(ctx, settings)` (job.ts), whose `recorded` holds the kind's own fields as a
//      resumed journal recorded them, builds its kind once from its flags and those, and calls
//      `runBulkJob(ctx, settled, kind)`. The engine never calls back into the verb.
// The journal, the receipt and the runner store what the kind supplies (header fields, answer
// summaries, receipt fields) as JSON without knowing what they mean: a kind never edits them.
import type { Context } from '../../context.js';
import type { CliError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import type { JournalRecord, KindBinding, KindFields, SendAgain } from './journal-format.js';
import type { JournalState } from './journal-state.js';
import type { PresenceCheck } from './lost-answers.js';
import type { RateBudget, RateWindow } from './rate.js';
import type { Receipt, ReceiptPart, ReceiptVerification } from './receipt.js';
import type { Attempt, Chunk } from './runner.js';
import type { CaseProject } from './projects.js';
import type { CaseTargets, IdentifierTotals } from '../input/targets.js';
import type { IdKind } from '../input/validate.js';

export type { KindFields };

export interface BulkAction<R extends Receipt = Receipt> {
  /** The plan's first line says what the job does: "delete persons", "change the properties of persons". */
  title: string;
  /** The plan's requests line: "POST /api/projects/1/persons/bulk_delete/". */
  request: string;
  /** The plan's flags line, and its label when not "flags" (an update's "changes"). */
  flags: string;
  flagsLabel?: string;
  /** The confirmation: "This deletes 12 persons and their events". */
  confirmation(count: number): string;
  /** Whether hogctl can take the change back (a merge's --undo): the question then does not say it cannot. */
  reversible?: boolean;
  /** The scope the personal key must hold for the requests. */
  scope: string;
  /** One attempt at one chunk, and what its answer means for the runner. `note` writes a line
   * above the progress bar: how a chunk that takes long (an export's person) goes. */
  attempt(chunk: Chunk, note?: (line: string) => void): Promise<Attempt>;
  /** Which ids of requests whose answers were lost still need the action; undefined: send
   * them again unchecked (harmless for this action). */
  presence?: PresenceCheck;
  /** What the ids name, for the verification's words: "persons", "distinct ids". */
  targetNoun: string;
  /** What a check of lost answers found: "3 of them no longer name a person (…)". */
  checkedLost(done: number): string;
  /** What the run did, for the closing line and error messages: "12 persons deleted (12 found)
   * from 12 ids sent"; `asked`: the identifiers the input named, to count in their units. */
  account(receipt: R, asked?: IdentifierTotals): string;
  /** The debug line's reading of a successful answer. */
  describeAnswer(attempt: Extract<Attempt, { kind: 'ok' }>): string;
  /** Called when the run starts, once the journal holds everything found before it: what the
   * action reads from there, and anything it needs only when it really sends (a key). */
  prepare?(journal: JournalState): Promise<void>;
  /** Lines of the plan only the kind can state (a merge's groups, whose properties win), each
   * as the plan's own lines: "  groups    12 (…)". */
  planLines?: string[];
}

/** What a kind that names its persons itself has to go on (JobKind.targets). */
export interface TargetsEnv {
  /** Undefined in a dry run that reads nothing. */
  client?: ApiClient;
  projects: CaseProject[];
  /** The journal being continued: what the kind recorded in its header. */
  journal?: JournalState;
  reads: RateBudget;
  /** The longest single wait for the HogQL query limit (--max-wait). */
  maxWaitMs: number;
}

/** What an action is made from, once the persons are known. */
export interface ActionEnv {
  /** Undefined in a dry run that looked nothing up. */
  client?: ApiClient;
  projects: string[];
  /** What the values of the input are. */
  kind: IdKind;
  timeoutMs: number;
  /** The read budget of the job. */
  reads: RateBudget;
  /** The persons, per project (and what the journal knows of them, on a resumed run). */
  targets: CaseTargets;
  /** Whether the values of the input go out as they are (a plain file), not looked up first. */
  asGiven: boolean;
  journal?: JournalState;
  dryRun: boolean;
}

/** What the verification after a run has to go on. */
export interface VerifyEnv {
  client: ApiClient;
  action: BulkAction;
  journal: JournalState;
  targets: CaseTargets;
  reads: RateBudget;
  /** When the first run of the job started (ISO). */
  startedAt: string;
  /** The longest single wait for the HogQL query limit (--max-wait). */
  maxWaitMs: number;
  /** Journals the verification's progress (absent: not journaled). */
  record?: (record: JournalRecord) => Promise<void>;
}

/** What the verification found: in all, and per project. */
export interface JobVerification<V extends ReceiptVerification = ReceiptVerification> {
  total?: V;
  perProject: Map<string, V>;
}

/** What the end of a run means beyond its requests: warnings, or the error that sets the exit code. */
export interface Verdict {
  warnings: string[];
  error?: CliError;
}

/** Ids answered that the server asked to be sent again, and how the run says it sends them. */
export interface Resends {
  find: SendAgain;
  /** "sending 2 persons again that the server could not delete (deletion_errors)". */
  note(count: number): string;
}

/** What binds a kind's journal: its command, its fields of the header, what its answers ask to
 * be sent again, and how its identifiers are named there. */
export interface KindJournal {
  /** The command that runs it, as the resume command names it: "persons bulk-delete". */
  command: string;
  /** What binds the journal besides the input: the kind's fields of the journal's header (a
   * deletion's flags, an update's changes), compared on --resume. Its names must not be the
   * engine's own (journal-format.ts, ENGINE_HEADER_FIELDS). */
  binding: KindBinding;
  /** What the kind adds to the header of a new journal besides its binding (an update's event
   * nonce): fields of its own, as `binding`'s. */
  header?(startedAt: string): KindFields;
  /** Ids whose answers asked for them to be sent again (a deletion's deletion_errors); absent:
   * an answered id is done. */
  resends?: Resends;
  /** The command line that continues the job, when its verb names it otherwise than by its input
   * (an export: by its bundle, `--resume --out <dir>`); absent: the engine's (settings.ts). */
  resumeCommand?: string;
  /** Whether identifiers that are personal data (addresses) are named by a keyed hash in the
   * journal and the receipt: an erasure must not keep new copies of them. */
  hashesIdentifiers: boolean;
}

/** How a kind's requests are made, sent and answered. */
export interface KindRequests<R extends Receipt = Receipt> {
  /** Ids a request carries at most. */
  chunkSize: number;
  /** The request budget when --rate is not given. */
  windows: readonly RateWindow[];
  /** Whether a plain file of ids for one project may go out as it is (bulk_delete takes UUIDs and
   * distinct ids); otherwise every person is looked up first. */
  sendsIdsAsGiven: boolean;
  /** Whether distinct ids are looked up even so, and the persons sent by UUID. */
  looksUpDistinctIds?: boolean;
  /** Whether the job runs (journal, verification, receipt) even when it has no request to send:
   * an erasure's event sweep reaches identifiers that name no person. */
  runsWithoutRequests?: boolean;
  /** Whether the job only reads from the server (an export): nothing on the server changes, so
   * there is nothing to agree to and the engine asks for no confirmation (nor --yes). */
  readOnly?: boolean;
  /** Whether the persons are read before the first chunk (with a lookup: their distinct ids). */
  snapshot(lookUp: boolean): boolean;
  /** A kind with an input of its own (JobInput `own`: a merge's groups) names its persons here,
   * per project, instead of the engine's lookups: from its input, or on --resume from what it
   * recorded in the journal's header. Reads only; called once the journal is bound. */
  targets?(ctx: Context, env: TargetsEnv): Promise<CaseTargets>;
  makeAction(ctx: Context, env: ActionEnv): Promise<BulkAction<R>>;
}

/** How a kind checks what a run did, and what that means for the exit code. */
export interface KindCheck<R extends Receipt = Receipt> {
  /** Whether the verification reads back, 200 a read, what the run did (the plan counts it). */
  readsBack?: boolean;
  /** Asks the server what the run achieved; undefined when there is nothing to ask. */
  verify(ctx: Context, env: VerifyEnv): Promise<JobVerification | undefined>;
  /** What the receipt of a run whose requests all went through means: persons not done, a
   * verification that found the work not done (exit 8), or warnings. `resume`: the command
   * line that continues or checks again; `retries`: --retries; `account`: what the run did. */
  verdict(receipt: R, o: { resume: string; retries: number; receiptPath?: string; account?: string }): Verdict;
  /** What a Ctrl-C during `verify` stopped, when the verification does more than check (an
   * export writes its last events and seals its bundle there): "writing …", and what is kept.
   * Absent: a check of what the server holds, whose progress the journal keeps. */
  interrupted?: { while: string; kept: string };
}

/** --plan-out: the plan of a dry run written for review, for a kind whose plan is not the
 * engine's signed list of persons (plan-file.ts): a merge's groups, read back by --groups. */
export interface KindPlanOut {
  /** The flag that applies the plan written: "--groups". */
  applyWith: string;
  /** Writes the plan to `path`, signed with the evidence key `env` names (config/signed-plan.ts). */
  write(path: string, env: NodeJS.ProcessEnv): Promise<void>;
}

/**
 * A kind of bulk job: what binds its journal, how its requests are sent and answered, how its
 * results are checked, and what its part of the receipt holds. `R` is its receipt (the engine's
 * and its own fields), which its verdict, summary and account read typed.
 */
export interface JobKind<R extends Receipt = Receipt> {
  /** Its words: "erasure", "deletion", "deleted", "ids" (a job, one request, what was done, what a
   * request carries). The engine's messages for every kind take them from here. */
  words: { job: string; request: string; done: string; unit: string };
  /** How to take instead, by its person id, a person whose stored address differs from one given
   * only by spaces or a trailing dot (the plan's near-matches, which the job leaves alone): "delete"
   * it "(`hogctl persons delete <uuid>`, or a person_id column beside email)". Absent: "name it by
   * person id". */
  byPersonId?: { verb: string; how: string };
  journal: KindJournal;
  requests: KindRequests<R>;
  check: KindCheck<R>;
  /** Its part of the receipt. */
  receipt: ReceiptPart<R>;
  /** --plan-out written by the kind; absent: the engine's signed plan. */
  planOut?: KindPlanOut;
}
