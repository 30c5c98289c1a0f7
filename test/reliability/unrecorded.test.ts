// A bulk run that changed persons and then could not record it: --jq or --template failing on the
// summary, or a receipt the disk had no room for (a write that writes only part, then ENOSPC,
// injected under node:fs/promises). Exit 2 would say nothing was sent: the run says what it did,
// then what is missing and how to get it, with exit 9. A filter that cannot compile is still
// refused before anything is sent. The black-box full disk: test/reliability/full-disk.test.ts.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../cli/virtual-harness.js';

/** The "disk" of files whose path contains `full-disk`: bytes left for a receipt, and whether a
 * journal can take no more answers. */
const disk = { room: 0, journalFull: false };

function enospc(): Error {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
}

/** A file of that disk: writes take what room is left, then fail; a journal's answers fail when
 * it is full. */
function onDisk(handle: FileHandle): FileHandle {
  const own: Record<PropertyKey, unknown> = {
    write: async (buffer: Buffer, offset = 0, length = buffer.length - offset) => {
      const take = Math.min(length, disk.room);
      if (take === 0) throw enospc();
      disk.room -= take;
      return handle.write(buffer, offset, take);
    },
    appendFile: async (data: string) => {
      if (disk.journalFull && data.includes('"type":"answered"')) throw enospc();
      return handle.appendFile(data);
    },
  };
  return new Proxy(handle, { get: (target, prop) => own[prop] ?? (Reflect.get(target, prop, target) as unknown) }) as FileHandle;
}

// Receipts are opened through node:fs/promises, journals through secret-file.ts.
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const open = async (...args: Parameters<typeof real.open>) => {
    const handle = await real.open(...args);
    return String(args[0]).includes('full-disk') ? onDisk(handle) : handle;
  };
  return { ...real, open, default: { ...real, open } };
});
vi.mock('../../src/config/secret-file.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/config/secret-file.js')>();
  const openSecretFile = async (path: string, mode: 'create' | 'append') => {
    const handle = await real.openSecretFile(path, mode);
    return path.includes('full-disk') ? onDisk(handle) : handle;
  };
  return { ...real, openSecretFile };
});

let world: VirtualWorld;
let serial = 0;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 40, seed: 36, applyDelayMs: 0 });
});
afterAll(() => world.close());

let next = 0;
/** A file of `n` persons no other test here deletes. */
function idsFile(n: number): { path: string; ids: string[] } {
  const ids = world.sandbox.store.listUuids(next, n);
  next += n;
  const path = join(world.configDir, `ids-${++serial}.txt`);
  writeFileSync(path, `${ids.join('\n')}\n`);
  return { path, ids };
}
const alive = (ids: string[]) => ids.filter((id) => world.sandbox.store.getByUuid(id));
const bulkDelete = (path: string, ...flags: string[]) => world.run(['persons', 'bulk-delete', '--file', path, '--yes', ...flags]);

describe('--jq or --template failing after the persons were changed', () => {
  it('bulk-delete: the success line, then the expression’s error, exit 9 (not 2, "nothing sent")', async () => {
    const { path, ids } = idsFile(3);
    const receipt = join(world.configDir, `jq-${serial}.json`);
    const res = await bulkDelete(path, '--receipt', receipt, '--jq', '.status | tonumber');
    expect(res.code, res.stderr).toBe(9);
    expect(alive(ids)).toEqual([]);
    expect(res.stderr).toMatch(/✔ 3 persons deleted .*; receipt: .*jq-\d+\.json\n/);
    expect(res.stderr).toMatch(/error: --jq "\.status \| tonumber" failed on the data: .*; the run itself is done, as said above/);
    expect(res.stderr.indexOf('✔')).toBeLessThan(res.stderr.indexOf('error:'));
    expect(JSON.parse(readFileSync(receipt, 'utf8')).counts.persons_deleted).toBe(3);
    expect(res.stdout).toBe('');
  });

  it('merge: the success line, then the expression’s error, exit 9', async () => {
    const [keep, other] = world.sandbox.store.listUuids(next, 2);
    next += 2;
    const res = await world.run(['persons', 'merge', keep, other, '--yes', '--jq', '.persons_merged | ascii_downcase']);
    expect(res.code, res.stderr).toBe(9);
    expect(world.sandbox.store.getByUuid(other)).toBeUndefined();
    expect(world.sandbox.store.getByUuid(keep)).toBeDefined();
    expect(res.stderr).toMatch(/✔ .*merged/);
    expect(res.stderr).toMatch(/error: --jq "\.persons_merged \| ascii_downcase" failed on the data: /);
  });

  it('persons delete: the ✔ line, then the expression’s error, exit 9', async () => {
    const [person] = world.sandbox.store.list({}, next++, 1);
    const res = await world.run(['persons', 'delete', person.uuid, '--yes', '--jq', 'error("no")']);
    expect(res.code, res.stderr).toBe(9);
    expect(world.sandbox.store.getByUuid(person.uuid)).toBeUndefined();
    expect(res.stderr).toMatch(
      new RegExp(
        `✔ [^\\n]*${person.uuid}[^\\n]*\\n(.*\\n)*error: --jq "error\\(\\\\"no\\\\"\\)" failed on the data: no; the change itself was made`,
      ),
    );
  });

  it('an expression that does not compile, or a template that calls no helper, is refused before anything is sent, exit 2', async () => {
    const { path, ids } = idsFile(2);
    const before = world.sandbox.requests.length;
    for (const filter of [
      ['--jq', '.status |'],
      ['--template', '{{nosuchhelper status}}'],
    ]) {
      const res = await bulkDelete(path, ...filter);
      expect(res.code, res.stderr).toBe(2);
    }
    expect(world.sandbox.requests.length).toBe(before);
    expect(alive(ids)).toEqual(ids);
  });
});

describe('a receipt the disk has no room for, after the deletions', () => {
  it('says what was deleted, that there is no receipt and how to write it (exit 9); --resume writes it', async () => {
    const { path, ids } = idsFile(4);
    const receipt = join(world.configDir, `full-disk-${serial}.json`);
    disk.room = 2048;
    const res = await bulkDelete(path, '--receipt', receipt);
    expect(res.code, res.stderr).toBe(9);
    expect(alive(ids)).toEqual([]);
    expect(res.stderr).toMatch(/✔ 4 persons deleted [^\n]*\n/);
    expect(res.stderr).not.toMatch(/receipt: .*full-disk/);
    expect(res.stderr).toMatch(
      /error: the receipt .*full-disk-\d+\.json could not be written \(no space left on the device\), so there is none/,
    );
    expect(res.stderr).toMatch(/--resume sends no more changes, it writes the receipt from the journal/);
    expect(existsSync(receipt)).toBe(false);

    const elsewhere = join(world.configDir, `written-${serial}.json`);
    const again = await bulkDelete(path, '--resume', '--receipt', elsewhere);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(readFileSync(elsewhere, 'utf8')).counts).toMatchObject({ persons_deleted: 4, sent: 4 });
  });
});

describe('a journal whose disk fills after the deletions went out', () => {
  it('says requests were sent (exit 9, not 2 "nothing sent"); the next run checks them and writes the receipt', async () => {
    const { path, ids } = idsFile(3);
    const journal = join(world.configDir, `full-disk-${serial}.ndjson`);
    const receipt = join(world.configDir, `journal-full-${serial}.json`);
    disk.journalFull = true;
    const res = await bulkDelete(path, '--journal', journal, '--receipt', receipt).finally(() => (disk.journalFull = false));
    expect(res.code, res.stderr).toBe(9);
    expect(alive(ids)).toEqual([]);
    expect(res.stderr).toMatch(
      /error: cannot write the journal .*: no space left on the device, after requests were sent: the journal holds every request sent, but may lack the answers of the last ones, and no receipt was written/,
    );
    expect(res.stderr).not.toMatch(/nothing was sent/);
    expect(existsSync(receipt)).toBe(false);

    const again = await bulkDelete(path, '--journal', journal, '--resume');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/checking 3 ids sent in 1 request of an earlier run whose answers were lost/);
    expect(JSON.parse(readFileSync(receipt, 'utf8')).counts).toMatchObject({ sent: 3, unconfirmed: 0 });
  });
});
