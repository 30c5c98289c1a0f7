// The bundle's files: a private directory that is never written over, and an events file that is
// a series of gzip members cut back to the recorded length.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendGzipLines,
  checkOutPath,
  createBundleDir,
  cutTo,
  STATE_FILE,
  listFiles,
} from '../../../../../src/bulk/kinds/export/bundle.js';
import { UsageError } from '../../../../../src/errors.js';
import { thrown } from '../../../helpers.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'hogctl-bundle-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('createBundleDir', () => {
  it('makes a new directory 0700, and takes an empty private one', () => {
    createBundleDir(join(root, 'a', 'b'));
    expect(statSync(join(root, 'a', 'b')).mode & 0o777).toBe(0o700);
    mkdirSync(join(root, 'empty'), { mode: 0o700 });
    createBundleDir(join(root, 'empty'));
  });

  it('refuses a directory that is not empty, an unfinished export, a link, a file and a directory others can read', () => {
    mkdirSync(join(root, 'full'));
    writeFileSync(join(root, 'full', 'manifest.json'), '{}');
    expect(thrown(() => createBundleDir(join(root, 'full')))).toMatchObject({
      message: expect.stringContaining('holds a finished bundle'),
    });
    mkdirSync(join(root, 'half'));
    writeFileSync(join(root, 'half', STATE_FILE), '{}');
    expect(thrown(() => createBundleDir(join(root, 'half'))).hint).toContain('--resume --out');
    symlinkSync(join(root, 'a-target'), join(root, 'link'));
    expect(thrown(() => createBundleDir(join(root, 'link'))).message).toContain('symbolic link');
    writeFileSync(join(root, 'file'), '');
    expect(thrown(() => createBundleDir(join(root, 'file'))).message).toContain('is a file');
    mkdirSync(join(root, 'open'));
    chmodSync(join(root, 'open'), 0o755);
    const open = thrown(() => createBundleDir(join(root, 'open')));
    expect(open).toBeInstanceOf(UsageError);
    expect(open.message).toContain('can be read by other users');
  });
});

describe('the events file', () => {
  it('is one gzip member a page, read back as one stream, 0600', async () => {
    const path = join(root, 'events.ndjson.gz');
    const first = await appendGzipLines(path, ['{"n":1}\n', '{"n":2}\n']);
    const second = await appendGzipLines(path, ['{"n":3}\n']);
    expect(second).toBeGreaterThan(first);
    expect(gunzipSync(readFileSync(path)).toString()).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('is cut back to the recorded length, dropping a page written after it', async () => {
    const path = join(root, 'events.ndjson.gz');
    const journaled = await appendGzipLines(path, ['{"n":1}\n']);
    await appendGzipLines(path, ['{"n":2}\n']);
    cutTo(path, journaled);
    expect(gunzipSync(readFileSync(path)).toString()).toBe('{"n":1}\n');
    cutTo(join(root, 'never-written'), 0);
  });
});

describe('listFiles', () => {
  it('lists every file under the bundle but the state file and the manifest, sorted, with /', () => {
    mkdirSync(join(root, 'p', 'q'), { recursive: true });
    for (const f of ['p/q/b.json', 'p/a.json', 'summary.html', STATE_FILE, 'manifest.json']) writeFileSync(join(root, f), '');
    expect(listFiles(root)).toEqual(['p/a.json', 'p/q/b.json', 'summary.html']);
  });
});

describe('checkOutPath', () => {
  it('takes a directory of its own, with its archive beside it', () => {
    checkOutPath(join(root, 'lee-export'), join(root, 'lee-export.zip'));
    checkOutPath(`${join(root, 'lee-export')}/`, null);
  });

  it('refuses . and .. as the last part, the current directory, a root, and an archive inside the bundle', () => {
    for (const out of ['.', './', '..', `${root}/.`, `${join(root, 'a')}/..`, process.cwd(), '/']) {
      const err = thrown(() => checkOutPath(out, null));
      expect(err).toBeInstanceOf(UsageError);
      expect(err.message).toContain(`--out ${out} cannot hold a bundle`);
      expect(err.hint).toContain('--out ./');
    }
    expect(thrown(() => checkOutPath(join(root, 'b'), join(root, 'b', 'b.zip'))).message).toContain('inside it');
  });
});
