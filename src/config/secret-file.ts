// Reading and writing the files that hold secrets (credentials.json, session jars, journals).
// A symbolic link in their place is refused, never followed: in a directory someone else can
// write to, a link would make hogctl write a key into a file of the attacker's choosing (or over
// one of the user's own), or read credentials from anywhere. Writes go to a temporary file in the
// same directory and are renamed into place, so a crash or a full disk never leaves a half-written
// file, and no temporary file is left behind on failure.
//
// Every failure of the file system becomes a UsageError (exit 2) that names the file and what to
// do: a read-only or foreign directory, a full disk and a link are problems of the machine's
// setup, not bugs.
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  // fs.promises, not node:fs/promises: node loads it on first use, and importing it cost every
  // command that reads its settings ~1 ms, for the journal and receipt files of bulk commands.
  promises,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CliError, UsageError } from '../errors.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND, O_NOFOLLOW, O_NONBLOCK } = constants;

/** A link where a secret file belongs. */
export class SymlinkRefusedError extends UsageError {}

function symlinkRefused(path: string): SymlinkRefusedError {
  return new SymlinkRefusedError(
    `refusing to use ${path}: it is a symbolic link, and hogctl never reads or writes a file that holds secrets through a link`,
    'put the file itself in place of the link (or use another path), and keep it in a directory only you can write to',
  );
}

/** A file system failure as the user must see it: the file, the cause, the fix. */
export function fileError(err: unknown, path: string, doing: 'read' | 'write' | 'create'): CliError {
  if (err instanceof CliError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  const what = `cannot ${doing} ${path}`;
  const elsewhere = 'or set HOGCTL_CONFIG_DIR to a directory of your own';
  switch (code) {
    case 'ELOOP':
      return symlinkRefused(path);
    case 'EACCES':
    case 'EPERM':
      return new UsageError(
        `${what}: permission denied`,
        `it, or its directory, belongs to another user or is read-only: fix the permissions (\`ls -ld ${dirname(path)}\`), ${elsewhere}`,
      );
    case 'EROFS':
      return new UsageError(`${what}: the file system is read-only`, `set HOGCTL_CONFIG_DIR to a writable directory`);
    case 'ENOSPC':
    case 'EDQUOT':
      return new UsageError(
        `${what}: no space left on the device`,
        `free some disk space (\`df -h ${dirname(path)}\`) and run the command again; the file was left as it was`,
      );
    case 'EISDIR':
      return new UsageError(`${what}: it is a directory`, `move it away, ${elsewhere}`);
    case 'EEXIST':
      return new UsageError(`${what}: a file is in the way of the directory`, `move it away, ${elsewhere}`);
    case 'ENOTDIR':
      return new UsageError(`${what}: a part of the path is a file, not a directory`, `check the path, ${elsewhere}`);
    default:
      return new UsageError(`${what}: ${(err as Error).message}`, `check the file and its directory, ${elsewhere}`);
  }
}

/**
 * The text of a secret file, or undefined when there is none. A file others can read is made
 * private again (a file, not a directory: hogctl wrote it 0600); if that fails, `onTooOpen` hears.
 */
export function readSecretFile(path: string, onTooOpen?: (path: string) => void): string | undefined {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO put in its place must not hang the command (it is refused below).
    fd = openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    // No file, or no directory for it: nothing stored yet (a write will say what is in the way).
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw fileError(err, path, 'read');
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile())
      throw new UsageError(
        `cannot read ${path}: it is not a regular file`,
        'move it away, or set HOGCTL_CONFIG_DIR to a directory of your own',
      );
    if ((info.mode & 0o077) !== 0) {
      try {
        fchmodSync(fd, 0o600);
      } catch {
        onTooOpen?.(path);
      }
    }
    return readFileSync(fd, 'utf8');
  } catch (err) {
    throw fileError(err, path, 'read');
  } finally {
    closeSync(fd);
  }
}

/** Replaces `path` with `text`, mode 0600, atomically; refuses a link at `path`. */
export function writeSecretFile(path: string, text: string): void {
  try {
    if (lstatSync(path).isSymbolicLink()) throw symlinkRefused(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw fileError(err, path, 'write');
  }
  let temp: string | undefined;
  try {
    temp = writeTemporary(path, text);
    renameSync(temp, path);
  } catch (err) {
    if (temp !== undefined) removeQuietly(temp);
    throw fileError(err, path, 'write');
  }
}

/**
 * Writes `text` to a new 0600 file beside `path` (never through a link), synced to disk, and
 * returns its name: renamed or linked into place by the caller, so no reader sees half a file.
 * A file that could not be written whole is removed.
 */
function writeTemporary(path: string, text: string): string {
  // O_EXCL makes the name safe; pid and a random part only keep concurrent writers apart.
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`);
  const fd = openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  try {
    const bytes = Buffer.from(text, 'utf8');
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    removeQuietly(temp);
    throw err;
  }
  closeSync(fd);
  return temp;
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // never created, or already renamed
  }
}

/**
 * Opens a secret file for appending (`create` refuses an existing one) without following a link.
 * Only a link is turned into an error here; other failures are left to the caller to word.
 */
export async function openSecretFile(path: string, mode: 'create' | 'append'): Promise<FileHandle> {
  try {
    return await promises.open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | (mode === 'create' ? O_EXCL : 0), 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // O_EXCL answers EEXIST for a link too; a link must not pass as "already exists".
    if (code === 'ELOOP' || (code === 'EEXIST' && isSymlink(path))) throw symlinkRefused(path);
    throw err;
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Creates `path` with `text`, mode 0600, only if nothing is there yet (true when it did). The text
 * is written to a temporary file first and linked into place, so that no reader ever sees a
 * half-written file and a file that appeared meanwhile is never replaced.
 */
export function createSecretFile(path: string, text: string): boolean {
  let temp: string | undefined;
  try {
    temp = writeTemporary(path, text);
    try {
      linkSync(temp, path);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
        if (isSymlink(path)) throw symlinkRefused(path);
        return false;
      }
      throw err;
    }
  } catch (err) {
    throw fileError(err, path, 'create');
  } finally {
    if (temp !== undefined) removeQuietly(temp);
  }
}
