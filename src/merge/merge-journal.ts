// The journal of a merge (0600, one JSON record a line, appended): the header (the run's nonce and
// event time, so that events sent again are the same events), then every group as it was before
// the merge (each person's distinct ids and properties: what --undo gives back), then the batches
// as they are sent and accepted and the groups as the read-back finds them merged. A run stopped
// anywhere (Ctrl-C, a kill, a lost connection) is continued by --resume from what is recorded.
import { readFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { openSecretFile } from '../config/secret-file.js';
import { UsageError } from '../errors.js';
import type { LeftOut, PlannedGroup } from './plan-groups.js';

export const MERGE_JOURNAL = 'hogctl persons merge journal';

export interface MergeHeader {
  t: 'header';
  format: typeof MERGE_JOURNAL;
  nonce: string;
  /** The events' timestamp, the same on every run of the job. */
  timestamp: string;
  started_at: string;
  host: string;
  keep: string;
  property_rule: string;
  /** The receipt's path, so that --resume writes the same one. */
  receipt: string;
  /** Persons of the groups that are not merged, and why. */
  left_out?: LeftOut[];
  /** Set for the journal of an undo: the receipt it undoes. */
  undoes?: string;
}

export type MergeRecord =
  | MergeHeader
  | { t: 'group'; n: number; group: PlannedGroup }
  | { t: 'sending'; groups: number[] }
  | { t: 'accepted'; groups: number[] }
  | { t: 'merged'; groups: number[] };

export interface MergeJournalState {
  header: MergeHeader;
  groups: PlannedGroup[];
  accepted: Set<number>;
  merged: Set<number>;
}

export class MergeJournal {
  private constructor(
    readonly path: string,
    private readonly file: FileHandle,
  ) {}

  static async create(path: string): Promise<MergeJournal> {
    return new MergeJournal(path, await openSecretFile(path, 'create'));
  }

  static async append(path: string): Promise<MergeJournal> {
    return new MergeJournal(path, await openSecretFile(path, 'append'));
  }

  /** Each record is one write of a whole line, so a killed run leaves whole lines behind. */
  async write(...records: MergeRecord[]): Promise<void> {
    await this.file.write(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  }

  async close(): Promise<void> {
    await this.file.close();
  }
}

export async function readMergeJournal(path: string): Promise<MergeJournalState> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new UsageError(`no merge journal at ${path}`, 'run the command without --resume to start the merge');
  }
  let header: MergeHeader | undefined;
  const groups: PlannedGroup[] = [];
  const accepted = new Set<number>();
  const merged = new Set<number>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let record: MergeRecord;
    try {
      record = JSON.parse(line) as MergeRecord;
    } catch {
      // The last line of a killed run may be cut short: everything before it stands.
      continue;
    }
    if (record.t === 'header') header = record;
    else if (record.t === 'group') groups[record.n] = record.group;
    else if (record.t === 'accepted') for (const n of record.groups) accepted.add(n);
    else if (record.t === 'merged') for (const n of record.groups) merged.add(n);
  }
  if (!header || header.format !== MERGE_JOURNAL) throw new UsageError(`${path} is not the journal of a merge`);
  return { header, groups, accepted, merged };
}
