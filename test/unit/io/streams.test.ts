import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BrokenPipeError, colorEnabled, isBrokenPipe, writeAll } from '../../../src/io/streams.js';
import { Collector } from '../helpers.js';

describe('colorEnabled', () => {
  const tty = new Collector({ isTTY: true });
  const pipe = new Collector({ isTTY: false });

  it('follows the terminal by default', () => {
    expect(colorEnabled(tty, {}, undefined)).toBe(true);
    expect(colorEnabled(pipe, {}, undefined)).toBe(false);
    expect(colorEnabled(tty, { TERM: 'dumb' }, undefined)).toBe(false);
  });

  it('--no-color turns it off, even with FORCE_COLOR', () => {
    expect(colorEnabled(tty, {}, false)).toBe(false);
    expect(colorEnabled(tty, { FORCE_COLOR: '1' }, false)).toBe(false);
  });

  it('NO_COLOR turns it off when set to anything non-empty', () => {
    expect(colorEnabled(tty, { NO_COLOR: '1' }, undefined)).toBe(false);
    expect(colorEnabled(tty, { NO_COLOR: '1', FORCE_COLOR: '1' }, true)).toBe(false);
    expect(colorEnabled(tty, { NO_COLOR: '' }, undefined)).toBe(true);
  });

  it('FORCE_COLOR turns it on off a terminal, and 0/false turn it off', () => {
    expect(colorEnabled(pipe, { FORCE_COLOR: '1' }, undefined)).toBe(true);
    expect(colorEnabled(pipe, { FORCE_COLOR: '' }, undefined)).toBe(true);
    expect(colorEnabled(tty, { FORCE_COLOR: '0' }, undefined)).toBe(false);
    expect(colorEnabled(tty, { FORCE_COLOR: 'false' }, undefined)).toBe(false);
  });
});

describe('writeAll', () => {
  it('writes the text', async () => {
    const out = new Collector();
    await writeAll(out, 'hello\n');
    expect(out.text).toBe('hello\n');
  });

  it('waits for drain when the buffer is full', async () => {
    const callbacks: (() => void)[] = [];
    const slow = new Writable({
      highWaterMark: 4,
      write(_chunk, _enc, cb) {
        callbacks.push(() => cb());
      },
    });
    let done = false;
    const pending = writeAll(slow, 'more than four bytes').then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    callbacks.shift()!();
    await pending;
    expect(done).toBe(true);
  });

  it('rejects with BrokenPipeError when the stream closes while waiting', async () => {
    const stuck = new Writable({ highWaterMark: 1, write() {} });
    const pending = writeAll(stuck, 'abc');
    stuck.destroy();
    const err = await pending.catch((e) => e);
    expect(err).toBeInstanceOf(BrokenPipeError);
    expect(isBrokenPipe(err)).toBe(true);
  });

  it('rejects at once on a destroyed or ended stream', async () => {
    const gone = new Collector();
    gone.destroy();
    expect(await writeAll(gone, 'x').catch((e) => e)).toBeInstanceOf(BrokenPipeError);
    const ended = new Collector();
    ended.end();
    expect(await writeAll(ended, 'x').catch((e) => e)).toBeInstanceOf(BrokenPipeError);
  });

  it('isBrokenPipe knows EPIPE', () => {
    expect(isBrokenPipe(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBe(true);
    expect(isBrokenPipe(new Error('other'))).toBe(false);
  });
});
