// Writing a journal: records appended and made durable before each request goes out, and what a
// journal that cannot be opened or written says.
import { open as openFile, type FileHandle } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import { CliError, UsageError } from '../../errors.js';
import { openSecretFile } from '../../config/secret-file.js';
import type { JournalRecord } from './journal-format.js';

/** A journal that cannot be opened or written (journalError): exit 2 while nothing was sent; once
 * something was, the run says so instead (run.ts). */
export class JournalFileError extends UsageError {}

/**
 * A journal that cannot be opened or written: a problem of the machine (a full disk, a read-only
 * or foreign directory), exit 2 while nothing was sent (exit 9 after: run.ts), with what to free
 * or where to move it. Nothing is ever sent
 * without its journal line, so what the journal holds is still the whole truth.
 */
export function journalError(err: unknown, path: string, doing: 'open' | 'write'): CliError {
  const code = (err as NodeJS.ErrnoException).code;
  const dir = dirname(resolvePath(path));
  const move = `or move the journal to another disk (\`mv ${path} <new path>\`) and continue with --journal <new path> --resume`;
  const nothingLost = doing === 'write' ? '; no request was sent without its journal line' : '; nothing was sent';
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
    case 'EFBIG':
      return new JournalFileError(
        `cannot ${doing} the journal ${path}: ${code === 'EDQUOT' ? 'the disk quota is used up' : code === 'EFBIG' ? 'the file is larger than this system allows' : 'no space left on the device'}`,
        `free space on the disk of ${dir} (\`df -h ${dir}\`), ${move}${nothingLost}`,
      );
    case 'EROFS':
    case 'EACCES':
    case 'EPERM':
      return new JournalFileError(
        `cannot ${doing} the journal ${path}: ${code === 'EROFS' ? 'the file system is read-only' : 'permission denied'}`,
        `pass --journal with a path you can write to${nothingLost}`,
      );
    default:
      return new JournalFileError(
        `cannot ${doing} the journal ${path}: ${(err as Error).message}`,
        `check the disk and the directory ${dir}, ${move}${nothingLost}`,
      );
  }
}

/**
 * Where a journal whose last line is torn should be cut (just after its last newline, or 0), or
 * undefined when it ends whole. Reads the file backwards a block at a time: a journal of ten
 * million ids is hundreds of megabytes, and only its end matters here.
 */
async function lastLineEnd(path: string): Promise<number | undefined> {
  const file = await openFile(path, 'r');
  try {
    const size = (await file.stat()).size;
    const block = Buffer.alloc(64 * 1024);
    for (let end = size; end > 0;) {
      const start = Math.max(0, end - block.length);
      const { bytesRead } = await file.read(block, 0, end - start, start);
      const bytes = block.subarray(0, bytesRead);
      if (end === size && bytes[bytes.length - 1] === 0x0a) return undefined;
      const nl = bytes.lastIndexOf(0x0a);
      if (nl !== -1) return start + nl + 1;
      end = start;
    }
    return size === 0 ? undefined : 0;
  } finally {
    await file.close();
  }
}

/**
 * Appends records and makes them durable before the returned promise settles. Appends that
 * arrive while a write is on its way share the next write and fsync, so concurrent chunks do not
 * queue behind one fsync each.
 */
export class JournalWriter {
  private queue: { line: string; resolve: () => void; reject: (err: Error) => void }[] = [];
  private flushing = false;
  private failure: Error | undefined;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  /** `create` refuses an existing file; `append` first drops a last line torn by a crash (it
   * can only be the record of a write that never completed, so nothing depended on it). */
  static async open(path: string, mode: 'create' | 'append'): Promise<JournalWriter> {
    try {
      const handle = await openSecretFile(path, mode);
      const writer = new JournalWriter(path, handle);
      if (mode === 'append') {
        const end = await lastLineEnd(path);
        if (end !== undefined) {
          await handle.truncate(end);
          await handle.datasync();
        }
      }
      return writer;
    } catch (err) {
      if (err instanceof CliError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST')
        throw new UsageError(
          `journal ${path} already exists`,
          'pass --resume to continue that run, or --journal <path> to start a new one',
        );
      throw journalError(err, path, 'open');
    }
  }

  append(record: JournalRecord): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ line: `${JSON.stringify(record)}\n`, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0);
      try {
        await this.handle.appendFile(batch.map((b) => b.line).join(''));
        await this.handle.datasync();
        for (const b of batch) b.resolve();
      } catch (err) {
        this.failure = journalError(err, this.path, 'write');
        for (const b of batch) b.reject(this.failure);
      }
    }
    this.flushing = false;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}
