// After a run, the server is asked whether the persons are gone: every id the run had answered
// is checked (batch_by_uuids or batch_by_distinct_ids, 200 a request, within the read rate), so
// the receipt states what the server holds now, not only what it answered. Newest servers may
// queue deletions and answer before they are done; then a person may still exist for a while.
import type { Context } from '../context.js';
import type { PresenceCheck } from './lost-answers.js';

const n = (x: number) => x.toLocaleString('en-US');
/** Ids listed in the receipt at most. */
const LIST_CAP = 10_000;

export interface Verification {
  /** gone: none is left; still_present: some are; unavailable: the server could not say. */
  status: 'gone' | 'still_present' | 'unavailable';
  at: string;
  checked: number;
  still_present: number;
  still_present_ids: string[];
}

export async function verifyGone(ctx: Context, check: PresenceCheck, ids: string[], what: string): Promise<Verification> {
  ctx.info(`verifying: asking the server whether the ${n(ids.length)} ${what} are gone…`);
  const present = ids.length ? await check(ids) : new Set<string>();
  const at = new Date(ctx.deps.now()).toISOString();
  if (present === null) return { status: 'unavailable', at, checked: 0, still_present: 0, still_present_ids: [] };
  const left = ids.filter((id) => present.has(id));
  if (left.length === 0) ctx.info(`✔ verified: none of the ${n(ids.length)} ${what} exists any more`);
  return {
    status: left.length ? 'still_present' : 'gone',
    at,
    checked: ids.length,
    still_present: left.length,
    still_present_ids: left.slice(0, LIST_CAP),
  };
}
