// The journal of `hogctl events delete`: the requests a selection makes, each with the
// `submission_id` it is sent with, written (0600, atomically) before the first request goes and
// after every answer. A retry or `--resume` sends the same submission ids, which PostHog answers
// with the request it already made (200), never a second one (posthog/data_deletion.py,
// `create_event_deletion_request`). Its name is a hash of the host, the project and the queries,
// so the same command finds it again (an erasure's sweep names its own by the erasure: its
// queries name the subject's distinct ids, so they are kept sealed under the evidence key,
// src/config/evidence-key.ts, never in clear).
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { configDir, ensurePrivateDir } from '../config/paths.js';
import { readSecretFile, writeSecretFile } from '../config/secret-file.js';
import { openText, requireEvidenceKey, sealText, type EvidenceKey } from '../config/evidence-key.js';

export interface JournaledRequest {
  /** In memory always; in the file only when the journal is not sealed. */
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
  /** The key its queries are sealed under in the file (an erasure's sweep); never written itself. */
  seal?: EvidenceKey;
}

/** The journal as its file holds it: a sealed one names its key and keeps `query_sealed`. */
type StoredJournal = Omit<DeletionJournal, 'seal' | 'requests'> & {
  sealed_with?: string;
  requests: (Omit<JournaledRequest, 'query'> & { query?: string; query_sealed?: string })[];
};

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

export function readDeletionJournal(path: string, env: NodeJS.ProcessEnv = {}): DeletionJournal | undefined {
  const text = readSecretFile(path);
  if (text === undefined) return undefined;
  let journal: DeletionJournal;
  try {
    journal = unsealed(JSON.parse(text) as StoredJournal, path, env);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`the journal ${path} is not JSON`, 'remove it to start over (requests it named may have been made)');
  }
  if (journal.kind !== 'events-delete' || !Array.isArray(journal.requests)) {
    throw new UsageError(`${path} is not a journal of \`hogctl events delete\``);
  }
  return journal;
}

export function writeDeletionJournal(path: string, journal: DeletionJournal): void {
  const { seal, ...rest } = journal;
  const stored: StoredJournal = seal
    ? {
        ...rest,
        sealed_with: seal.id,
        requests: rest.requests.map(({ query, ...r }) => ({ ...r, query_sealed: sealText(seal.seal, query) })),
      }
    : rest;
  writeSecretFile(path, `${JSON.stringify(stored, null, 2)}\n`);
}

/** A stored journal with its queries opened (a sealed one needs the evidence key it names). */
function unsealed(stored: StoredJournal, path: string, env: NodeJS.ProcessEnv): DeletionJournal {
  const { sealed_with: keyId, ...rest } = stored;
  if (keyId === undefined) return rest as DeletionJournal;
  const seal = requireEvidenceKey(env, keyId, `the journal ${path} keeps its queries sealed`);
  const requests: JournaledRequest[] = rest.requests.map(({ query_sealed, ...r }) => {
    const query = openText(seal.seal, query_sealed ?? '');
    if (query === undefined)
      throw new UsageError(
        `the journal ${path} holds a query that does not open with its evidence key`,
        'remove it to start over (requests it named may have been made)',
      );
    return { ...r, query };
  });
  return { ...rest, requests, seal } as DeletionJournal;
}

/** The requests no answer has confirmed yet. */
export function unanswered(journal: DeletionJournal): JournaledRequest[] {
  return journal.requests.filter((r) => r.id === undefined);
}
