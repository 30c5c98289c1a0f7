// An erasure from e-mail addresses (`persons bulk-delete --emails`): each address is matched to
// the persons it names with batched HogQL reads (500 addresses a query), every person it names
// is deleted, the addresses that name no one are listed, and the journal and receipt hold no
// address unless --keep-identifiers.
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Person } from '@hogctl/sandbox';
import { startWorld, type World } from '../harness.js';

let world: World;
let dir: string;
let persons: Person[];
let cursor = 0;

beforeAll(async () => {
  world = await startWorld({ persons: 4000, seed: 41 });
  persons = world.sandbox.store.list({}, 0, 4000).filter((p) => typeof p.properties.email === 'string');
  dir = mkdtempSync(join(tmpdir(), 'hogctl-emails-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

function take(n: number): Person[] {
  const out = persons.slice(cursor, cursor + n);
  cursor += n;
  return out;
}

const alive = (p: Person) => world.sandbox.store.getByUuid(p.uuid) !== undefined;
const queries = (since: number) => world.sandbox.requests.slice(since).filter((r) => r.method === 'POST' && r.path.endsWith('/query/'));
const email = (p: Person) => String(p.properties.email);

/** The name of an identifier in the evidence, as the help of `hogctl evidence export-key` documents it. */
async function identifierHash(): Promise<(value: string) => string> {
  const exported = await world.run(['evidence', 'export-key']);
  const subKey = createHmac('sha256', Buffer.from(exported.stdout.trim(), 'hex')).update('hogctl identifier hash').digest();
  return (value) => createHmac('sha256', subKey).update(value).digest('hex');
}

describe('persons bulk-delete --emails', () => {
  it('deletes every person each address names (case aside), lists the unknown ones, in 4 queries for 1,250 addresses (as the email property and as a distinct id)', async () => {
    const named = take(1200);
    const bystanders = take(20);
    // Two persons share one address: both go.
    const twin = take(1)[0];
    world.sandbox.store.setProperties(twin.id, { email: email(named[0]) });
    const unknown = Array.from({ length: 50 }, (_, i) => `nobody${i}@example.org`);
    const lines = [...named.map((p, i) => (i % 3 === 0 ? email(p).toUpperCase() : email(p))), ...unknown];
    const file = join(dir, 'erasure.txt');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const journal = join(dir, 'erasure.ndjson');
    const receiptPath = join(dir, 'erasure.receipt.json');
    const before = world.sandbox.requests.length;

    const res = await world.run([
      'persons',
      'bulk-delete',
      '--emails',
      file,
      '--journal',
      journal,
      '--receipt',
      receiptPath,
      '-y',
      '-o',
      'json',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(queries(before)).toHaveLength(4);
    expect(named.every((p) => !alive(p))).toBe(true);
    expect(alive(twin)).toBe(false);
    expect(bystanders.every(alive)).toBe(true);
    expect(res.stderr).toContain('Plan: delete persons by e-mail address');
    expect(res.stderr).toContain(
      '  matched   1,200 e-mail addresses name 1,201 persons; 1 of them names more than one person, and all of those go',
    );
    expect(res.stderr).toContain(
      '  missing   50 e-mail addresses name no person (the receipt lists them): nobody0@example.org, nobody1@example.org',
    );
    expect(JSON.parse(res.stdout)).toMatchObject({ status: 'completed', id_kind: 'emails', persons_deleted: 1201, unresolved: 50 });

    // The evidence names the addresses by a keyed hash: no address in the receipt or journal.
    // The operator's address (run_by, who ran the erasure) is the one the receipt may hold.
    const receiptText = readFileSync(receiptPath, 'utf8').replaceAll(world.sandbox.login.email, '');
    const journalText = readFileSync(journal, 'utf8');
    for (const text of [receiptText, journalText]) {
      expect(text).not.toMatch(/@example\.(org|com|net)/i);
      expect(text).not.toContain(email(named[1]));
    }
    const receipt = JSON.parse(receiptText);
    expect(receipt.identifiers).toMatchObject({ kind: 'emails', matched: 1200, matching_several: 1, persons: 1201, unmatched: 50 });
    expect(receipt.identifiers.key_id).toMatch(/^[0-9a-f]{16}$/);
    expect(receipt.identifiers).not.toHaveProperty('salt');
    const key = await identifierHash();
    expect([...receipt.unresolved].sort()).toEqual(unknown.map(key).sort());
    expect(receipt.counts).toMatchObject({ requested: 1250, unique: 1250, unresolved: 50, sent: 1201, persons_deleted: 1201 });
  });

  it('resumes from the journal without looking the addresses up again', async () => {
    const named = take(1500);
    const file = join(dir, 'resume.txt');
    writeFileSync(file, `${named.map(email).join('\n')}\n`);
    const journal = join(dir, 'resume.ndjson');
    expect((await world.run(['persons', 'bulk-delete', '--emails', file, '--journal', journal, '-y'])).code).toBe(0);
    // As a run killed before its last answer: the last chunk's answer and the end never written.
    const records = readFileSync(journal, 'utf8').trim().split('\n');
    const lastAnswer = records.map((l) => JSON.parse(l).type).lastIndexOf('answered');
    writeFileSync(journal, `${records.filter((_, i) => i !== lastAnswer && !records[i].includes('"stopped"')).join('\n')}\n`);
    const before = world.sandbox.requests.length;
    const resumed = await world.run(['persons', 'bulk-delete', '--file', file, '--journal', journal, '--resume', '-y', '-o', 'json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(queries(before)).toHaveLength(0);
    expect(resumed.stderr).toMatch(/checking 500 ids sent in 1 request of an earlier run whose answers were lost/);
    expect(JSON.parse(resumed.stdout)).toMatchObject({
      status: 'completed',
      id_kind: 'emails',
      persons_deleted: 1500,
      persons_gone_after_lost_answer: 500,
    });
  });

  it('--keep-identifiers keeps the addresses in clear; a bad value is refused with its line, or hashed with --skip-invalid', async () => {
    const named = take(2);
    const file = join(dir, 'clear.txt');
    writeFileSync(file, `${email(named[0])}\nnot-an-address\nunknown@example.org\n`);
    const refused = await world.run(['persons', 'bulk-delete', '--emails', file, '-y']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/clear\.txt:2: "not-an-address": not an e-mail address/);

    const receiptPath = join(dir, 'clear.receipt.json');
    const kept = await world.run([
      'persons',
      'bulk-delete',
      '--emails',
      file,
      '--keep-identifiers',
      '--skip-invalid',
      '--journal',
      join(dir, 'clear.ndjson'),
      '--receipt',
      receiptPath,
      '-y',
    ]);
    expect(kept.code, kept.stderr).toBe(0);
    const receipt = JSON.parse(readFileSync(receiptPath, 'utf8'));
    expect(receipt.identifiers).toMatchObject({ key_id: null, matched: 1, unmatched: 1 });
    expect(receipt.unresolved).toEqual(['unknown@example.org']);
    expect(receipt.invalid[0]).toMatchObject({ line: 2, value: 'not-an-address' });
    expect(alive(named[0])).toBe(false);

    const hashedFile = join(dir, 'hashed.txt');
    writeFileSync(hashedFile, `${email(named[1])}\nnot-an-address\n`);
    const hashedReceipt = join(dir, 'hashed.receipt.json');
    expect(
      (await world.run(['persons', 'bulk-delete', '--emails', hashedFile, '--skip-invalid', '--receipt', hashedReceipt, '-y'])).code,
    ).toBe(0);
    const hashed = JSON.parse(readFileSync(hashedReceipt, 'utf8'));
    expect(hashed.invalid[0].value).toBe((await identifierHash())('not-an-address'));
  });

  it('--email takes addresses on the command line; the resume command repeats them with the journal', async () => {
    const [a, b] = take(2);
    const res = await world.run([
      'persons',
      'bulk-delete',
      '--email',
      email(a).toUpperCase(),
      '--email',
      email(b),
      '--email',
      'gone@example.org',
      '-y',
      '-o',
      'json',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('  input     --email (lines): 3 values, 3 unique e-mail addresses');
    expect(res.stderr).toContain('  missing   1 e-mail address names no person (the receipt lists them): gone@example.org');
    expect(JSON.parse(res.stdout)).toMatchObject({
      status: 'completed',
      persons_deleted: 2,
      journal: expect.stringMatching(/[/\\]email-[0-9a-f]{12}\.ndjson$/),
    });
    expect(alive(a) || alive(b)).toBe(false);
  });

  it('a header on line 1 gets a hint, and an "address" longer than 254 characters is refused (exit 2, nothing sent)', async () => {
    const [p] = take(1);
    const headed = join(dir, 'headed.txt');
    writeFileSync(headed, `Email\n${email(p)}\n`);
    const before = world.sandbox.requests.length;
    const refused = await world.run(['persons', 'bulk-delete', '--emails', headed, '-y']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('headed.txt:1: "Email": not an e-mail address (a header?)');
    expect(refused.stderr).toContain('line 1 looks like a header: pass --format csv --column Email');
    const huge = join(dir, 'huge.txt');
    writeFileSync(huge, `${'a'.repeat(900_000)}@example.com\n`);
    const long = await world.run(['persons', 'bulk-delete', '--emails', huge, '-y']);
    expect(long.code).toBe(2);
    expect(long.stderr).toContain('not an e-mail address: 900,012 characters, and an address has at most 254');
    expect(world.sandbox.requests.length).toBe(before);
    // The hint runs as printed.
    const asCsv = await world.run(['persons', 'bulk-delete', '--emails', headed, '--format', 'csv', '--column', 'Email', '-y']);
    expect(asCsv.code, asCsv.stderr).toBe(0);
    expect(alive(p)).toBe(false);
  });

  it('refuses two inputs, --distinct-ids with e-mails, no input, and --keep-identifiers without e-mails (exit 2, nothing sent)', async () => {
    const file = join(dir, 'flags.txt');
    writeFileSync(file, 'a@example.org\n');
    const before = world.sandbox.requests.length;
    const both = await world.run(['persons', 'bulk-delete', '--emails', file, '--file', file, '-y']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give one of --file and --emails: the run reads one input');
    const kinds = await world.run(['persons', 'bulk-delete', '--emails', file, '--distinct-ids', '-y']);
    expect(kinds.code).toBe(2);
    expect(kinds.stderr).toContain('--distinct-ids goes with --file');
    // How to read a file, given where no file is read, would be ignored: refused.
    const unread = await world.run(['persons', 'bulk-delete', '--email', 'a@example.org', '--format', 'csv', '--column', 'x', '-y']);
    expect(unread.code).toBe(2);
    expect(unread.stderr).toContain('--format goes with --file or --emails: it says how to read the file, and --email reads none');
    const selected = await world.run(['persons', 'bulk-delete', '--where', 'plan=nope', '--column', 'x', '-y']);
    expect(selected.code).toBe(2);
    expect(selected.stderr).toContain('--column goes with --file or --emails');
    const none = await world.run(['persons', 'bulk-delete', '-y']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('nothing to delete: give --file <path> (ids), --emails <path> or --email <address>');
    const uuids = join(dir, 'uuids.txt');
    writeFileSync(uuids, `${take(1)[0].uuid}\n`);
    const keep = await world.run(['persons', 'bulk-delete', '--keep-identifiers', '--file', uuids, '-y']);
    expect(keep.code).toBe(2);
    expect(keep.stderr).toContain('--keep-identifiers goes with e-mail addresses or a mixed file of identifiers');
    // A missing file is named with the flag that gave it.
    const missing = await world.run(['persons', 'bulk-delete', '--emails', join(dir, 'nope.txt'), '-y']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('check the path given to --emails and its permissions; nothing was sent');
    expect(world.sandbox.requests.length).toBe(before);
  });
});
