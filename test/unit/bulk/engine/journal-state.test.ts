// The journal (durable appends, crash-tolerant reading, binding to the input and flags), the
// receipt built from it, and the request/answer mapping of one chunk.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkBinding } from '../../../../src/bulk/engine/journal-binding.js';
import { defaultJournalPath, readJournal } from '../../../../src/bulk/engine/journal-read.js';
import { JournalState } from '../../../../src/bulk/engine/journal-state.js';
import { JournalWriter } from '../../../../src/bulk/engine/journal-write.js';
import { type JournalHeader } from '../../../../src/bulk/engine/journal-format.js';
import { PackedIds } from '../../../../src/bulk/input/packed-ids.js';
import { IdSet } from '../../../../src/bulk/input/id-set.js';
import { buildReceipt, summaryRecord, type ReceiptMeta } from '../../../../src/bulk/engine/receipt.js';
import { requestBody, sender } from '../../../../src/bulk/kinds/delete/send.js';
import { deleteKind } from '../../../../src/bulk/kinds/delete/delete-persons.js';
import { openDeletionErrors } from '../../../../src/bulk/kinds/delete/delete-receipt.js';
import type { IdList } from '../../../../src/bulk/input/validate.js';
import { FakeApi, makeClient, ORIGIN, rejection } from '../../helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hogctl-journal-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const flags = { delete_events: false, delete_recordings: false, keep_person: false };
const header: JournalHeader = {
  type: 'header',
  journal_format: 2,
  hogctl: '0.1.0',
  created_at: '2026-01-01T00:00:00.000Z',
  profile: 'prod',
  host: 'https://eu.posthog.com',
  project: '42',
  id_kind: 'person_ids',
  flags,
  command: 'persons bulk-delete',
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
};

describe('journal', () => {
  it('appends durably, and reads back every chunk and its answer', async () => {
    const path = join(dir, 'j.ndjson');
    const writer = await JournalWriter.open(path, 'create');
    // Concurrent appends share writes but keep their order.
    await Promise.all([
      writer.append(header),
      writer.append({ type: 'run', run: 1, at: 't0', resume: false }),
      writer.append({ type: 'resolved', ids: { '7': 'u7', '8': null } }),
      writer.append({ type: 'sending', chunk: 1, run: 1, at: 't1', ids: ['u1', 'u2'] }),
      writer.append({ type: 'sending', chunk: 2, run: 1, at: 't1', ids: ['u7'] }),
    ]);
    await writer.append({
      type: 'answered',
      chunk: 1,
      at: 't2',
      status: 202,
      attempts: 1,
      summary: { persons_found: 2, persons_deleted: 2 },
    });
    await writer.append({ type: 'failed', chunk: 2, at: 't3', attempts: 9, status: 500, error: 'boom' });
    await writer.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).not.toMatch(/phx_/);

    const state = await readJournal(path);
    expect(state.header).toEqual(header);
    expect(state.runs).toEqual([{ run: 1, at: 't0', resume: false }]);
    expect([...state.resolved]).toEqual([
      ['7', 'u7'],
      ['8', null],
    ]);
    expect(state.maxChunk).toBe(2);
    expect(state.chunks.get(1)?.answer?.summary).toEqual({ persons_found: 2, persons_deleted: 2 });
    expect(state.chunks.get(2)?.failure?.error).toBe('boom');
    expect([...state.answeredIds()]).toEqual(['u1', 'u2']);
  });

  it('refuses to create over an existing journal', async () => {
    const path = join(dir, 'j.ndjson');
    writeFileSync(path, `${JSON.stringify(header)}\n`);
    const err = await rejection(() => JournalWriter.open(path, 'create'));
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(`journal ${path} already exists`);
  });

  it('ignores a last line cut short by a crash, and appends after it on a new line', async () => {
    const path = join(dir, 'j.ndjson');
    writeFileSync(
      path,
      `${JSON.stringify(header)}\n${JSON.stringify({ type: 'sending', chunk: 1, run: 1, at: 't', ids: ['u1'] })}\n{"type":"answ`,
    );
    const state = await readJournal(path);
    expect(state.chunks.get(1)?.answer).toBeUndefined();
    const writer = await JournalWriter.open(path, 'append');
    await writer.append({ type: 'answered', chunk: 1, at: 't', status: 202, attempts: 1, summary: null });
    await writer.close();
    const again = await readJournal(path);
    expect(again.chunks.get(1)?.answer?.status).toBe(202);
  });

  it('cuts a torn last line longer than the blocks it reads the end by, and leaves a whole journal as it is', async () => {
    const path = join(dir, 'j.ndjson');
    const whole = `${JSON.stringify(header)}\n${JSON.stringify({ type: 'sending', chunk: 1, run: 1, at: 't', ids: ['u1'] })}\n`;
    const torn = `{"type":"sending","chunk":2,"run":1,"at":"t","ids":[${Array.from({ length: 5000 }, () => `"${'f'.repeat(36)}"`).join(',')}`;
    expect(torn.length).toBeGreaterThan(150_000);
    writeFileSync(path, whole + torn);
    await (await JournalWriter.open(path, 'append')).close();
    expect(readFileSync(path, 'utf8')).toBe(whole);
    await (await JournalWriter.open(path, 'append')).close();
    expect(readFileSync(path, 'utf8')).toBe(whole);
  });

  it('names the answered ids of the input by their places in it, kept or found', () => {
    const uuids = Array.from({ length: 4 }, (_, i) => `0190ffff-0000-7000-8000-00000000000${i}`);
    const list = new IdSet(uuids);
    const state = new JournalState(undefined, list);
    const send = (chunk: number, ids: string[]) => state.apply({ type: 'sending', chunk, run: 1, at: 't', ids });
    const answer = (chunk: number) => state.apply({ type: 'answered', chunk, at: 't', status: 202, attempts: 1, summary: null });
    send(1, [uuids[2], uuids[3]]);
    answer(1);
    send(2, [uuids[0], '0190ffff-0000-7000-8000-0000000000ff']);
    answer(2);
    send(3, [uuids[1]]);
    const places: number[] = [];
    state.eachAnsweredIn(list, (at) => places.push(at));
    expect(places.sort()).toEqual([0, 2, 3]);
  });

  it('keeps the ids of its chunks packed, and gives them back as they were written', async () => {
    const path = join(dir, 'j.ndjson');
    const uuids = ['0190ffff-0000-7000-8000-000000000001', '0190ffff-0000-7000-8000-0000000000ab'];
    const others = ['0190FFFF-0000-7000-8000-000000000001', 'd1'];
    const line = (chunk: number, ids: string[]) => JSON.stringify({ type: 'sending', chunk, run: 1, at: 't', ids });
    writeFileSync(path, `${JSON.stringify(header)}\n${line(1, uuids)}\n${line(2, others)}\n`);
    const state = await readJournal(path);
    expect(state.chunks.get(1)?.ids).toBeInstanceOf(PackedIds);
    expect([...state.chunks.get(1)!.ids]).toEqual(uuids);
    expect([...state.chunks.get(2)!.ids]).toEqual(others);
    expect(JSON.parse(JSON.stringify(state.chunks.get(1)!.ids))).toEqual(uuids);
    // Read against the input's list, a request cut from it is kept as its places there.
    const list = new IdSet(['0190ffff-0000-7000-8000-0000000000ff', ...uuids]);
    const placed = await readJournal(path, { list });
    expect([1, 2].map((i) => placed.chunks.get(1)!.ids.placeIn(list, i - 1))).toEqual([1, 2]);
    expect([...placed.chunks.get(1)!.ids]).toEqual(uuids);
    expect(placed.chunks.get(2)!.ids.placeIn(list, 0)).toBe(-1);
  });

  it('lists each id of the lost answers once, though two lost requests carried it', () => {
    // A request whose answer was lost, found present when checked and sent again in a request
    // whose answer was lost too: both are lost, and one check of the id tells the fate of both
    // (two would journal it found gone twice).
    const state = new JournalState();
    state.apply(header);
    state.apply({ type: 'sending', chunk: 1, run: 1, at: 't', ids: ['a', 'b', 'c'] });
    state.apply({ type: 'checked', chunk: 1, at: 't', gone: ['a'], present: 2 });
    state.apply({ type: 'sending', chunk: 2, run: 2, at: 't', ids: ['b', 'c'] });
    expect(state.lostAnswerIds()).toEqual([{ chunk: 1, project: '42', ids: ['b', 'c'] }]);
  });

  it('refuses a journal damaged in the middle, or one that is not a journal', async () => {
    const path = join(dir, 'j.ndjson');
    writeFileSync(path, `${JSON.stringify(header)}\n{oops\n${JSON.stringify({ type: 'run', run: 1, at: 't', resume: false })}\n`);
    expect((await rejection(() => readJournal(path))).message).toBe(`journal ${path} is damaged at line 2: not a JSON line`);
    writeFileSync(path, '{"type":"run"}\n');
    expect((await rejection(() => readJournal(path))).message).toBe(`${path} is not a hogctl bulk job journal (no header line)`);
  });

  it('is bound to host, project, ids and flags', () => {
    const same = {
      host: header.host,
      projects: [header.project],
      id_kind: header.id_kind,
      command: 'persons bulk-delete',
      kind: deleteKind(flags).journal.binding,
      input: { file: 'ids.txt', ids: 3, id_list_sha256: 'a'.repeat(64) },
    };
    expect(() => checkBinding('j', header, same)).not.toThrow();
    const other = (change: object) => {
      try {
        checkBinding('j', header, { ...same, ...change });
      } catch (err) {
        return (err as Error).message;
      }
      return 'accepted';
    };
    expect(other({ input: { file: 'other.txt', ids: 5, id_list_sha256: 'b'.repeat(64) } })).toBe(
      'journal j was written for another input: ids.txt with 3 ids (sha256 aaaaaaaaaaaa…), but other.txt has 5 ids (sha256 bbbbbbbbbbbb…)',
    );
    expect(other({ kind: deleteKind({ ...flags, delete_events: true }).journal.binding })).toBe(
      'journal j was written with other flags (person ids); this run has person ids --delete-events',
    );
    expect(other({ id_kind: 'distinct_ids' })).toBe('journal j was written with other flags (person ids); this run has --distinct-ids');
    expect(other({ projects: ['43'] })).toBe(
      'journal j belongs to project 42 on https://eu.posthog.com, not project 43 on https://eu.posthog.com',
    );
    expect(other({ projects: ['42', '43'] })).toBe(
      'journal j belongs to project 42 on https://eu.posthog.com, not projects 42 and 43 on https://eu.posthog.com',
    );
  });

  it('is named after the input in the journals directory', () => {
    const a = defaultJournalPath('/cfg/journals', { path: 'data/GDPR batch.txt', idListSha256: 'f'.repeat(64) });
    expect(a).toMatch(/^\/cfg\/journals\/GDPR_batch\.txt-[0-9a-f]{8}\.ndjson$/);
    expect(defaultJournalPath('/cfg/journals', { path: 'other/GDPR batch.txt', idListSha256: 'f'.repeat(64) })).not.toBe(a);
    expect(defaultJournalPath('/cfg/journals', { idListSha256: 'c'.repeat(64) })).toBe(`/cfg/journals/stdin-${'c'.repeat(12)}.ndjson`);
  });
});

function list(ids: string[], extra: Partial<IdList> = {}): IdList {
  return {
    kind: 'person_ids',
    format: 'lines',
    ids,
    requested: ids.length,
    duplicates: 0,
    invalidCount: 0,
    invalid: [],
    integerCount: 0,
    sha256: 's',
    ...extra,
  };
}

function meta(extra: Partial<ReceiptMeta> = {}): ReceiptMeta {
  return {
    command: 'persons bulk-delete',
    sentIdKind: 'person_ids',
    status: 'completed',
    version: '0.1.0',
    startedAt: 'a',
    finishedAt: 'b',
    profile: null,
    host: 'h',
    project: '1',
    file: 'ids.txt',
    format: 'lines',
    column: null,
    kind: 'person_ids',
    part: deleteKind(flags).receipt,
    skipInvalid: false,
    journal: 'j',
    receipt: 'r',
    targets: 0,
    unresolved: [],
    resolvedDuplicates: 0,
    ...extra,
  };
}

describe('receipt', () => {
  it('sums the answers of every run, and lists only the failures no later run fixed', () => {
    const state = new JournalState();
    state.apply(header);
    state.apply({ type: 'sending', chunk: 1, run: 1, at: 't', ids: ['a', 'b'] });
    state.apply({
      type: 'answered',
      chunk: 1,
      at: 't',
      status: 202,
      attempts: 1,
      summary: { persons_found: 2, persons_deleted: 2, events_queued_for_deletion: true, deletion_errors: [] },
    });
    state.apply({ type: 'sending', chunk: 2, run: 1, at: 't', ids: ['c', 'd'] });
    state.apply({ type: 'failed', chunk: 2, at: 't', attempts: 9, status: 500, error: 'first' });
    state.apply({ type: 'sending', chunk: 3, run: 2, at: 't', ids: ['c'] });
    state.apply({
      type: 'answered',
      chunk: 3,
      at: 't',
      status: 202,
      attempts: 1,
      summary: {
        persons_found: 1,
        persons_deleted: 0,
        persons_queued_for_deletion: 1,
        events_queued_for_deletion: true,
        deletion_errors: [{ person_uuid: 'c' }],
      },
    });
    state.apply({ type: 'sending', chunk: 4, run: 2, at: 't', ids: ['d'] });
    state.apply({ type: 'failed', chunk: 4, at: 't2', attempts: 3, status: null, error: 'dropped' });
    const r = buildReceipt(state, list(['a', 'b', 'c', 'd', 'e']), meta({ targets: 5, status: 'partial' }));
    expect(r.counts).toMatchObject({
      requested: 5,
      unique: 5,
      sent: 3,
      failed: 1,
      not_sent: 1,
      persons_found: 3,
      persons_deleted: 2,
      persons_queued_for_deletion: 1,
      events_queued_for_deletion: 3,
      deletion_errors: 1,
    });
    expect(r.failed_chunks).toEqual([{ chunk: 4, ids: ['d'], attempts: 3, status: null, last_error: 'dropped', at: 't2' }]);
    expect(r.deletion_errors).toEqual([{ person_uuid: 'c' }]);
    expect(r.not_reported).toEqual([
      { count: 'recordings_queued_for_deletion', chunks: 2, ids: 3, why: "the server's answer had no recordings_queued_for_deletion" },
    ]);
  });

  it('names the requests an attempt may have carried out unseen (their persons are not counted)', () => {
    const state = new JournalState();
    state.apply(header);
    state.apply({ type: 'sending', chunk: 1, run: 1, at: 't', ids: ['a', 'b'] });
    state.apply({
      type: 'answered',
      chunk: 1,
      at: 't',
      status: 202,
      attempts: 2,
      unclear: 1,
      summary: { persons_found: 0, persons_deleted: 0 },
    });
    state.apply({ type: 'sending', chunk: 2, run: 1, at: 't', ids: ['c'] });
    state.apply({ type: 'failed', chunk: 2, at: 't', attempts: 2, status: null, error: 'timed out', unclear: 2 });
    state.apply({ type: 'sending', chunk: 3, run: 2, at: 't', ids: ['c'] });
    state.apply({ type: 'answered', chunk: 3, at: 't', status: 202, attempts: 1, summary: { persons_found: 0, persons_deleted: 0 } });
    state.apply({ type: 'sending', chunk: 4, run: 2, at: 't', ids: ['d'] });
    state.apply({ type: 'answered', chunk: 4, at: 't', status: 202, attempts: 3, summary: { persons_found: 1, persons_deleted: 1 } });
    const r = buildReceipt(state, list(['a', 'b', 'c', 'd']), meta({ targets: 4 }));
    expect(r.counts).toMatchObject({ sent: 4, failed: 0, persons_deleted: 1 });
    expect(r.unclear_requests).toMatchObject({ chunks: 2, ids: 3 });
    expect(r.unclear_requests!.note).toMatch(/not counted in persons_found or persons_deleted/);
    // Journals of older versions have no such field: nothing to say.
    const before = new JournalState();
    before.apply(header);
    before.apply({ type: 'sending', chunk: 1, run: 1, at: 't', ids: ['a'] });
    before.apply({ type: 'answered', chunk: 1, at: 't', status: 202, attempts: 4, summary: null });
    expect(buildReceipt(before, list(['a']), meta({ targets: 1 })).unclear_requests).toBeNull();
  });

  it('no longer calls a request unclear once a later run checked its ids', () => {
    // Its attempts timed out and the check after them could not be made; the next run checked:
    // a gone (that request deleted it), b present, sent again and deleted.
    const state = new JournalState();
    state.apply(header);
    state.apply({ type: 'sending', chunk: 1, run: 1, at: 't', ids: ['a', 'b'] });
    state.apply({ type: 'failed', chunk: 1, at: 't', attempts: 9, status: null, error: 'timed out', unclear: 9 });
    expect(state.lostAnswerIds()).toEqual([{ chunk: 1, project: '42', ids: ['a', 'b'] }]);
    state.apply({ type: 'checked', chunk: 1, at: 't', gone: ['a'], present: 1 });
    expect(state.lostAnswerIds()).toEqual([]);
    state.apply({ type: 'sending', chunk: 2, run: 2, at: 't', ids: ['b'] });
    state.apply({ type: 'answered', chunk: 2, at: 't', status: 202, attempts: 1, summary: { persons_found: 1, persons_deleted: 1 } });
    const r = buildReceipt(state, list(['a', 'b']), meta({ targets: 2 }));
    expect(r.counts).toMatchObject({ sent: 2, failed: 0, unconfirmed: 0 });
    expect(r.unclear_requests).toBeNull();
    expect(r.lost_answers).toMatchObject({ gone: 1 });
  });

  it('counts a person found gone after a lost resend as deleted, not found a second time', () => {
    // Persons looked up first; b came back in deletion_errors, and the request that sent it again
    // lost its answer after the server deleted b: the check found it gone.
    const state = new JournalState(openDeletionErrors);
    state.apply(header);
    state.apply({ type: 'sending', chunk: 1, run: 1, at: 't', ids: ['a', 'b'] });
    const withErrorOnB = { persons_found: 2, persons_deleted: 1, deletion_errors: [{ person_uuid: 'b' }] };
    state.apply({ type: 'answered', chunk: 1, at: 't', status: 202, attempts: 1, summary: withErrorOnB });
    state.apply({ type: 'sending', chunk: 2, run: 1, at: 't', ids: ['b'], resend: true });
    state.apply({ type: 'checked', chunk: 2, at: 't', gone: ['b'], present: 0 });
    expect([...state.toSendAgain().keys()]).toEqual([]);
    expect(state.lostAnswerIds()).toEqual([]);
    const r = buildReceipt(state, list(['a', 'b']), meta({ targets: 2, sentIdKind: 'person_uuids' }));
    expect(r.counts).toMatchObject({ persons_found: 2, persons_deleted: 2, deletion_errors: 0 });
  });

  it('says which counts an empty answer (older servers) did not report, instead of guessing', () => {
    const state = new JournalState();
    state.apply(header);
    state.apply({ type: 'sending', chunk: 1, run: 1, at: 't', ids: ['a', 'b'] });
    state.apply({ type: 'answered', chunk: 1, at: 't', status: 202, attempts: 1, summary: null });
    const r = buildReceipt(state, list(['a', 'b']), meta({ targets: 2 }));
    expect(r.counts).toMatchObject({
      sent: 2,
      persons_found: null,
      persons_deleted: null,
      persons_queued_for_deletion: null,
      deletion_errors: null,
    });
    expect(r.not_reported.map((x) => x.count)).toEqual([
      'persons_found',
      'persons_deleted',
      'persons_queued_for_deletion',
      'events_queued_for_deletion',
      'recordings_queued_for_deletion',
      'deletion_errors',
    ]);
    expect(r.not_reported[0]).toEqual({
      count: 'persons_found',
      chunks: 1,
      ids: 2,
      why: 'the server answered with an empty body, as older PostHog versions do',
    });
    expect(r.chunks.answered_without_summary).toBe(1);
    expect(summaryRecord(r, deleteKind(flags).receipt).not_reported).toHaveLength(6);
  });
});

describe('one chunk on the wire', () => {
  it('sends ids or distinct_ids, never both, with the flags', () => {
    expect(requestBody('person_ids', ['u'], flags)).toEqual({ ids: ['u'], ...flags });
    expect(requestBody('distinct_ids', ['d'], { ...flags, keep_person: true })).toEqual({
      distinct_ids: ['d'],
      delete_events: false,
      delete_recordings: false,
      keep_person: true,
    });
  });

  it('maps each kind of answer for the runner', async () => {
    const api = new FakeApi();
    const path = '/api/projects/1/persons/bulk_delete/';
    api.on('POST', path, [
      { status: 202, body: { persons_found: 1, persons_deleted: 1, deletion_errors: [] } },
      { status: 202, body: '' },
      {
        status: 429,
        body: { type: 'throttled_error', code: 'throttled', detail: 'Request was throttled. Expected available in 7 seconds.' },
        headers: { 'retry-after': '7' },
      },
      { status: 429, body: { type: 'throttled_error', code: 'throttled', detail: 'Request was throttled.' } },
      { status: 503, body: { type: 'server_error', code: 'database_unavailable', detail: 'db' } },
      {
        status: 401,
        body: {
          type: 'authentication_error',
          code: 'authentication_failed',
          detail: 'Personal API key found in request Authorization header is invalid.',
        },
      },
      { status: 400, body: { type: 'validation_error', code: 'invalid_input', detail: 'You can only pass 1000 ids in one call' } },
    ]);
    const { client } = makeClient(api);
    const send = sender({ client, projectId: '1', kind: 'person_ids', flags, timeoutMs: 5000, now: () => 0 });
    const chunk = { index: 1, ids: ['u'] };
    const kinds = [];
    for (let i = 0; i < 7; i++) kinds.push(await send(chunk));
    expect(kinds[0]).toEqual({ kind: 'ok', status: 202, summary: { persons_found: 1, persons_deleted: 1, deletion_errors: [] } });
    expect(kinds[1]).toEqual({ kind: 'ok', status: 202, summary: null });
    expect(kinds[2]).toMatchObject({ kind: 'throttled', retryAfterMs: 7000 });
    expect(kinds[3]).toMatchObject({ kind: 'throttled', retryAfterMs: undefined });
    // A 503 refuses before any work; a timeout or a lost answer may hide a deletion.
    expect(kinds[4]).toMatchObject({ kind: 'retry', status: 503, unclear: false });
    expect(kinds[5]).toMatchObject({ kind: 'auth', status: 401 });
    expect((kinds[5] as { error: { exitCode: number } }).error.exitCode).toBe(4);
    expect(kinds[6]).toMatchObject({ kind: 'rejected', status: 400 });
    expect(api.requests[0]).toMatchObject({ origin: ORIGIN, method: 'POST', path, body: { ids: ['u'], ...flags } });
    expect(api.requests[0].headers['content-type']).toBe('application/json');
    await api.close();
  });

  it('treats a dropped connection as worth retrying', async () => {
    const api = new FakeApi();
    api.agent
      .get(ORIGIN)
      .intercept({ path: '/api/projects/1/persons/bulk_delete/', method: 'POST' })
      .replyWithError(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    const { client } = makeClient(api);
    const result = await sender({ client, projectId: '1', kind: 'person_ids', flags, timeoutMs: 5000, now: () => 0 })({
      index: 1,
      ids: ['u'],
    });
    expect(result).toMatchObject({ kind: 'retry', status: null, unclear: true });
    expect((result as { error: string }).error).toMatch(/connection was closed/);
    await api.close();
  });
});
