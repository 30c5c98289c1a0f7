// Finding and reading a journal: its default path, the whole file replayed into a JournalState,
// or its header alone.
import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { basename, resolve as resolvePath } from 'node:path';
import { createHash } from 'node:crypto';
import { UsageError } from '../../errors.js';
import type { IdSet } from '../input/id-set.js';
import { checkJournalFormat, type JournalHeader, type JournalRecord, type SendAgain } from './journal-format.js';
import { JournalState } from './journal-state.js';

/** The default journal: named after the input, in `<config dir>/journals/`. */
export function defaultJournalPath(journalsDir: string, input: { path?: string; idListSha256: string; stem?: string }): string {
  // Without a file to name it after (standard input, --email, a selection), the input's hash does.
  if (!input.path) return resolvePath(journalsDir, `${input.stem ?? 'stdin'}-${input.idListSha256.slice(0, 12)}.ndjson`);
  const absolute = resolvePath(input.path);
  const tag = createHash('sha256').update(absolute).digest('hex').slice(0, 8);
  const name = basename(absolute).replace(/[^A-Za-z0-9._-]/g, '_');
  return resolvePath(journalsDir, `${name}-${tag}.ndjson`);
}

export function journalExists(path: string): boolean {
  return existsSync(path);
}

/**
 * Reads a journal. A last line cut short by a crash is expected and ignored (its chunk is simply
 * not answered); a broken line anywhere else means the file was edited or damaged. The ids of
 * its requests are kept packed (packed-ids.ts), as places in `list` (the input's ids) where they
 * are in it, not as the strings of the lines.
 */
export async function readJournal(path: string, o: { list?: IdSet; sendAgain?: SendAgain } = {}): Promise<JournalState> {
  const state = new JournalState(o.sendAgain, o.list);
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let previous: { text: string; number: number } | undefined;
  let number = 0;
  const applyLine = (text: string, n: number, last: boolean) => {
    if (text.trim() === '') return;
    let record: JournalRecord;
    try {
      record = JSON.parse(text) as JournalRecord;
    } catch {
      if (last) return;
      throw new UsageError(
        `journal ${path} is damaged at line ${n}: not a JSON line`,
        'restore it, or start afresh with another --journal (the ids of answered chunks would then be sent again, which is harmless)',
      );
    }
    if (n === 1 && record.type !== 'header')
      throw new UsageError(
        `${path} is not a hogctl bulk job journal (no header line)`,
        'pass the journal a previous run wrote, or another --journal',
      );
    state.apply(record);
  };
  try {
    for await (const text of lines) {
      number++;
      if (previous) applyLine(previous.text, previous.number, false);
      previous = { text, number };
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read the journal ${path}: ${(err as Error).message}`);
  }
  if (previous) applyLine(previous.text, previous.number, true);
  if (!state.header)
    throw new UsageError(
      `${path} is not a hogctl bulk job journal (no header line)`,
      'pass the journal a previous run wrote, or another --journal',
    );
  checkJournalFormat(path, state.header);
  return state;
}

/** The first line of a journal, or undefined when it is not one (readJournal says why later). */
export async function readJournalHeader(path: string): Promise<JournalHeader | undefined> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8', end: 1 << 20 }), crlfDelay: Infinity });
  try {
    for await (const text of lines) {
      const record = JSON.parse(text) as JournalRecord;
      return record.type === 'header' ? record : undefined;
    }
  } catch {
    return undefined;
  } finally {
    lines.close();
  }
  return undefined;
}
