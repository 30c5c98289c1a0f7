// The streams a command talks through, and the terminal facts derived from them. Tests pass
// their own streams; the real process streams are used only by bin/hogctl.cjs.
import type { Readable, Writable } from 'node:stream';

export type OutStream = Writable & { isTTY?: boolean; columns?: number };
export type InStream = Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };

export interface Io {
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
}

/** Help reads best at no more than 80 columns; a narrower terminal gets it wrapped to fit. */
export function helpWidth(stream: OutStream): number {
  return stream.isTTY && stream.columns ? Math.min(stream.columns, 80) : 80;
}

/** Colour follows --no-color, then NO_COLOR, then FORCE_COLOR, then whether the stream is a terminal. */
export function colorEnabled(stream: OutStream, env: NodeJS.ProcessEnv, flag: boolean | undefined): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

/** Raised when stdout's reader went away (`hogctl ... | head`); main() exits 0 quietly on it. */
export class BrokenPipeError extends Error {
  constructor() {
    super('broken pipe');
  }
}

export function isBrokenPipe(err: unknown): boolean {
  return err instanceof BrokenPipeError || (err as NodeJS.ErrnoException)?.code === 'EPIPE';
}

/** Writes and, when the stream's buffer is full, waits for it to drain, so that paging never
 * runs ahead of a slow reader and memory stays constant. */
export function writeAll(stream: OutStream, text: string): Promise<void> {
  if (stream.destroyed || stream.writableEnded) return Promise.reject(new BrokenPipeError());
  if (stream.write(text)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      stream.off('close', onClose);
      resolve();
    };
    const onClose = () => {
      stream.off('drain', onDrain);
      reject(new BrokenPipeError());
    };
    stream.once('drain', onDrain);
    stream.once('close', onClose);
  });
}
