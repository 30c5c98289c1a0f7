// The bulk action of `persons bulk-delete`: POST bulk_delete with up to 1,000 ids a request
// (docs/server-contract.md §6.6). Ids whose answers were lost are checked by asking which of
// them still name a person; with --keep-person a kept person proves nothing, so they are sent
// again unchecked.
import type { Context } from '../context.js';
import type { ApiClient } from '../http/client.js';
import type { BulkAction } from './action.js';
import type { DeleteFlags } from './journal.js';
import { presenceCheck } from './lost-answers.js';
import { describeDeletion } from './plan.js';
import type { RateBudget } from './rate.js';
import { sender } from './send.js';
import type { IdKind } from './validate.js';

const n = (x: number) => x.toLocaleString('en-US');

export interface DeletePersonsSettings {
  /** Undefined in a dry run: nothing is sent. */
  client?: ApiClient;
  /** The projects of the job: one, or those of an erasure across projects. */
  projects: string[];
  /** What the values of the input are; they are sent as persons' UUIDs unless distinct ids. */
  kind: IdKind;
  flags: DeleteFlags;
  timeoutMs: number;
  /** The read budget of the job: checks of lost answers and the verification. */
  reads: RateBudget;
}

const BY: Record<IdKind, string> = {
  person_ids: 'by person id',
  distinct_ids: 'by distinct id',
  emails: 'by e-mail address',
  mixed: 'by e-mail address, distinct id and person id',
  selection: 'chosen by a selection',
};

export function describeFlags(f: DeleteFlags): string {
  const yn = (b: boolean) => (b ? 'yes' : 'no');
  return `delete events: ${yn(f.delete_events)} · delete recordings: ${yn(f.delete_recordings)} · keep person: ${yn(f.keep_person)}`;
}

export function deletePersons(ctx: Context, s: DeletePersonsSettings): BulkAction {
  const { client, projects, kind, flags } = s;
  // Identifiers that were looked up became the persons' UUIDs: those are what is sent and checked.
  const sent = kind === 'distinct_ids' ? 'distinct_ids' : 'person_ids';
  const attempt = client
    ? sender({ client, projectId: projects[0], kind: sent, flags, timeoutMs: s.timeoutMs, now: ctx.deps.now })
    : undefined;
  // Whether ids still name a person, read within PostHog's read rate (240/min); none with
  // --keep-person (the persons stay) or in a dry run. `warning` is said once if the server cannot tell.
  const check = (warning: string) =>
    client && !flags.keep_person
      ? presenceCheck({
          client,
          kind: sent,
          budget: s.reads,
          signal: ctx.deps.signal,
          unavailable: (why) => ctx.warn(warning.replace('{why}', why)),
        })
      : undefined;
  const by = BY[kind];
  return {
    command: 'persons bulk-delete',
    title: `${flags.keep_person ? 'delete the data of' : 'delete'} persons ${by}`,
    request: `POST /api/projects/${projects.length === 1 ? projects[0] : '<project>'}/persons/bulk_delete/`,
    flags: describeFlags(flags),
    confirmation: (count) => `This deletes ${describeDeletion(kind, count, flags)}`,
    scope: 'person:write',
    attempt: (chunk) => {
      if (!attempt) throw new Error('a dry run sends nothing');
      return attempt(chunk);
    },
    presence: check(
      'cannot check the ids of requests whose answers were lost: {why}; they are sent again, and persons a lost request deleted are not counted (the receipt says so)',
    ),
    verify: check('cannot verify that the persons are gone: {why}; the receipt says so'),
    targetNoun: sent === 'distinct_ids' ? 'distinct ids' : 'persons',
    checkedLost: (gone) => `${n(gone)} of them no longer name a person (the earlier request deleted them); the others are sent again`,
    account: (receipt) => {
      const c = receipt.counts;
      const goneNote = c.persons_gone_after_lost_answer
        ? `, ${n(c.persons_gone_after_lost_answer)} of them found gone when checked after a lost answer`
        : '';
      return c.persons_deleted === null
        ? `${n(c.sent)} ids sent and acknowledged (the server did not report how many persons it deleted)`
        : `${n(c.persons_deleted)} persons deleted${goneNote}${c.persons_queued_for_deletion ? `, ${n(c.persons_queued_for_deletion)} queued for deletion` : ''} (${n(c.persons_found ?? 0)} found) from ${n(c.sent)} ids sent`;
    },
    describeAnswer: ({ summary }) =>
      summary
        ? `found ${summary.persons_found ?? '?'}, deleted ${summary.persons_deleted ?? '?'}${summary.persons_queued_for_deletion !== undefined ? `, queued ${summary.persons_queued_for_deletion}` : ''}`
        : 'empty answer',
  };
}
