// A bulk job's journal, which prepare.ts binds after the input and the projects. A new run takes
// a new journal; --resume takes the one it names, which must be for the same ids, host, project
// and flags. The journal is locked before it is read, so that two runs can never both act on
// what it says.
import { join } from 'node:path';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { configDir, ensurePrivateDir } from '../../config/paths.js';
import { checkBinding, type Binding } from './journal-binding.js';
import { defaultJournalPath, journalExists, readJournal } from './journal-read.js';
import { JournalState } from './journal-state.js';
import { type SendAgain } from './journal-format.js';
import { lockJournal } from './lock.js';
import { checkWritableDir } from './settings.js';
import type { Input } from '../input/input.js';
import { IdSet } from '../input/id-set.js';
import { counted } from '../../io/counts.js';

export interface BoundJournal {
  path: string;
  /** Where default journals live (<config dir>/journals). */
  dir: string;
  /** What earlier runs recorded; undefined for a new journal. */
  state?: JournalState;
  /** When the recorded run completed, if its last run did. */
  completedAt?: string;
  /** The input's ids, which the journal keeps its requests as places in (packed-ids.ts). */
  list?: IdSet;
}

export interface JournalSettings {
  journal?: string;
  resume?: boolean;
  dryRun?: boolean;
}

/** `sendAgain`: how the kind's answers name ids still to do (journal.ts). */
export async function bindJournal(
  ctx: Context,
  s: JournalSettings,
  binding: Binding,
  input: Input,
  sendAgain?: SendAgain,
): Promise<BoundJournal> {
  const journalsDir = join(configDir(ctx.env), 'journals');
  const journalPath = s.journal ?? defaultJournalPath(journalsDir, { path: input.path, idListSha256: input.list.sha256, stem: input.stem });
  let state: JournalState | undefined;
  const list = input.list.ids instanceof IdSet ? input.list.ids : undefined;
  if (!s.dryRun) {
    // Taken before the journal is read, so that two runs can never both act on what it says.
    if (s.journal) await checkWritableDir(s.journal, '--journal');
    else ensurePrivateDir(journalsDir);
    const lock = await lockJournal(journalPath, ctx.clock.now);
    ctx.onClose(() => lock.release());
  }
  if (s.resume) {
    if (!journalExists(journalPath)) {
      throw new UsageError(
        `nothing to resume: there is no journal at ${journalPath}`,
        s.journal ? 'check the --journal path' : 'run without --resume to start, or pass the --journal of the run to continue',
      );
    }
    state = await readJournal(journalPath, { list, sendAgain });
    checkBinding(journalPath, state.header!, binding);
  } else if (journalExists(journalPath) && !s.dryRun) {
    let what = '';
    let old: JournalState | undefined;
    try {
      old = await readJournal(journalPath, { list, sendAgain });
      const answered = [...old.chunks.values()].filter((c) => c.answer).length;
      what = ` (a run started ${old.header!.created_at}; ${counted(answered, 'request')} answered)`;
    } catch {
      // Described without details; the refusal is what matters.
    }
    // Started again after it completed: say so, rather than refuse or send anything.
    const last = old?.runs[old.runs.length - 1];
    if (!old || last?.stopped?.reason !== 'completed') {
      throw new UsageError(
        `a journal already exists at ${journalPath}${what}`,
        'pass --resume to continue that run, or --journal <new path> to start a new one',
      );
    }
    checkBinding(journalPath, old.header!, binding);
    state = old;
  }
  const completedAt =
    state?.runs[state.runs.length - 1]?.stopped?.reason === 'completed' ? state.runs[state.runs.length - 1].stopped!.at : undefined;
  return { path: journalPath, dir: journalsDir, state, completedAt, list };
}
