// writeReceipt on a disk that fills up: write(2) then writes fewer bytes than asked, without an
// error, and only the next write fails. The receipt is written whole through short writes, and
// when the disk is full nothing is left at its path or beside it.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

/** Bytes the disk still takes (Infinity: no limit), and the most one write takes. */
const disk = { room: Infinity, perWrite: Infinity };

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const open = async (...args: Parameters<typeof real.open>) => {
    const handle = await real.open(...args);
    const write = async (buffer: Buffer, offset = 0, length = buffer.length - offset) => {
      const take = Math.min(length, disk.perWrite, disk.room);
      if (take === 0 && length > 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      disk.room -= take;
      return handle.write(buffer, offset, take);
    };
    return new Proxy(handle, {
      get: (target, prop) => (prop === 'write' ? write : (Reflect.get(target, prop, target) as unknown)),
    }) as FileHandle;
  };
  return { ...real, open, default: { ...real, open } };
});

const { writeReceipt, ReceiptNotWrittenError } = await import('../../../../src/bulk/engine/receipt-write.js');
type Receipt = import('../../../../src/bulk/engine/receipt.js').Receipt;

const dir = mkdtempSync(join(tmpdir(), 'hogctl-receipt-short-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => Object.assign(disk, { room: Infinity, perWrite: Infinity }));

/** A receipt-like value of about 300 KB: one write of the receipt's megabyte buffer. */
const big = () => ({
  receipt_format: 2,
  ids: Array.from({ length: 8000 }, (_, i) => `0199aaaa-bbbb-7ccc-8ddd-${String(i).padStart(12, '0')}`),
});

describe('writeReceipt on a filling disk', () => {
  it('writes the whole receipt when each write takes only part of it', async () => {
    disk.perWrite = 40_960;
    const path = join(dir, 'short.json');
    const value = big();
    await writeReceipt(path, value as unknown as Receipt);
    expect(readFileSync(path, 'utf8')).toBe(`${JSON.stringify(value, null, 2)}\n`);
  });

  it('a disk with room for only part of it: an error naming the receipt, and no file at its path or beside it', async () => {
    disk.room = 100_000;
    const path = join(dir, 'full.json');
    const failed = await writeReceipt(path, big() as unknown as Receipt).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failed).toBeInstanceOf(ReceiptNotWrittenError);
    expect((failed as Error).message).toBe(`cannot write the receipt ${path}: no space left on the device`);
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('full'))).toEqual([]);
  });
});
