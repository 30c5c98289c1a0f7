// What a bulk job does to each chunk of ids: the part of the job engine that changes from one
// action to the next. The engine (job.ts) reads the input, binds the journal, resolves ids,
// shows the plan, asks, runs the chunks under the rate budget, checks lost answers and writes
// the receipt; an action says what one request is, how to tell whether a lost one was carried
// out, and how to describe it all. Today there is one: deleting persons (delete-persons.ts).
import type { PresenceCheck } from './lost-answers.js';
import type { Receipt } from './receipt.js';
import type { Attempt, Chunk } from './runner.js';

export interface BulkAction {
  /** The command that runs it, as the resume command names it: "persons bulk-delete". */
  command: string;
  /** The plan's first line says what the job does: "delete persons", "delete the data of persons". */
  title: string;
  /** The plan's requests line: "POST /api/projects/1/persons/bulk_delete/". */
  request: string;
  /** The plan's flags line. */
  flags: string;
  /** The confirmation: "This deletes 12 persons and their events". */
  confirmation(count: number): string;
  /** The scope the key must hold for the requests. */
  scope: string;
  /** One attempt at one chunk, and what its answer means for the runner. */
  attempt(chunk: Chunk): Promise<Attempt>;
  /** Which ids of requests whose answers were lost still need the action; undefined: send
   * them again unchecked. */
  presence?: PresenceCheck;
  /** Which of the ids the run did are still there, to verify it afterwards; undefined: the
   * action leaves nothing to check (e.g. persons kept). */
  verify?: PresenceCheck;
  /** What the ids name, for the verification's words: "persons", "persons behind the distinct ids". */
  targetNoun: string;
  /** What a check of lost answers found: "3 of them no longer name a person (…)". */
  checkedLost(done: number): string;
  /** What the run did, for the closing line and error messages: "12 persons deleted (12 found)
   * from 12 ids sent". */
  account(receipt: Receipt): string;
  /** The debug line's reading of a successful answer. */
  describeAnswer(attempt: Extract<Attempt, { kind: 'ok' }>): string;
}
