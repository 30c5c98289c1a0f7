// Ids whose answer was lost. A request that timed out, lost its connection, met a 502/504, or
// was on its way when the run was killed may have deleted its persons; sent again, those persons
// are "not found", so no answer would ever count them. Before such ids go out again, the server
// is asked which of them still name a person (batch_by_uuids or batch_by_distinct_ids, 200 a
// call, within the read rate): the others are recorded as gone, and only the present ones are
// sent again. That keeps the receipt equal to what the server did.
import { personsPresent, PERSON_BATCH_MAX } from '../../api/persons.js';
import { ApiError, AuthError, CliError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import { withinBudget, type RateBudget } from './rate.js';
import type { IdKind } from '../input/validate.js';
import type { Ids } from '../input/id-set.js';

/** The ids (of those given, in that project) that still name a person, or null when the server could not say. */
export type PresenceCheck = (ids: Ids, project: string) => Promise<Set<string> | null>;

export interface PresenceCheckSettings {
  client: ApiClient;
  kind: IdKind;
  /** Reads have their own limit (240 a minute with a personal key); the check keeps to it. */
  budget: RateBudget;
  signal?: AbortSignal;
  /** Told once why checks are not possible (an older server, a key without person:read, ...). */
  unavailable(why: string): void;
}

export function presenceCheck(s: PresenceCheckSettings): PresenceCheck {
  let gaveUp = false;
  return async (ids, project) => {
    if (gaveUp) return null;
    const present = new Set<string>();
    for (let i = 0; i < ids.length; i += PERSON_BATCH_MAX) {
      const found = await withinBudget(s.budget, s.signal, async (): Promise<Set<string> | null | 'unchecked'> => {
        try {
          return await personsPresent(
            s.client,
            project,
            s.kind === 'distinct_ids' ? 'distinct_ids' : 'uuids',
            ids.slice(i, i + PERSON_BATCH_MAX),
            { signal: s.signal },
          );
        } catch (err) {
          if (!(err instanceof CliError) || s.signal?.aborted) throw err;
          // A key the server refuses outright is refused everywhere (exit 4), not a check that
          // could not be made: the run must not end as if it had checked.
          if (err instanceof ApiError && err.status === 401) throw err;
          if (err instanceof AuthError || (err instanceof ApiError && err.status === 403)) {
            gaveUp = true;
            s.unavailable(`the key may not read persons: ${err.message}`);
          }
          return 'unchecked';
        }
      });
      // One failed check (after the client's own retries) leaves these ids unchecked; the next
      // lost answer tries again.
      if (found === 'unchecked') return null;
      if (found === null) {
        gaveUp = true;
        s.unavailable('this server has no batch_by_uuids/batch_by_distinct_ids endpoint (an older PostHog)');
        return null;
      }
      for (const id of found) present.add(id);
    }
    return present;
  };
}
