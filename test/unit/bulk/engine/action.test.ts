// The JobKind boundary: a kind the engine has never heard of keeps its own fields in the journal's
// header, is bound by them on --resume, reads its own answers, and adds its own counts, fields and
// notes to the receipt, all without the journal or the receipt knowing what they mean.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobKind } from '../../../../src/bulk/engine/action.js';
import { checkBinding, kindFieldsOf } from '../../../../src/bulk/engine/journal-binding.js';
import { readJournal } from '../../../../src/bulk/engine/journal-read.js';
import { type ChunkRecord, type JournalHeader } from '../../../../src/bulk/engine/journal-format.js';
import { buildReceipt, summaryRecord, type ReceiptPart } from '../../../../src/bulk/engine/receipt.js';
import type { IdList } from '../../../../src/bulk/input/validate.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hogctl-kind-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A made-up kind: it exports persons into a bundle, and its answers say which persons to ask again. */
const bundle = { bundle: { to: 'out.zip', include: ['events'] } };
const binding: JobKind['journal']['binding'] = {
  fields: bundle,
  describe: (f) => `--to ${(f.bundle as { to: string } | undefined)?.to ?? '?'}`,
};
const askAgain = (chunks: Iterable<ChunkRecord>) => {
  const again = new Map<string, string>();
  for (const c of chunks) for (const id of (c.answer?.summary as { later?: string[] } | null)?.later ?? []) again.set(id, c.project);
  return again;
};
const part: ReceiptPart = {
  tally: ({ answered, project }) => {
    const exported = answered.reduce((k, c) => k + ((c.answer?.summary as { exported?: number } | null)?.exported ?? 0), 0);
    return {
      counts: project ? { persons_exported: exported } : { persons_exported: exported, asked_again: askAgain(answered).size },
      notReported: [],
    };
  },
  fields: ({ counts }) => ({ bundle: { ...bundle.bundle, written: counts.persons_exported } }),
  verificationNote: 'the bundle was read back',
  notes: { unanswered: 'export unanswered', unclear: 'export unclear', lostAnswers: () => 'export lost' },
  incomplete: (r) => (r.counts.asked_again ?? 0) > 0,
  summary: (r) => ({ bundle_written: (r.bundle as { written: number }).written }),
};

const header: JournalHeader = {
  type: 'header',
  journal_format: 2,
  hogctl: '0.1.0',
  created_at: '2026-01-01T00:00:00.000Z',
  profile: null,
  host: 'https://eu.posthog.com',
  project: '42',
  id_kind: 'person_ids',
  command: 'persons export',
  input: { file: 'ids.txt', format: 'lines', column: null, ids: 3, id_list_sha256: 'a'.repeat(64), given: { kind: 'ids', flag: '--file' } },
  settings: {
    receipt: null,
    output: null,
    rate: [],
    concurrency: 1,
    retries: 0,
    max_wait_ms: 0,
    skip_invalid: false,
    backup: null,
    projects_flag: null,
    read_rate: 240,
    reference: null,
  },
  ...bundle,
};

const list: IdList = {
  kind: 'person_ids',
  format: 'lines',
  ids: ['a', 'b', 'c'],
  requested: 3,
  duplicates: 0,
  invalidCount: 0,
  invalid: [],
  integerCount: 0,
  sha256: 'a'.repeat(64),
};

describe('a kind the journal and the receipt do not know', () => {
  it('keeps its fields in the header, and is bound by them on --resume in its own words', async () => {
    const path = join(dir, 'j.ndjson');
    writeFileSync(path, `${JSON.stringify(header)}\n`);
    const state = await readJournal(path);
    expect(kindFieldsOf(state.header!)).toEqual(bundle);
    const now = {
      host: header.host,
      projects: ['42'],
      id_kind: header.id_kind,
      command: 'persons export',
      kind: binding,
      input: { file: 'ids.txt', ids: 3, id_list_sha256: 'a'.repeat(64) },
    };
    expect(() => checkBinding(path, state.header!, now)).not.toThrow();
    const other = { ...now, kind: { ...binding, fields: { bundle: { to: 'else.zip', include: ['events'] } } } };
    expect(() => checkBinding(path, state.header!, other)).toThrow(
      `journal ${path} was written with other flags (person ids --to out.zip); this run has person ids --to else.zip`,
    );
    expect(() => checkBinding(path, state.header!, { ...now, command: 'persons bulk-delete' })).toThrow(
      `journal ${path} is of \`hogctl persons export\`, not \`hogctl persons bulk-delete\``,
    );
  });

  it('reads its own answers: ids they ask to be sent again are not done', async () => {
    const path = join(dir, 'j.ndjson');
    const lines = [
      header,
      { type: 'sending', chunk: 1, run: 1, at: 't', ids: ['a', 'b'] },
      { type: 'answered', chunk: 1, at: 't', status: 200, attempts: 1, summary: { exported: 1, later: ['b'] } },
      { type: 'sending', chunk: 2, run: 1, at: 't', ids: ['c'] },
      { type: 'answered', chunk: 2, at: 't', status: 200, attempts: 1, summary: { exported: 1 } },
    ];
    writeFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const state = await readJournal(path, { sendAgain: askAgain });
    expect([...state.answeredIds()].sort()).toEqual(['a', 'c']);
    expect([...state.toSendAgain()]).toEqual([['b', '42']]);

    const receipt = buildReceipt(state, list, {
      command: 'persons export',
      status: 'completed',
      version: '0.1.0',
      startedAt: 'a',
      finishedAt: 'b',
      profile: null,
      host: header.host,
      project: '42',
      file: 'ids.txt',
      format: 'lines',
      column: null,
      kind: 'person_ids',
      sentIdKind: 'person_ids',
      part,
      skipInvalid: false,
      journal: path,
      receipt: null,
      targets: 3,
      unresolved: [],
      resolvedDuplicates: 0,
      verification: { status: 'read_back' },
    });
    expect(receipt.counts).toMatchObject({ sent: 3, persons_exported: 2, asked_again: 1 });
    expect(receipt.projects[0]).toMatchObject({ project: '42', sent: 3, persons_exported: 2 });
    expect(receipt.projects[0]).not.toHaveProperty('asked_again');
    expect(receipt.bundle).toEqual({ to: 'out.zip', include: ['events'], written: 2 });
    expect(receipt.verification).toEqual({ status: 'read_back', note: 'the bundle was read back' });
    // Answered, but not all done: the kind says so.
    expect(receipt.status).toBe('partial');
    expect(receipt).not.toHaveProperty('flags');
    expect(receipt).not.toHaveProperty('deletion_errors');
    expect(summaryRecord(receipt, part)).toMatchObject({ persons_exported: 2, bundle_written: 2, verification: 'read_back' });
  });
});
