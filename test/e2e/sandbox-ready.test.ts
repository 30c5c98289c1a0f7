// End-to-end: `hogctl sandbox --ready-file` writes the file only once the server listens, with
// what a script needs, and removes it when the sandbox stops.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'hogctl-ready-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hogctl sandbox --ready-file', () => {
  it('appears once the server answers, and goes when it stops', async () => {
    const file = join(dir, 'sandbox.json');
    const child = spawn(process.execPath, [BIN, 'sandbox', '-q', '--persons', '20', '--ready-file', file], {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await expect.poll(() => existsSync(file), { timeout: 20_000, interval: 50 }).toBe(true);
    const ready = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(ready).sort()).toEqual(['api_key', 'host', 'pid', 'port', 'project_id', 'url']);
    expect(ready.url).toBe(`http://127.0.0.1:${ready.port}`);
    expect(ready.pid).toBe(child.pid);
    // The file promises a listening server: the first request succeeds.
    const res = await fetch(`${ready.url}/api/projects/${ready.project_id}/persons/?limit=1`, {
      headers: { authorization: `Bearer ${ready.api_key}` },
    });
    expect(res.status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(file), 'removed on exit').toBe(false);
  });

  it('an unwritable path is a clear error', async () => {
    const child = spawn(process.execPath, [BIN, 'sandbox', '-q', '--ready-file', join(dir, 'missing', 'dir', 'sandbox.json')], {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(stderr).toContain('cannot write --ready-file');
    expect(code).toBe(2);
  });
});

describe('hogctl sandbox -q | head -1', () => {
  it('returns once head has the line: the server stops when nobody reads its output any more', async () => {
    // A shell pipeline, as a user types it; the timeout only keeps a regression from hanging the suite.
    const child = spawn('bash', ['-c', `'${process.execPath}' '${BIN}' sandbox -q | head -1`], {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), project_id: 1 });
  });
});
