// `--zip`: the finished bundle as one .zip file, written with Node's zlib (deflate and crc32)
// rather than a package: no archive package is among hogctl's dependencies, the format needed is
// small (PKWARE APPNOTE 6.3.x: local headers with data descriptors, a central directory, its end
// record), and the events files are streamed through it, never held whole. Entries are deflated
// (the gzip files only stored in deflate's stored blocks), named in UTF-8 under the bundle's
// directory name, and keep the files' 0600 mode for unzip. The archive is made 0600 and never
// written over an existing file. Zip64 is not written: a bundle of 4 GiB or more is refused.
import { createReadStream, statSync } from 'node:fs';
import { unlink, type FileHandle } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createDeflateRaw } from 'node:zlib';
import { join } from 'node:path';
import { UsageError } from '../../../errors.js';
import { formatNumber } from '../../../io/counts.js';
import { fileError, openSecretFile } from '../../../config/secret-file.js';
import { writeAll } from '../../../io/write-all.js';

const LIMIT = 0xffff_ffff;
const UTF8_AND_DESCRIPTOR = 0x0808;
const DEFLATE = 8;
/** Made by Unix (3), version 2.0; the external attributes then carry the mode. */
const MADE_BY = (3 << 8) | 20;

interface Entry {
  name: Buffer;
  offset: number;
  crc: number;
  size: number;
  compressed: number;
  time: number;
  date: number;
}

function dosTime(d: Date): { time: number; date: number } {
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    date: (Math.max(0, d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

/** Writes `files` (paths relative to `dir`) into a new `zipPath`, under the folder `root`. */
export async function writeZip(dir: string, files: string[], zipPath: string, root: string): Promise<void> {
  const total = files.reduce((k, f) => k + statSync(join(dir, f)).size, 0);
  if (total >= LIMIT) {
    throw new UsageError(
      `the bundle holds ${formatNumber(total)} bytes, more than a .zip without Zip64 can (4 GiB)`,
      'hand over the directory itself, or an archive made with another tool',
    );
  }
  const handle = await createZipFile(zipPath);
  const out: ZipOut = { handle, offset: 0 };
  try {
    const entries: Entry[] = [];
    for (const file of files) entries.push(await writeEntry(out, dir, file, root));
    const start = out.offset;
    for (const e of entries) await writeBytes(out, Buffer.concat([centralHeader(e), e.name]));
    await writeBytes(out, endRecord(entries.length, out.offset - start, start));
    await handle.sync();
  } catch (err) {
    // Part of an archive is no archive: none is left to be taken for the bundle.
    await handle.close().catch(() => {});
    await unlink(zipPath).catch(() => {});
    throw fileError(err, zipPath, 'write');
  }
  await handle.close();
}

/** The archive, made 0600 and never over an existing file. */
async function createZipFile(zipPath: string): Promise<FileHandle> {
  try {
    return await openSecretFile(zipPath, 'create');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new UsageError(`${zipPath} exists, and a bundle is never written over`, 'move it away, or give --out another directory');
    }
    throw fileError(err, zipPath, 'create');
  }
}

/** The archive being written, and how many bytes it holds so far (where the next entry starts). */
interface ZipOut {
  handle: FileHandle;
  offset: number;
}

async function writeBytes(out: ZipOut, bytes: Buffer): Promise<void> {
  out.offset += await writeAll(out.handle, bytes);
}

/** One file: its local header, its data deflated as it is read, and the descriptor that follows. */
async function writeEntry(out: ZipOut, dir: string, file: string, root: string): Promise<Entry> {
  const path = join(dir, file);
  const name = Buffer.from(`${root}/${file}`, 'utf8');
  const { time, date } = dosTime(statSync(path).mtime);
  const entry: Entry = { name, offset: out.offset, crc: 0, size: 0, compressed: 0, time, date };
  await writeBytes(out, Buffer.concat([localHeader(entry), name]));
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      entry.crc = crc32(chunk, entry.crc);
      entry.size += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(createReadStream(path), tap, createDeflateRaw({ level: file.endsWith('.gz') ? 0 : 6 }), async (compressed) => {
    for await (const chunk of compressed as AsyncIterable<Buffer>) {
      entry.compressed += chunk.length;
      await writeBytes(out, chunk);
    }
  });
  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(entry.crc >>> 0, 4);
  descriptor.writeUInt32LE(entry.compressed, 8);
  descriptor.writeUInt32LE(entry.size, 12);
  await writeBytes(out, descriptor);
  return entry;
}

function localHeader(entry: Entry): Buffer {
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(UTF8_AND_DESCRIPTOR, 6);
  local.writeUInt16LE(DEFLATE, 8);
  local.writeUInt16LE(entry.time, 10);
  local.writeUInt16LE(entry.date, 12);
  // crc and sizes (14..25) stay 0: the data descriptor after the data carries them.
  local.writeUInt16LE(entry.name.length, 26);
  return local;
}

function centralHeader(e: Entry): Buffer {
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(MADE_BY, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(UTF8_AND_DESCRIPTOR, 8);
  central.writeUInt16LE(DEFLATE, 10);
  central.writeUInt16LE(e.time, 12);
  central.writeUInt16LE(e.date, 14);
  central.writeUInt32LE(e.crc >>> 0, 16);
  central.writeUInt32LE(e.compressed, 20);
  central.writeUInt32LE(e.size, 24);
  central.writeUInt16LE(e.name.length, 28);
  central.writeUInt32LE((0o100600 << 16) >>> 0, 38);
  central.writeUInt32LE(e.offset, 42);
  return central;
}

/** The end of the central directory: how many entries, its size and where it starts. */
function endRecord(count: number, size: number, start: number): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(size, 12);
  end.writeUInt32LE(start, 16);
  return end;
}
