// The files of a subject-access bundle: personal data of one person, so the directory is 0700
// and every file 0600, none written through a symbolic link (src/config/secret-file.ts), and an
// existing bundle is never written over: a new export needs a directory that does not exist or
// is empty, and only --resume continues one (its state file, export-state.json, says it is unfinished).
//
// The events file is written as one gzip member per page of events, each appended whole and
// synced before the export's state records the file's new length: gzip readers (gunzip, zcat, Node's
// zlib) read concatenated members as one stream, and a crash in the middle of a page leaves
// bytes past the recorded length, which --resume cuts off before it asks for that page again.
// So every event is in the file exactly once, and memory holds one page at most.
import { createHash } from 'node:crypto';
import { createReadStream, lstatSync, mkdirSync, readdirSync, statSync, truncateSync } from 'node:fs';
import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import { join, parse, relative, resolve, sep } from 'node:path';
import { UsageError } from '../../../errors.js';
import { fileError, openSecretFile, writeSecretFile } from '../../../config/secret-file.js';
import { writeAll } from '../../../io/write-all.js';

export const STATE_FILE = 'export-state.json';
export const MANIFEST_FILE = 'manifest.json';

/**
 * Refuses an --out that cannot be a bundle's own directory, before anything is asked or written:
 * `.` or `..` as its last part (the bundle and its archive are named after that part, so `--out
 * . --zip` once wrote `..zip` inside the bundle and then could not remove `.`), the current
 * directory, a root, or a directory the archive (`zip`, with --zip) would be written into.
 */
export function checkOutPath(out: string, zip: string | null): void {
  const dir = resolve(out);
  const last = out
    .replace(/[\\/]+$/, '')
    .split(/[\\/]/)
    .pop();
  const why =
    last === '.' || last === '..'
      ? `it ends in "${last}"`
      : dir === process.cwd()
        ? 'it is the current directory'
        : dir === parse(dir).root
          ? 'it is the root of the file system'
          : zip !== null && resolve(zip).startsWith(dir + sep)
            ? `the archive (${zip}) would be written inside it`
            : undefined;
  if (why === undefined) return;
  throw new UsageError(
    `--out ${out} cannot hold a bundle: ${why}; nothing was written`,
    'give --out a directory of its own, named for the request, e.g. --out ./lee-export (hogctl creates it 0700)',
  );
}

/** Makes the bundle's directory (0700), or checks that a new export may use it. */
export function createBundleDir(dir: string): void {
  if (checkBundleDir(dir)) return;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw fileError(err, dir, 'create');
  }
}

/** Checks that a new export may write its bundle into `dir`, without making it: true when it
 * exists already (empty and private). */
export function checkBundleDir(dir: string): boolean {
  let entries: string[] | undefined;
  try {
    const st = lstatSync(dir);
    if (st.isSymbolicLink()) {
      throw new UsageError(`refusing to write the bundle into ${dir}: it is a symbolic link`, 'give --out a directory of its own');
    }
    if (!st.isDirectory()) throw new UsageError(`--out ${dir} is a file, not a directory`, 'give --out a new directory');
    entries = readdirSync(dir);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw fileError(err, dir, 'create');
  }
  if (entries === undefined) return false;
  if (entries.includes(STATE_FILE)) {
    throw new UsageError(
      `${dir} holds an export that did not finish`,
      `continue it with \`hogctl persons export --resume --out ${dir}\`, or give --out a new directory`,
    );
  }
  if (entries.length > 0) {
    throw new UsageError(
      `${dir} is not empty${entries.includes(MANIFEST_FILE) ? ': it holds a finished bundle' : ''}, and a bundle is never written over`,
      'give --out a new directory (or move the old one away first)',
    );
  }
  if ((statSync(dir).mode & 0o077) !== 0) {
    throw new UsageError(
      `${dir} can be read by other users (mode ${(statSync(dir).mode & 0o777).toString(8)}), and a bundle holds personal data`,
      `make it private first (\`chmod 700 ${dir}\`), or give --out a new directory, which hogctl creates 0700`,
    );
  }
  return true;
}

/** A sub-directory of the bundle, 0700. */
export function makeDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw fileError(err, dir, 'create');
  }
}

/** A JSON file of the bundle: 0600, replaced whole. */
export function writeJson(path: string, value: unknown): void {
  writeSecretFile(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Text handed to the compressor at once: a page of 50,000 events is never one string. */
const GZIP_BATCH_CHARS = 1 << 20;

/** Appends lines as one gzip member and syncs; returns the file's length after it. The lines are
 * compressed a megabyte at a time as they come, so a page is never joined into one string nor
 * one buffer: only its compressed form (a tenth of it) is held until it is written. */
export async function appendGzipLines(path: string, lines: Iterable<string>): Promise<number> {
  const gzip = createGzip();
  const compressed: Buffer[] = [];
  gzip.on('data', (b: Buffer) => compressed.push(b));
  const ended = once(gzip, 'end');
  let batch: string[] = [];
  let chars = 0;
  for (const line of lines) {
    batch.push(line);
    chars += line.length;
    if (chars >= GZIP_BATCH_CHARS) {
      if (!gzip.write(batch.join(''))) await once(gzip, 'drain');
      batch = [];
      chars = 0;
    }
  }
  gzip.end(batch.join(''));
  await ended;
  const handle = await openSecretFile(path, 'append').catch((err: unknown) => {
    throw fileError(err, path, 'write');
  });
  try {
    await writeAll(handle, Buffer.concat(compressed));
    await handle.sync();
    return (await handle.stat()).size;
  } catch (err) {
    throw fileError(err, path, 'write');
  } finally {
    await handle.close();
  }
}

/** Appends lines to a plain file (0600), synced. */
export async function appendLines(path: string, lines: string[]): Promise<void> {
  const handle = await openSecretFile(path, 'append').catch((err: unknown) => {
    throw fileError(err, path, 'write');
  });
  try {
    await writeAll(handle, lines.join(''));
    await handle.sync();
  } catch (err) {
    throw fileError(err, path, 'write');
  } finally {
    await handle.close();
  }
}

/** Cuts a file back to the length the state recorded (what a stopped run wrote past it). */
export function cutTo(path: string, length: number): void {
  try {
    if (statSync(path).size > length) truncateSync(path, length);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && length === 0) return;
    throw fileError(err, path, 'write');
  }
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Every file under `dir`, as paths relative to it with `/`, sorted; the state file left out. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) out.push(relative(dir, path).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.filter((p) => p !== STATE_FILE && p !== MANIFEST_FILE && !p.startsWith('.')).sort();
}
