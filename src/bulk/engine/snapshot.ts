// Before the first deletion: what the persons were. Their distinct ids go into the journal (and
// from there into the receipt), so that `persons erasure-status` can later check that none of
// them names a person again; a distinct id that looks like an e-mail address is kept by its
// keyed hash like the addresses of the request. With --backup, the records themselves go to a
// file (NDJSON, one person a line with its project), for clean-ups that may need undoing; an
// erasure should keep none, since the point is that the data is gone.
//
// The records come from batch_by_uuids (200 a request, within the read rate); a record with ten
// distinct ids may have more (minimal records stop there), so that person is read whole.
import { existsSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { Context } from '../../context.js';
import { CancelledError, UsageError } from '../../errors.js';
import { openSecretFile, fileError } from '../../config/secret-file.js';
import { batchPersons, getPerson, PERSON_BATCH_MAX, type ListedPerson } from '../../api/persons.js';
import type { ApiClient } from '../../http/client.js';
import { recordedDistinctId, type IdentifierPolicy } from '../input/identifiers.js';
import type { JournalRecord } from './journal-format.js';
import type { JournalState } from './journal-state.js';
import { withinBudget, type RateBudget } from './rate.js';
import { checkWritableDir } from './settings.js';
import type { Ids } from '../input/id-set.js';
import { counted } from '../../io/counts.js';

export interface SnapshotProject {
  id: string;
  /** The persons the job will act on. */
  ids: Ids;
}

export interface SnapshotSettings {
  policy: IdentifierPolicy;
  /** The read budget of the job. */
  reads: RateBudget;
  /** --backup <file>; a resumed run appends to the backup it started. */
  backup?: string;
  /** What the job does to persons, in its messages: "deleted", "changed" (JobKind.words.done). */
  done: string;
}

/** Refuses a --backup path that cannot be used, before anything is sent: a new run never
 * overwrites a file, a resumed one goes on with the backup it started. */
export async function checkBackup(path: string, resume: boolean): Promise<void> {
  if (!resume && existsSync(path))
    throw new UsageError(`the backup ${path} already exists`, 'move it away or pass another --backup path; nothing was sent');
  await checkWritableDir(path, '--backup');
}

async function openBackup(path: string): Promise<FileHandle> {
  try {
    return await openSecretFile(path, existsSync(path) ? 'append' : 'create');
  } catch (err) {
    throw fileError(err, path, 'create');
  }
}

export async function takeSnapshot(
  ctx: Context,
  client: ApiClient,
  projects: SnapshotProject[],
  journal: JournalState,
  append: (record: JournalRecord) => Promise<void>,
  s: SnapshotSettings,
): Promise<void> {
  const todo = projects.map((p) => ({
    id: p.id,
    ids: Array.from(p.ids).filter((id) => (s.backup ? !journal.backedUp.has(id) : !journal.recorded.get(p.id)?.has(id))),
  }));
  const total = todo.reduce((k, p) => k + p.ids.length, 0);
  if (total === 0) return;
  ctx.info(
    s.backup
      ? `backing up ${counted(total, 'person')} to ${s.backup} before anything is ${s.done}…`
      : `recording the distinct ids of ${counted(total, 'person')} for the receipt…`,
  );
  const backup = s.backup ? await openBackup(s.backup) : undefined;
  const budget = s.reads;
  const read = <T>(send: () => Promise<T>): Promise<T> =>
    withinBudget(budget, ctx.deps.signal, send, () => new CancelledError(`cancelled before anything was ${s.done}`));
  try {
    for (const project of todo) {
      for (let i = 0; i < project.ids.length; i += PERSON_BATCH_MAX) {
        const batch = project.ids.slice(i, i + PERSON_BATCH_MAX);
        const found = await read(() => batchPersons(client, project.id, 'uuids', batch, { signal: ctx.deps.signal }));
        if (found === null) {
          throw new UsageError(
            `this server has no /persons/batch_by_uuids/ endpoint (an older PostHog), so the persons cannot be read before they are ${s.done}`,
            s.backup
              ? 'drop --backup, or export the persons first with `hogctl persons list --all -o ndjson`'
              : 'run without looking the persons up',
          );
        }
        const persons: Record<string, string[]> = {};
        const lines: string[] = [];
        for (const uuid of batch) {
          let person: ListedPerson | undefined = found.get(uuid);
          if (person && (person.distinct_ids?.length ?? 0) >= 10) {
            const whole = await read(() => getPerson(client, project.id, uuid).catch(() => undefined));
            if (whole) person = { ...person, distinct_ids: whole.distinct_ids };
          }
          persons[uuid] = (person?.distinct_ids ?? []).map((d) => recordedDistinctId(d, s.policy));
          if (person && backup) lines.push(`${JSON.stringify({ project: project.id, ...person })}\n`);
        }
        if (backup && lines.length) {
          try {
            await backup.appendFile(lines.join(''));
            await backup.datasync();
          } catch (err) {
            throw fileError(err, s.backup!, 'write');
          }
        }
        // Journaled after the backup holds them: a crash in between writes them twice, never none.
        await append({ type: 'recorded', project: project.id, persons, ...(backup ? { backed_up: true } : {}) });
      }
    }
  } finally {
    await backup?.close();
  }
}
