// The journal of `hogctl events delete`: the requests a selection makes, each with the
// `submission_id` it is sent with, written (0600, atomically) before the first request goes and
// after every answer. A retry or `--resume` sends the same submission ids, which PostHog answers
// with the request it already made (200), never a second one (posthog/data_deletion.py,
// `create_event_deletion_request`). Its name is a hash of the host, the project and the queries,
// so the same command finds it again.
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { configDir, ensurePrivateDir } from '../config/paths.js';
import { readSecretFile, writeSecretFile } from '../config/secret-file.js';

export interface JournaledRequest {
  query: string;
  submission_id: string;
  /** When it was last sent; an unanswered send may have been carried out. */
  sent_at?: string;
  /** The server's answer: its id and status, once one came. */
  id?: string;
  status?: string;
  answered_at?: string;
}

export interface DeletionJournal {
  format: 1;
  kind: 'events-delete';
  host: string;
  project: string;
  created_at: string;
  /** The selection's count when the run was confirmed (null: not known). */
  count: number | null;
  requests: JournaledRequest[];
}

export function deletionJournalPath(env: NodeJS.ProcessEnv, host: string, project: string, queries: string[]): string {
  const dir = ensurePrivateDir(join(configDir(env), 'journals'));
  const hash = createHash('sha256')
    .update(JSON.stringify([host, project, queries]))
    .digest('hex')
    .slice(0, 16);
  return join(dir, `events-delete-${hash}.json`);
}

export function newDeletionJournal(host: string, project: string, queries: string[], count: number | null, now: number): DeletionJournal {
  const requests = queries.map((query) => ({ query, submission_id: randomUUID() }));
  return { format: 1, kind: 'events-delete', host, project, created_at: new Date(now).toISOString(), count, requests };
}

export function readDeletionJournal(path: string): DeletionJournal | undefined {
  const text = readSecretFile(path);
  if (text === undefined) return undefined;
  let journal: DeletionJournal;
  try {
    journal = JSON.parse(text) as DeletionJournal;
  } catch {
    throw new UsageError(`the journal ${path} is not JSON`, 'remove it to start over (requests it named may have been made)');
  }
  if (journal.kind !== 'events-delete' || !Array.isArray(journal.requests)) {
    throw new UsageError(`${path} is not a journal of \`hogctl events delete\``);
  }
  return journal;
}

export function writeDeletionJournal(path: string, journal: DeletionJournal): void {
  writeSecretFile(path, `${JSON.stringify(journal, null, 2)}\n`);
}

/** The requests no answer has confirmed yet. */
export function unanswered(journal: DeletionJournal): JournaledRequest[] {
  return journal.requests.filter((r) => r.id === undefined);
}
