// What changes from one bulk job to the next. The engine (job.ts) reads the input, finds the
// persons, binds the journal, shows the plan, asks, runs the chunks under the rate budget, checks
// lost answers, verifies and writes the receipt; a JobKind says what the job is for (what binds
// its journal, how big a request is, how fast requests may go, how to check the result), and the
// BulkAction it makes says what one request is and how to describe it. Two kinds today: deleting
// persons (delete-persons.ts) and changing their properties (update-persons.ts).
import type { Context } from '../context.js';
import type { ApiClient } from '../http/client.js';
import type { DeleteFlags, JournalHeader, JournalRecord, JournalState } from './journal.js';
import type { PresenceCheck } from './lost-answers.js';
import type { RateBudget, RateWindow } from './rate.js';
import type { Receipt } from './receipt.js';
import type { Attempt, Chunk } from './runner.js';
import type { CaseTargets, IdentifierTotals } from './targets.js';
import type { Changes } from './changes.js';
import type { IdKind } from './validate.js';

export interface BulkAction {
  /** The plan's first line says what the job does: "delete persons", "change the properties of persons". */
  title: string;
  /** The plan's requests line: "POST /api/projects/1/persons/bulk_delete/". */
  request: string;
  /** The plan's flags line, and its label when not "flags" (an update's "changes"). */
  flags: string;
  flagsLabel?: string;
  /** The confirmation: "This deletes 12 persons and their events". */
  confirmation(count: number): string;
  /** The scope the personal key must hold for the requests. */
  scope: string;
  /** One attempt at one chunk, and what its answer means for the runner. */
  attempt(chunk: Chunk): Promise<Attempt>;
  /** Which ids of requests whose answers were lost still need the action; undefined: send
   * them again unchecked (harmless for this action). */
  presence?: PresenceCheck;
  /** What the ids name, for the verification's words: "persons", "distinct ids". */
  targetNoun: string;
  /** What a check of lost answers found: "3 of them no longer name a person (…)". */
  checkedLost(done: number): string;
  /** What the run did, for the closing line and error messages: "12 persons deleted (12 found)
   * from 12 ids sent"; `asked`: the identifiers the input named, to count in their units. */
  account(receipt: Receipt, asked?: IdentifierTotals): string;
  /** The debug line's reading of a successful answer. */
  describeAnswer(attempt: Extract<Attempt, { kind: 'ok' }>): string;
  /** Called when the run starts, once the journal holds everything found before it: what the
   * action reads from there, and anything it needs only when it really sends (a key). */
  prepare?(journal: JournalState): Promise<void>;
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
export interface JobVerification<V = unknown> {
  total?: V;
  perProject: Map<string, V>;
}

export interface JobKind {
  /** The command that runs it, as the resume command names it: "persons bulk-delete". */
  command: string;
  /** Its words: "erasure", "deletion", "deleted", "ids" (a job, one request, what was done, what a request carries). */
  words: { job: string; request: string; done: string; unit: string };
  /** What the journal is bound to besides the input: the delete flags… */
  flags: DeleteFlags;
  /** …or the changes of an update. */
  changes?: Changes;
  /** Whether identifiers that are personal data (addresses) are named by a keyed hash in the
   * journal and the receipt: an erasure must not keep new copies of them. */
  hashesIdentifiers: boolean;
  /** Whether a plain file of ids for one project may go out as it is (bulk_delete takes UUIDs and
   * distinct ids); otherwise every person is looked up first. */
  sendsIdsAsGiven: boolean;
  /** Whether distinct ids are looked up even so, and the persons sent by UUID. */
  looksUpDistinctIds?: boolean;
  /** Ids a request carries at most. */
  chunkSize: number;
  /** Whether the verification reads back, 200 a read, what the run deleted (the plan counts it). */
  readsBack?: boolean;
  /** The request budget when --rate is not given. */
  windows: readonly RateWindow[];
  /** Whether the persons are read before the first chunk (with a lookup: their distinct ids). */
  snapshot(lookUp: boolean): boolean;
  /** What the kind adds to the header of a new journal (an update's event nonce). */
  journalHeader?(startedAt: string): Partial<JournalHeader>;
  makeAction(ctx: Context, env: ActionEnv): Promise<BulkAction>;
  /** Asks the server what the run achieved; undefined when there is nothing to ask. */
  verify(ctx: Context, env: VerifyEnv): Promise<JobVerification | undefined>;
}
