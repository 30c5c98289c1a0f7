// Opens a file the user names as input (`--file`, `--emails`) without ever blocking the process.
//
// A FIFO opened for reading the usual way waits in the kernel until a writer appears, and node
// makes that wait in a libuv threadpool thread: nothing can end it, and node joins that thread
// at exit, so neither Ctrl-C nor SIGTERM nor process.exit() gets the process out. Opened with
// O_NONBLOCK the open returns at once; a FIFO or pipe is then read as a socket is (epoll, on the
// event loop), which still waits for a writer that has not come yet (the kernel reports no
// end of file before one has come and gone), so `--file <(cmd)` and a writer that starts later
// both work, and the abort signal ends the wait. A terminal, /dev/zero or another device is no
// file of ids: it is refused, before anything is read.
import { closeSync, constants, createReadStream, fstatSync, openSync } from 'node:fs';
import { Socket } from 'node:net';
import { addAbortSignal, type Readable } from 'node:stream';
import { UsageError } from '../errors.js';

/**
 * A stream of the file's bytes. Aborting `signal` destroys it, so that a reader waiting for a
 * FIFO's writer (or a slow one) stops with the signal's reason.
 */
export function openInputFile(path: string, flag: string, signal?: AbortSignal): Readable {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw openError(err as NodeJS.ErrnoException, path, flag);
  }
  let stream: Readable;
  try {
    const info = fstatSync(fd);
    if (info.isDirectory()) throw new UsageError(`${path} is a directory, not a file of ids`);
    if (info.isFile()) stream = createReadStream('', { fd, highWaterMark: 256 * 1024 });
    else if (info.isFIFO()) stream = new Socket({ fd, readable: true, writable: false });
    else
      throw new UsageError(
        `${path} is not a file or a pipe (a terminal or another device): ${flag} reads a file of ids`,
        `pass a file's path, or - to read standard input (\`${flag} - < ids.txt\`); nothing was sent`,
      );
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return signal ? addAbortSignal(signal, stream) : stream;
}

function openError(err: NodeJS.ErrnoException, path: string, flag: string): UsageError {
  const why =
    err.code === 'EACCES' || err.code === 'EPERM'
      ? 'permission denied'
      : // A Unix socket cannot be opened as a file.
        err.code === 'ENXIO'
        ? 'it is a socket, not a file'
        : err.message;
  return new UsageError(
    err.code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path}: ${why}`,
    `check the path given to ${flag} and its permissions; nothing was sent`,
  );
}
