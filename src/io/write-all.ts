// Every byte of a buffer into a file. write(2) may write fewer bytes than asked without an error
// (a disk that fills up midway writes what fits), and FileHandle.write hands that count back
// unchecked: a caller that ignores it leaves a file cut short and believes it whole. Every file
// hogctl names afterwards (a receipt, a bundle's files, its archive) is written through here.
import type { FileHandle } from 'node:fs/promises';

/** Writes all of `bytes` at the handle's position, in as many writes as it takes. A write that
 * writes nothing is a full disk: it is thrown as ENOSPC, not looped on. */
export async function writeAll(handle: Pick<FileHandle, 'write'>, bytes: Buffer | string): Promise<number> {
  const data = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  for (let at = 0; at < data.length;) {
    const { bytesWritten } = await handle.write(data, at, data.length - at);
    if (bytesWritten <= 0) throw Object.assign(new Error('no space left on the device (a write wrote nothing)'), { code: 'ENOSPC' });
    at += bytesWritten;
  }
  return data.length;
}
