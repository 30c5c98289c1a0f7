import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openInputFile } from '../../../src/io/input-file.js';
import { UsageError } from '../../../src/errors.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hogctl-input-file-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function text(stream: Readable): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += String(chunk);
  return out;
}

function fifo(name: string): string {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  return path;
}

describe('openInputFile', () => {
  it('reads a regular file', async () => {
    const path = join(dir, 'ids.txt');
    writeFileSync(path, 'a\nb\n');
    expect(await text(openInputFile(path, '--file'))).toBe('a\nb\n');
  });

  it('opens a FIFO at once and waits for a writer that comes later', async () => {
    const path = fifo('late');
    const stream = openInputFile(path, '--file');
    const read = text(stream);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const writer = await open(path, 'w');
    await writer.write('x\ny\n');
    await writer.close();
    expect(await read).toBe('x\ny\n');
  });

  it('a FIFO with no writer: the abort signal ends the wait with its reason', async () => {
    const path = fifo('nobody');
    const controller = new AbortController();
    const read = text(openInputFile(path, '--file', controller.signal));
    setTimeout(() => controller.abort(new Error('interrupted')), 20);
    await expect(read).rejects.toThrow(/abort/i);
  });

  it('refuses a device (a terminal, /dev/zero) with a usage error, before reading', () => {
    expect(() => openInputFile('/dev/zero', '--file')).toThrow(UsageError);
    expect(() => openInputFile('/dev/zero', '--emails')).toThrow(/is not a file or a pipe .*--emails reads a file of ids/);
  });

  it('refuses a directory and names a missing file', () => {
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    expect(() => openInputFile(sub, '--file')).toThrow(`${sub} is a directory, not a file of ids`);
    expect(() => openInputFile(join(dir, 'none'), '--file')).toThrow(/^no such file: /);
  });
});
