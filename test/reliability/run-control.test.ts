// Reliability: a bulk run is stopped, resumed and written up truthfully.
// - Ctrl-C is answered at once; a second one quits without waiting, and still leaves a
//   consistent journal, a receipt and the resume command; SIGTERM behaves like the first Ctrl-C.
// - A Retry-After longer than --max-wait stops the run at once (exit 6) instead of sending every
//   other chunk into the same 429.
// - --resume needs only --file: the journal remembers the flags, receipt, output and rate; a
//   run that had completed says so when started again, and sends nothing.
// - Ids whose answers were lost (a dropped answer, a killed run) are checked before they are
//   sent again, so the receipt counts what the server deleted.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, startWorld, until, type World } from '../e2e/harness.js';
import { spawn } from 'node:child_process';
import { seedHittingFirst } from './helpers.js';

let world: World;
let dir: string;
let uuids: string[];
let cursor = 0;

beforeAll(async () => {
  world = await startWorld({ persons: 30_000, seed: 31 });
  uuids = world.sandbox.store.listUuids(0, 30_000);
  dir = mkdtempSync(join(tmpdir(), 'hogctl-run-control-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

function idsFile(name: string, count: number): { path: string; ids: string[] } {
  const ids = uuids.slice(cursor, cursor + count);
  cursor += count;
  const path = join(dir, `${name}.txt`);
  writeFileSync(path, `${ids.join('\n')}\n`);
  return { path, ids };
}

const alive = (ids: string[]) => ids.filter((id) => world.sandbox.store.getByUuid(id) !== undefined).length;
const bulkPosts = () => world.sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/bulk_delete/'));

/** The CLI as a child whose output can be watched while it runs. */
function start(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(world.env), stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (d) => (out.stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (out.stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, out, exited };
}

const lines = (journal: string, type: string) =>
  existsSync(journal)
    ? readFileSync(journal, 'utf8')
        .split('\n')
        .filter((l) => l.includes(`"type":"${type}"`)).length
    : 0;

/** The printed resume command, as argv. */
function resumeArgs(stderr: string): string[] {
  const line = /^\s+hogctl (persons bulk-delete .* --resume)$/m.exec(stderr)?.[1];
  expect(line, `a resume command in:\n${stderr}`).toBeDefined();
  return line!.split(' ');
}

describe('Ctrl-C, a second Ctrl-C, and SIGTERM', () => {
  it('the first Ctrl-C is answered at once; the second quits with a receipt and the resume command; the resume counts every deletion', async () => {
    const { path, ids } = idsFile('quit', 4000);
    const journal = join(dir, 'quit.ndjson');
    const receipt = join(dir, 'quit.receipt.json');
    // Every delete takes 5 s on the server, and is carried out even if the client has gone.
    world.sandbox.setFaults('slow=1@5000,path=bulk_delete');
    try {
      const run = start([
        'persons',
        'bulk-delete',
        '--file',
        path,
        '--journal',
        journal,
        '--receipt',
        receipt,
        '-y',
        '--concurrency',
        '2',
        '--rate',
        '6000',
      ]);
      await until(() => lines(journal, 'sending') === 2, 'two requests in flight');
      run.child.kill('SIGINT');
      await until(() => run.out.stderr.includes('stopping:'), 'the acknowledgement');
      expect(run.out.stderr).toMatch(/stopping: waiting for 2 requests in flight, at most 120s; Ctrl-C again to quit now/);
      // Still waiting for those answers when it said so.
      expect(lines(journal, 'answered')).toBe(0);
      run.child.kill('SIGINT');
      const { code } = await run.exited;
      expect(code).toBe(130);
      expect(lines(journal, 'answered')).toBe(0);
      expect(readFileSync(journal, 'utf8').trim().split('\n').pop()).toMatch(/"type":"stopped".*"reason":"interrupted"/);
      expect(run.out.stderr).toMatch(/quit: requests still in flight were left without their answers/);
      const written = JSON.parse(readFileSync(receipt, 'utf8'));
      expect(written).toMatchObject({ status: 'interrupted', counts: { sent: 0, unconfirmed: 2000, not_sent: 2000 } });
      expect(written.unanswered_requests).toMatchObject({ chunks: 2, ids: 2000 });

      // The server finished both requests meanwhile; resuming checks their ids and counts them.
      await until(() => alive(ids) === 2000, 'the two requests to finish on the server');
      world.sandbox.setFaults();
      // The lost answers' ids and the 4,000 persons are read back; not at 240 reads a minute here.
      const resumed = start(resumeArgs(run.out.stderr).concat('-y', '-o', 'json', '--read-rate', '6000'));
      expect((await resumed.exited).code).toBe(0);
      expect(resumed.out.stderr).toMatch(/checking 2,000 ids sent in 2 requests of an earlier run whose answers were lost…/);
      expect(resumed.out.stderr).toMatch(/2,000 of them no longer name a person/);
      const done = JSON.parse(readFileSync(receipt, 'utf8'));
      // A plain file of ids: the 2,000 gone after the lost answers are counted apart (a lost
      // request deleted them, or they never named anyone); with the 2,000 the server reported,
      // they make the 4,000 the server deleted.
      expect(done.counts).toMatchObject({
        persons_deleted: 2000,
        persons_found: 2000,
        persons_gone_after_lost_answer: 2000,
        unconfirmed: 0,
        sent: 4000,
        not_sent: 0,
        failed: 0,
      });
      expect(JSON.parse(resumed.out.stdout)).toMatchObject({
        status: 'completed',
        persons_deleted: 2000,
        persons_gone_after_lost_answer: 2000,
      });
      expect(alive(ids)).toBe(0);
    } finally {
      world.sandbox.setFaults();
    }
  });

  it('SIGTERM stops like the first Ctrl-C: the requests in flight are answered and journaled, then exit 130 with the resume command', async () => {
    const { path, ids } = idsFile('term', 3000);
    const journal = join(dir, 'term.ndjson');
    const receipt = join(dir, 'term.receipt.json');
    world.sandbox.setFaults('slow=1@2000,path=bulk_delete');
    try {
      const run = start([
        'persons',
        'bulk-delete',
        '--file',
        path,
        '--journal',
        journal,
        '--receipt',
        receipt,
        '-y',
        '--concurrency',
        '1',
        '--rate',
        '6000',
      ]);
      await until(() => lines(journal, 'sending') === 1, 'a request in flight');
      run.child.kill('SIGTERM');
      const { code, signal } = await run.exited;
      expect(signal).toBeNull();
      expect(code).toBe(130);
      expect(run.out.stderr).toMatch(/stopping: waiting for 1 request in flight/);
      expect(lines(journal, 'answered')).toBe(1);
      expect(JSON.parse(readFileSync(receipt, 'utf8'))).toMatchObject({
        status: 'interrupted',
        counts: { persons_deleted: 1000, not_sent: 2000 },
      });
      expect(run.out.stderr).toMatch(/^interrupted: 1,000 persons deleted/m);
      world.sandbox.setFaults();
      const resumed = start(resumeArgs(run.out.stderr).concat('-y', '--read-rate', '6000'));
      expect((await resumed.exited).code).toBe(0);
      expect(alive(ids)).toBe(0);
    } finally {
      world.sandbox.setFaults();
    }
  });
});

describe('a Retry-After longer than --max-wait, and --resume with nothing but the file', () => {
  it('stops at once with exit 6 and the time to resume; the shortest resume command keeps the flags, receipt, output and rate', async () => {
    const { path, ids } = idsFile('long-wait', 5000);
    const receipt = join(dir, 'long-wait.receipt.json');
    // Two deletes a day for this key: the third request is told to come back tomorrow.
    world.sandbox.setRateLimit('delete=2/day');
    const before = bulkPosts().length;
    let first;
    try {
      first = start([
        'persons',
        'bulk-delete',
        '--file',
        path,
        '--delete-events',
        '--receipt',
        receipt,
        '-y',
        '-o',
        'json',
        '--concurrency',
        '1',
        '--rate',
        '6000',
        '--retries',
        '2',
      ]);
      expect((await first.exited).code).toBe(6);
    } finally {
      world.sandbox.setRateLimit();
    }
    expect(bulkPosts().length - before).toBe(3);
    expect(first.out.stderr).toMatch(
      /^error: the server asks to wait until \d\d:\d\d(:\d\d)? \((23h\d\dm|24h00m)\), longer than --max-wait 15m00s; stopped, nothing more was sent \(2,000 persons deleted/m,
    );
    const resume = resumeArgs(first.out.stderr);
    expect(resume).toEqual(['persons', 'bulk-delete', '--file', path, '--resume']);
    expect(JSON.parse(first.out.stdout)).toMatchObject({ status: 'rate_limited', persons_deleted: 2000, failed: 1000, not_sent: 2000 });
    expect(JSON.parse(readFileSync(receipt, 'utf8'))).toMatchObject({ status: 'rate_limited' });

    // Later: the bare resume command finishes with the same flags, receipt and output.
    const beforeResume = bulkPosts().length;
    const resumed = start([...resume, '-y']);
    expect((await resumed.exited).code).toBe(0);
    const sent = bulkPosts().slice(beforeResume);
    expect(sent).toHaveLength(3);
    for (const r of sent) expect(JSON.parse(r.body!)).toMatchObject({ delete_events: true, delete_recordings: false, keep_person: false });
    expect(JSON.parse(resumed.out.stdout)).toMatchObject({ status: 'completed', persons_deleted: 5000, receipt });
    expect(JSON.parse(readFileSync(receipt, 'utf8'))).toMatchObject({ status: 'completed', counts: { persons_deleted: 5000 } });
    expect(alive(ids)).toBe(0);
  });
});

describe('answers lost after the server did the work', () => {
  it('checks the ids before sending them again: the receipt, the JSON summary and the final line count every deletion', async () => {
    const { path, ids } = idsFile('drop-after', 3000);
    const receipt = join(dir, 'drop-after.receipt.json');
    const spec = 'drop-after=0.5,path=bulk_delete';
    world.sandbox.setFaults(`${spec},seed=${seedHittingFirst(spec, 'drop-after', 'POST', '/api/projects/1/persons/bulk_delete/', 2)}`);
    let res;
    try {
      res = start([
        'persons',
        'bulk-delete',
        '--file',
        path,
        '--receipt',
        receipt,
        '-y',
        '-o',
        'json',
        '--concurrency',
        '1',
        '--rate',
        '6000',
        // The checks of lost answers and the verification read at 240 a minute by default (10 s
        // here): the reads are this test's subject, not their pace.
        '--read-rate',
        '6000',
        '--retries',
        '3',
      ]);
      expect((await res.exited).code).toBe(0);
    } finally {
      world.sandbox.setFaults();
    }
    expect(alive(ids)).toBe(0);
    const written = JSON.parse(readFileSync(receipt, 'utf8'));
    expect(written.counts.unconfirmed).toBe(0);
    expect(written.counts.persons_gone_after_lost_answer).toBeGreaterThanOrEqual(1000);
    expect(written.counts.persons_deleted + written.counts.persons_gone_after_lost_answer).toBe(3000);
    expect(written.unclear_requests).toBeNull();
    // The summary on stdout carries every count of the receipt, with the same values.
    const summary = JSON.parse(res.out.stdout);
    for (const [k, v] of Object.entries(written.counts)) expect(summary[k], k).toEqual(v);

    // The same run in a table says the same numbers in its last line.
    const table = idsFile('drop-after-table', 2000);
    world.sandbox.setFaults(`${spec},seed=${seedHittingFirst(spec, 'drop-after', 'POST', '/api/projects/1/persons/bulk_delete/', 1)}`);
    try {
      const plain = start([
        'persons',
        'bulk-delete',
        '--file',
        table.path,
        '-y',
        '--concurrency',
        '1',
        '--rate',
        '6000',
        '--read-rate',
        '6000',
        '--retries',
        '3',
      ]);
      expect((await plain.exited).code).toBe(0);
      expect(plain.out.stderr).toMatch(
        /✔ [\d,]+ persons deleted \([\d,]+ found\) from [\d,]+ ids sent; [\d,]+ ids sent whose answers were lost name no person any more when checked \(the lost request deleted them, or they never named one\)/,
      );
    } finally {
      world.sandbox.setFaults();
    }
  });

  it('after a SIGKILL with requests on their way, the resumed run checks them and the receipt equals the server', async () => {
    const { path, ids } = idsFile('killed', 6000);
    const journal = join(dir, 'killed.ndjson');
    const receipt = join(dir, 'killed.receipt.json');
    const deletedBefore = world.sandbox.store.deletedCount;
    world.sandbox.setFaults('slow=1@1500,path=bulk_delete');
    try {
      const run = start([
        'persons',
        'bulk-delete',
        '--file',
        path,
        '--journal',
        journal,
        '--receipt',
        receipt,
        '-y',
        '--concurrency',
        '2',
        '--rate',
        '6000',
      ]);
      await until(
        () => lines(journal, 'answered') >= 2 && lines(journal, 'sending') - lines(journal, 'answered') === 2,
        'two answered and two in flight',
      );
      run.child.kill('SIGKILL');
      await run.exited;
      // The two requests in flight are carried out on the server all the same.
      await new Promise((r) => setTimeout(r, 1700));
    } finally {
      world.sandbox.setFaults();
    }
    // Verifying 6,000 persons at the default 240 reads a minute takes 8 s: not this test's subject.
    const resumed = start([
      'persons',
      'bulk-delete',
      '--file',
      path,
      '--journal',
      journal,
      '--resume',
      '--read-rate',
      '6000',
      '-y',
      '-o',
      'json',
    ]);
    expect((await resumed.exited).code).toBe(0);
    expect(alive(ids)).toBe(0);
    const deleted = world.sandbox.store.deletedCount - deletedBefore;
    expect(deleted).toBe(6000);
    const done = JSON.parse(readFileSync(receipt, 'utf8'));
    // Every id was a person: those the server reported deleted and those found gone after the
    // lost answers (counted apart for a plain file) make what the server deleted.
    expect(done.counts).toMatchObject({ unconfirmed: 0, sent: 6000, not_sent: 0 });
    expect(done.counts.persons_deleted + done.counts.persons_gone_after_lost_answer).toBe(deleted);
    expect(done.unanswered_requests).toBeNull();
    expect(JSON.parse(resumed.out.stdout)).toMatchObject({ persons_deleted: done.counts.persons_deleted });
  });
});

describe('a run started again after it completed', () => {
  it('started again after it completed, says so and sends nothing (exit 0); an unfinished journal is refused without --resume', async () => {
    const { path: a } = idsFile('again', 5);
    const journal = join(dir, 'again.ndjson');
    expect((await world.run(['persons', 'bulk-delete', '--file', a, '--journal', journal, '-y'])).code).toBe(0);
    const before = world.sandbox.requests.length;
    for (const resume of [[], ['--resume']]) {
      const again = await world.run(['persons', 'bulk-delete', '--file', a, '--journal', journal, '-y', '-o', 'json', ...resume]);
      expect(again.code).toBe(0);
      expect(again.stderr).toMatch(
        /this erasure already completed at \d{4}-\d\d-\d\dT[\d:.]+Z \(journal .*again\.ndjson\); no deletion was sent/,
      );
      expect(JSON.parse(again.stdout)).toMatchObject({ status: 'completed', persons_deleted: 5 });
    }
    expect(world.sandbox.requests.slice(before).filter((r) => r.path.endsWith('/bulk_delete/'))).toEqual([]);
    // A journal whose run did not complete still needs --resume.
    const unfinished = join(dir, 'unfinished.ndjson');
    writeFileSync(
      unfinished,
      readFileSync(journal, 'utf8')
        .split('\n')
        .filter((l) => !l.includes('"stopped"'))
        .join('\n'),
    );
    const refused = await world.run(['persons', 'bulk-delete', '--file', a, '--journal', unfinished, '-y']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/a journal already exists at .*unfinished\.ndjson.*pass --resume/s);
  });
});
