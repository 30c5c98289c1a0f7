// Where a resumed update through capture sends each person's events. Capture addresses a person
// by a distinct id, and the first run recorded them before it sent anything; by a --resume they
// may name another person (an identify, a split, a merge since), whose properties the events
// would then change. So a resumed run reads the persons it has not updated yet again, as the
// first run read them, and addresses each by a distinct id that names it now.
import type { Context } from '../../../context.js';
import { batchPersons, PERSON_BATCH_MAX } from '../../../api/persons.js';
import type { ActionEnv } from '../../engine/action.js';
import type { JournalState } from '../../engine/journal-state.js';
import { withinBudget } from '../../engine/rate.js';

/**
 * The distinct id to send each person's events to, from those `recorded`: kept where it still
 * names the person, else one that does; a person no longer found is left out (nothing is sent
 * for it, and the read-back reports it). On a server without batch_by_uuids, as recorded.
 */
export async function currentDistinctIds(
  ctx: Context,
  env: ActionEnv,
  journal: JournalState,
  recorded: Map<string, string>,
): Promise<Map<string, string>> {
  if (!env.client) return recorded;
  const client = env.client;
  const done = journal.answeredIds();
  const current = new Map(recorded);
  for (const project of env.targets.projects) {
    const todo = Array.from(project.ids).filter((uuid) => !done.has(uuid));
    for (let i = 0; i < todo.length; i += PERSON_BATCH_MAX) {
      const batch = todo.slice(i, i + PERSON_BATCH_MAX);
      const found = await withinBudget(env.reads, ctx.deps.signal, () =>
        batchPersons(client, project.id, 'uuids', batch, { signal: ctx.deps.signal }),
      );
      if (found === null) return recorded;
      for (const uuid of batch) {
        const ids = found.get(uuid)?.distinct_ids ?? [];
        const was = recorded.get(uuid);
        if (ids.length === 0) current.delete(uuid);
        else current.set(uuid, was !== undefined && ids.includes(was) ? was : ids[0]);
      }
    }
  }
  return current;
}
