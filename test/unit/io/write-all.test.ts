// writeAll, through the files that use it, on a disk that fills up: write(2) writes fewer bytes
// than asked without an error, and a full disk fails the next write. A bundle's events files and
// its archive are written whole through short writes; an archive the disk has no room for is
// removed, never left cut short.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

/** Bytes the disk still takes, and the most one write takes. */
const disk = { room: Infinity, perWrite: Infinity };

vi.mock('../../../src/config/secret-file.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/config/secret-file.js')>();
  const openSecretFile = async (path: string, mode: 'create' | 'append') => {
    const handle = await real.openSecretFile(path, mode);
    const write = async (buffer: Buffer | string, offset = 0, length?: number) => {
      const data = typeof buffer === 'string' ? Buffer.from(buffer) : buffer;
      const take = Math.min(length ?? data.length - offset, disk.perWrite, disk.room);
      if (take === 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      disk.room -= take;
      return handle.write(data, offset, take);
    };
    return new Proxy(handle, {
      get: (target, prop) => (prop === 'write' ? write : (Reflect.get(target, prop, target) as unknown)),
    }) as FileHandle;
  };
  return { ...real, openSecretFile };
});

const { appendGzipLines, appendLines } = await import('../../../src/bulk/kinds/export/bundle.js');
const { writeZip } = await import('../../../src/bulk/kinds/export/zip.js');

const dir = mkdtempSync(join(tmpdir(), 'hogctl-bundle-short-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => Object.assign(disk, { room: Infinity, perWrite: Infinity }));

const lines = Array.from({ length: 2000 }, (_, i) => `${JSON.stringify({ event: 'pageview', i, at: `2026-01-01T00:00:${i % 60}Z` })}\n`);

describe('bundle files on a filling disk', () => {
  it('an events page and a plain file are written whole when each write takes only part', async () => {
    disk.perWrite = 512;
    await appendGzipLines(join(dir, 'events.ndjson.gz'), lines);
    expect(gunzipSync(readFileSync(join(dir, 'events.ndjson.gz'))).toString()).toBe(lines.join(''));
    await appendLines(join(dir, 'plain.ndjson'), lines);
    expect(readFileSync(join(dir, 'plain.ndjson'), 'utf8')).toBe(lines.join(''));
  });

  it('an archive the disk has room for only part of: an error naming it, and no archive left', async () => {
    const bundle = join(dir, 'bundle');
    rmSync(bundle, { recursive: true, force: true });
    mkdirSync(bundle);
    writeFileSync(join(bundle, 'a.ndjson'), lines.join(''));
    disk.room = 4096;
    disk.perWrite = 1024;
    const zip = join(dir, 'bundle.zip');
    const failed = await writeZip(bundle, ['a.ndjson'], zip, 'bundle').then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(failed?.message).toBe(`cannot write ${zip}: no space left on the device`);
    expect(existsSync(zip)).toBe(false);
  });
});
