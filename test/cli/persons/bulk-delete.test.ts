// `hogctl persons bulk-delete`, in this process against the in-process sandbox. Each test works
// on its own slice of the sandbox's persons, so one sandbox serves the file. A run killed or
// interrupted (a signal only a child process gets) is test/e2e/bulk-delete-interrupted.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld, type World } from '../harness.js';
import { bulkRequests as bulkRequestsOf, filesIn, isAlive, sentIds, slices } from './bulk-delete-fixtures.js';
import { EMPTY_WHERE_TITLE, itRefusesEveryEmptyWhere } from './empty-where.js';

let world: World;
let dir: string;
let take: (n: number) => string[];
let file: (name: string, content: string | Buffer) => string;

beforeAll(async () => {
  world = await startWorld({ persons: 80_000, seed: 11 });
  take = slices(world.sandbox.store.listUuids(0, 80_000));
  dir = mkdtempSync(join(tmpdir(), 'hogctl-bulk-'));
  file = filesIn(dir);
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

const bulkRequests = (since: number) => bulkRequestsOf(world, since);
const alive = (uuid: string) => isAlive(world, uuid);

describe('faults', () => {
  it('with 20% 429s (with and without Retry-After), 5% 500s and 2% dropped connections, every person is deleted', async () => {
    const ids = take(20_000);
    const path = file('faults.txt', ids.join('\n'));
    const before = world.sandbox.requests.length;
    world.sandbox.setFaults('429=0.1,429-no-retry=0.1,500=0.05,drop=0.02,seed=2,path=bulk_delete');
    let res;
    try {
      res = await world.run([
        'persons',
        'bulk-delete',
        '--file',
        path,
        '--rate',
        '6000',
        // Verifying 20,000 persons at PostHog's 240 reads a minute takes 25 s: not this test's subject.
        '--read-rate',
        '6000',
        '-y',
        '-o',
        'json',
        '--receipt',
        join(dir, 'faults-receipt.json'),
      ]);
    } finally {
      world.sandbox.setFaults();
    }
    expect(res.code).toBe(0);
    expect(ids.filter((id) => alive(id))).toEqual([]);
    const statuses = bulkRequests(before).map((r) => r.status);
    // One draw per request: with this seed, 20 successes take 29 requests, whatever the order
    // they arrive in: three 429s with Retry-After, two without, two 500s and two dropped.
    const tally = (status: number) => statuses.filter((s) => s === status).length;
    expect({ 202: tally(202), 429: tally(429), 500: tally(500), dropped: tally(0), all: statuses.length }).toEqual({
      202: 20,
      429: 5,
      500: 2,
      dropped: 2,
      all: 29,
    });
    const receipt = JSON.parse(readFileSync(join(dir, 'faults-receipt.json'), 'utf8'));
    expect(receipt.counts).toMatchObject({ sent: 20_000, failed: 0, persons_found: 20_000, persons_deleted: 20_000 });
  });
});

describe('bad input: exit 2, the file and line named, nothing sent', () => {
  const cases: [string, string | Buffer, string[], RegExp][] = [
    [
      'binary.txt',
      Buffer.concat([Buffer.from('01900000-aaaa-7bbb-8ccc-000000000001\nabc\n'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1])]),
      [],
      /binary\.txt:3: binary data/,
    ],
    ['huge.txt', `01900000-aaaa-7bbb-8ccc-000000000001\n${'f'.repeat(10 * 1024 * 1024)}\n`, [], /huge\.txt:2: line longer than 1 MiB/],
    [
      'words.txt',
      '01900000-aaaa-7bbb-8ccc-000000000001\nuser-881\n\nlee@example.net\n',
      [],
      /words\.txt:2: "user-881": not a person UUID or integer id\n.*words\.txt:4: "lee@example\.net"/s,
    ],
    ['empty.txt', '', [], /empty\.txt:1: no ids in the input/],
    [
      'object.json',
      '{"ids": ["01900000-aaaa-7bbb-8ccc-000000000001"]}',
      [],
      /object\.json:1: expected a JSON array of ids, found an object/,
    ],
    [
      'people.csv',
      'id,email\n01900000-aaaa-7bbb-8ccc-000000000001,a@x.com\n',
      ['--column', 'uuid'],
      /people\.csv:1: no column "uuid" in the CSV header \(columns: "id", "email"\)/,
    ],
  ];
  for (const [name, content, extra, message] of cases) {
    it(name, async () => {
      const path = file(name, content);
      const before = world.sandbox.requests.length;
      const res = await world.run(['persons', 'bulk-delete', '--file', path, ...extra, '-y']);
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(message);
      expect(res.stderr).toContain(path);
      expect(res.stdout).toBe('');
      expect(world.sandbox.requests.length).toBe(before);
    });
  }
});

describe(EMPTY_WHERE_TITLE, () => {
  itRefusesEveryEmptyWhere(() => world, 'bulk-delete');
});

describe('safety', () => {
  it('--dry-run prints the plan and sends nothing', async () => {
    const ids = take(2500);
    const path = file('dry.txt', ids.join('\n'));
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'bulk-delete', '--file', path, '--dry-run', '--delete-events', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/Plan: delete persons by person id \(dry run/);
    expect(res.stderr).toMatch(/requests +3 of at most 1,000 ids/);
    expect(res.stderr).toMatch(/delete events: yes · delete recordings: no · keep person: no/);
    expect(res.stderr).toMatch(/budget +480\/min \+ 4,800\/h requests, 4 in flight; estimated time about \d+s \(at ~0.5 s a request/);
    expect(JSON.parse(res.stdout)).toMatchObject({ status: 'dry_run', unique: 2500, sent: 0 });
    expect(world.sandbox.requests.length).toBe(before);
    expect(ids.every((id) => alive(id))).toBe(true);
    expect(
      existsSync(join(world.configDir, 'journals'))
        ? readdirSync(join(world.configDir, 'journals')).filter((f) => f.startsWith('dry.txt'))
        : [],
    ).toEqual([]);
  });

  it('refuses off a terminal without --yes (exit 2) and sends nothing', async () => {
    const ids = take(10);
    const path = file('noyes.txt', ids.join('\n'));
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'bulk-delete', '--file', path]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(
      /this deletes 10 persons \(their events and recordings stay\) in project 1 on http:\/\/127\.0\.0\.1:\d+: refusing without confirmation/,
    );
    expect(res.stderr).toMatch(/pass --yes/);
    expect(world.sandbox.requests.length).toBe(before);
  });

  it('refuses a receipt it could not write before sending anything', async () => {
    const path = file('noreceipt.txt', take(3).join('\n'));
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'bulk-delete', '--file', path, '-y', '--receipt', join(dir, 'no-such-dir', 'r.json')]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/cannot write .*r\.json: the directory .*no-such-dir does not exist or is not writable/);
    expect(world.sandbox.requests.length).toBe(before);
  });

  it('stops at once on an authentication error (exit 4): one request, nothing more', async () => {
    const ids = take(5000);
    const path = file('auth.txt', ids.join('\n'));
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'bulk-delete', '--file', path, '-y', '-o', 'json'], {
      env: { HOGCTL_API_KEY: 'phx_not_a_real_key_at_all_0000000000000000' },
    });
    expect(res.code).toBe(4);
    expect(res.stderr).toMatch(/failed with 401 authentication_failed.*stopped at once, nothing more was sent/);
    expect(res.stderr).not.toContain('phx_not_a_real_key');
    expect(bulkRequests(before)).toHaveLength(1);
    expect(JSON.parse(res.stdout)).toMatchObject({ status: 'auth', sent: 0, failed: 1000, not_sent: 4000 });
    expect(ids.every((id) => alive(id))).toBe(true);

    const readOnly = world.sandbox.addKey(['person:read']);
    const scoped = await world.run(['persons', 'bulk-delete', '--file', path, '-y', '--journal', join(dir, 'auth2.ndjson')], {
      env: { HOGCTL_API_KEY: readOnly },
    });
    expect(scoped.code).toBe(4);
    expect(scoped.stderr).toMatch(/403 permission_denied: API key missing required scope 'person:write'/);
  });

  it('a partial failure exits 8 with the failed chunks in the receipt, and --resume retries them', async () => {
    const ids = take(3000);
    const path = file('partial.txt', ids.join('\n'));
    const receiptPath = join(dir, 'partial-receipt.json');
    const args = [
      'persons',
      'bulk-delete',
      '--file',
      path,
      '-y',
      '-o',
      'json',
      '--receipt',
      receiptPath,
      '--rate',
      '6000',
      '--read-rate',
      '6000',
    ];
    world.sandbox.setFaults('500=1,path=bulk_delete');
    let res;
    try {
      res = await world.run([...args, '--retries', '1']);
    } finally {
      world.sandbox.setFaults();
    }
    expect(res.code).toBe(8);
    expect(res.stderr).toMatch(/3 of 3 requests failed after retries \(3,000 ids\)/);
    expect(res.stderr).toMatch(/--resume/);
    const receipt = JSON.parse(readFileSync(receiptPath, 'utf8'));
    expect(receipt.status).toBe('partial');
    expect(receipt.failed_chunks).toHaveLength(3);
    expect(receipt.failed_chunks.flatMap((c: any) => c.ids).sort()).toEqual([...ids].sort());
    expect(receipt.failed_chunks[0]).toMatchObject({ attempts: 2, status: 500 });
    expect(receipt.failed_chunks[0].last_error).toMatch(/failed with 500/);
    expect(ids.every((id) => alive(id))).toBe(true);

    const resumed = await world.run([...args, '--resume']);
    expect(resumed.code).toBe(0);
    expect(ids.filter((id) => alive(id))).toEqual([]);
    const after = JSON.parse(readFileSync(receiptPath, 'utf8'));
    expect(after).toMatchObject({ status: 'completed', failed_chunks: [], counts: { sent: 3000, failed: 0, persons_deleted: 3000 } });
    expect(after.runs.map((r: any) => r.outcome)).toEqual(['partial', 'completed']);
  });

  it('a request a killed run left without its answer, which the next run cannot check, is named as unclear, not forgotten', async () => {
    const ids = take(10);
    const path = file('unchecked.txt', ids.join('\n'));
    const journal = join(dir, 'unchecked.ndjson');
    const receiptPath = join(dir, 'unchecked-receipt.json');
    const args = ['persons', 'bulk-delete', '--file', path, '--journal', journal, '--receipt', receiptPath, '--no-verify', '-y'];
    expect((await world.run(args)).code).toBe(0);
    // As a run killed after the server deleted the persons, before their answer was journaled.
    const records = readFileSync(journal, 'utf8').trim().split('\n');
    writeFileSync(journal, `${records.filter((r) => !/"type":"(answered|stopped)"/.test(r)).join('\n')}\n`);
    // Every read of persons comes back as no PostHog answers: the lost answer cannot be checked.
    const resumed = await world.withFaults('odd-200=1,path=batch_by_uuids', () => world.run([...args, '--resume']));
    expect(resumed.code, resumed.stderr).toBe(0);
    const receipt = JSON.parse(readFileSync(receiptPath, 'utf8'));
    // Sent again, the ids name no one: the deletions were the lost request's, which nothing counts.
    expect(receipt.counts).toMatchObject({ sent: 10, persons_found: 0, persons_deleted: 0, unconfirmed: 10 });
    expect(receipt.unclear_requests).toMatchObject({ chunks: 1, ids: 10 });
    expect(receipt.unclear_requests.note).toMatch(/may have deleted persons/);
    expect(resumed.stderr).toContain(
      '10 ids could not be checked: they are sent again, and the receipt names their earlier request as unclear',
    );
    expect(resumed.stderr).toMatch(/warning: 10 ids went out in requests that had an attempt without a clear answer/);
  });

  it('refuses a journal of another input, or of other flags', async () => {
    const a = file('journal-a.txt', take(5).join('\n'));
    const b = file('journal-b.txt', take(5).join('\n'));
    const journal = join(dir, 'shared.ndjson');
    expect((await world.run(['persons', 'bulk-delete', '--file', a, '--journal', journal, '-y'])).code).toBe(0);
    const before = world.sandbox.requests.length;
    const other = await world.run(['persons', 'bulk-delete', '--file', b, '--journal', journal, '--resume', '-y']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/was written for another input: .*journal-a\.txt with 5 ids/);
    const flags = await world.run(['persons', 'bulk-delete', '--file', a, '--journal', journal, '--resume', '--delete-events', '-y']);
    expect(flags.code).toBe(2);
    expect(flags.stderr).toMatch(/was written with other flags \(person ids\); this run has person ids --delete-events/);
    expect(world.sandbox.requests.length).toBe(before);
  });

  it('refuses a journal of an earlier development build or of a newer format, with a clear message', async () => {
    const a = file('older.txt', take(6).join('\n'));
    const journal = join(dir, 'older.ndjson');
    const run = await world.run(['persons', 'bulk-delete', '--file', a, '--journal', journal, '-y', '--delete-events']);
    expect(run.code).toBe(0);
    const header = JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]);
    const before = world.sandbox.requests.length;

    const earlier = join(dir, 'earlier.ndjson');
    writeFileSync(earlier, JSON.stringify({ ...header, journal_format: 1 }) + '\n');
    const old = await world.run(['persons', 'bulk-delete', '--file', a, '--journal', earlier, '--resume', '--delete-events', '-y']);
    expect(old.code).toBe(2);
    expect(old.stderr).toContain(`journal ${earlier} has format 1: an earlier development build of hogctl wrote it`);
    expect(old.stderr).toContain('start over: run the same command without --resume, with --journal <new path>');

    const newer = join(dir, 'newer.ndjson');
    writeFileSync(newer, JSON.stringify({ ...header, journal_format: 3 }) + '\n');
    const refused = await world.run(['persons', 'bulk-delete', '--file', a, '--journal', newer, '--resume', '-y']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`journal ${newer} has format 3, which this hogctl does not read`);
    expect(refused.stderr).toContain('resume it with the hogctl version that wrote it');
    expect(world.sandbox.requests.slice(before).filter((r) => r.path.endsWith('/bulk_delete/'))).toEqual([]);
  });
});

describe('inputs and servers', () => {
  it('resolves integer ids to UUIDs first, and reports the ones no person has', async () => {
    const persons = take(3).map((u) => world.sandbox.store.getByUuid(u)!);
    const path = file('ints.txt', `${persons.map((p) => p.id).join('\n')}\n999999999\n`);
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'bulk-delete', '--file', path, '-y', '-o', 'json', '--receipt', join(dir, 'ints.json')]);
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/resolving 4 integer person ids to UUIDs/);
    const gets = world.sandbox.requests
      .slice(before)
      // Besides the key's scopes, the receipt's reads of who ran it and the project's name.
      .filter((r) => r.method === 'GET' && !['/api/personal_api_keys/@current/', '/api/users/@me/', '/api/projects/1/'].includes(r.path))
      .map((r) => r.path);
    expect(gets.sort()).toEqual([...persons.map((p) => `/api/projects/1/persons/${p.id}/`), '/api/projects/1/persons/999999999/'].sort());
    expect(sentIds(bulkRequests(before)).sort()).toEqual(persons.map((p) => p.uuid).sort());
    expect(persons.every((p) => !alive(p.uuid))).toBe(true);
    const receipt = JSON.parse(readFileSync(join(dir, 'ints.json'), 'utf8'));
    expect(receipt.unresolved).toEqual(['999999999']);
    expect(receipt.counts).toMatchObject({ unique: 4, unresolved: 1, sent: 3, persons_deleted: 3 });
  });

  it('--distinct-ids looks the persons up and sends their UUIDs, from a CSV column read from stdin', async () => {
    const persons = take(1200).map((u) => world.sandbox.store.getByUuid(u)!);
    const csv = `distinct_id,note\n${persons.map((p) => `${p.distinctIds.at(-1)},"x, y"`).join('\n')}\n`;
    const before = world.sandbox.requests.length;
    const res = await world.run(
      ['persons', 'bulk-delete', '--file', '-', '--format', 'csv', '--column', 'distinct_id', '--distinct-ids', '-y', '--delete-events'],
      { stdin: csv },
    );
    expect(res.code).toBe(0);
    const requests = bulkRequests(before);
    expect(requests).toHaveLength(2);
    for (const r of requests) {
      const body = JSON.parse(r.body);
      // By UUID, so that the receipt names the persons as deletion_status does (erasure-status).
      expect(Object.keys(body).sort()).toEqual(['delete_events', 'delete_recordings', 'ids', 'keep_person']);
      expect(body.delete_events).toBe(true);
    }
    expect(new Set(requests.flatMap((r) => JSON.parse(r.body).ids))).toEqual(new Set(persons.map((p) => p.uuid)));
    expect(persons.every((p) => !alive(p.uuid))).toBe(true);
  });

  it('a selection started again after it completed is refused, not skipped: persons it names now would be left', async () => {
    const store = world.sandbox.store;
    const [a, b, c] = take(3).map((u) => store.getByUuid(u)!);
    for (const p of [a, b]) store.setProperties(p.id, { rerun_tag: 'x' });
    const args = ['persons', 'bulk-delete', '--where', 'rerun_tag=x', '-y', '--no-verify'];
    expect((await world.run(args)).code).toBe(0);
    expect([a, b].some((p) => alive(p.uuid))).toBe(false);
    // Later, another person matches: starting the same job again must not claim it done.
    store.setProperties(c.id, { rerun_tag: 'x' });
    const before = world.sandbox.requests.length;
    const again = await world.run(args);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toMatch(
      /this erasure already completed at \S+ \(journal .*\); it acted on the persons it found when it began \(the selection\), and nothing was sent now/,
    );
    expect(again.stderr).toContain('--journal <new path>');
    expect(world.sandbox.requests.slice(before).filter((r) => r.method !== 'GET')).toEqual([]);
    // --resume still says it completed (and checks it again); a new journal acts on the new match.
    const resumed = await world.run([...args, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('this erasure already completed');
    const fresh = await world.run([...args, '--journal', join(dir, 'rerun-2.ndjson')]);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(alive(c.uuid)).toBe(false);
  });

  it("runs its help's example: NDJSON strings on standard input (`cat ids.ndjson | … --file -`)", async () => {
    const ids = take(3);
    const res = await world.run(['persons', 'bulk-delete', '--file', '-', '-y', '-o', 'json'], {
      stdin: ids.map((id) => JSON.stringify(id)).join('\n') + '\n',
    });
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ persons_deleted: 3 });
    expect(ids.every((id) => !alive(id))).toBe(true);
  });

  it('takes a JSON array and NDJSON objects with --column', async () => {
    const [a, b] = [take(3), take(3)];
    const json = await world.run(['persons', 'bulk-delete', '--file', file('arr.json', JSON.stringify(a)), '-y']);
    expect(json.code).toBe(0);
    const nd = await world.run([
      'persons',
      'bulk-delete',
      '--file',
      file('objs.ndjson', b.map((id) => JSON.stringify({ uuid: id, why: 'gdpr' })).join('\n')),
      '--column',
      'uuid',
      '-y',
    ]);
    expect(nd.code).toBe(0);
    expect([...a, ...b].filter((id) => alive(id))).toEqual([]);
  });

  it('tolerates the empty 202 of older servers, and the receipt names the counts they did not report', async () => {
    const ids = take(1500);
    const receiptPath = join(dir, 'empty-receipt.json');
    world.sandbox.setBulkDeleteResponse('empty');
    let res;
    try {
      res = await world.run([
        'persons',
        'bulk-delete',
        '--file',
        file('old.txt', ids.join('\n')),
        '-y',
        '-o',
        'json',
        '--receipt',
        receiptPath,
      ]);
    } finally {
      world.sandbox.setBulkDeleteResponse('summary');
    }
    expect(res.code).toBe(0);
    expect(ids.filter((id) => alive(id))).toEqual([]);
    expect(res.stderr).toMatch(/the server did not report persons_found \(2 requests\), persons_deleted \(2 requests\)/);
    expect(res.stderr).toMatch(/1,500 ids sent and acknowledged \(the server did not report how many persons it deleted\)/);
    const receipt = JSON.parse(readFileSync(receiptPath, 'utf8'));
    expect(receipt.counts).toMatchObject({ sent: 1500, persons_found: null, persons_deleted: null });
    expect(receipt.not_reported[0]).toEqual({
      count: 'persons_found',
      chunks: 2,
      ids: 1500,
      why: 'the server answered with an empty body, as older PostHog versions do',
    });
    expect(JSON.parse(res.stdout).not_reported).toContain('persons_deleted');
  });

  it('counts persons queued for deletion by the newest servers', async () => {
    const ids = take(1000);
    world.sandbox.setBulkDeleteResponse('queued');
    let res;
    try {
      res = await world.run(['persons', 'bulk-delete', '--file', file('queued.txt', ids.join('\n')), '-y', '-o', 'json']);
    } finally {
      world.sandbox.setBulkDeleteResponse('summary');
    }
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ persons_found: 1000, persons_deleted: 0, persons_queued_for_deletion: 1000 });
    expect(res.stderr).toMatch(/1,000 queued for deletion/);
  });

  it('--skip-invalid sends the valid ids and lists the rest in the receipt', async () => {
    const ids = take(4);
    const receiptPath = join(dir, 'skip.json');
    const res = await world.run([
      'persons',
      'bulk-delete',
      '--file',
      file('skip.txt', `${ids.join('\n')}\nnot-an-id\n`),
      '--skip-invalid',
      '-y',
      '--receipt',
      receiptPath,
    ]);
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/skipping 1 invalid value .*\n.*skip\.txt:5: "not-an-id"/);
    const receipt = JSON.parse(readFileSync(receiptPath, 'utf8'));
    expect(receipt.invalid).toEqual([
      { file: join(dir, 'skip.txt'), line: 5, value: 'not-an-id', reason: 'not a person UUID or integer id' },
    ]);
    expect(receipt.counts).toMatchObject({ requested: 5, invalid: 1, sent: 4 });
  });
});
