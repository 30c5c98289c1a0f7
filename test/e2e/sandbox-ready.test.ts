// End-to-end: `hogctl sandbox --ready-file` writes the file only once the server listens, with
// what a script needs, and removes it when the sandbox stops; the banner a newcomer reads.
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv } from './harness.js';
import { runInTerminal } from './terminal.js';

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

describe('the banner', () => {
  it('fits 80 columns, says why project 3 is there, and its profile line saves a profile that survives a restart', async () => {
    const config = join(dir, 'banner-config');
    const shown = await runInTerminal(
      ['sandbox', '--persons', '20', '--seed', '7'],
      {},
      [{ when: 'Press Ctrl-C to stop.', send: '\x03' }],
      30_000,
      {
        columns: 80,
        rows: 24,
      },
    );
    const lines = shown.output.replace(/\r/g, '').split('\n');
    const banner = lines.slice(lines.findIndex((l) => l.startsWith('hogctl sandbox:')));
    for (const line of banner) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(shown.output).toContain('3: 5 persons in another organisation (the key gets 403 there)');

    // Off a terminal the lines are whole; the printed command runs as printed (npx hogctl here,
    // where hogctl is not on the PATH, stands for this checkout's binary).
    const port = await freePort();
    const first = await startCli(['sandbox', '--persons', '20', '--seed', '7', '--port', String(port)]);
    const command = first.stderr.slice(first.stderr.indexOf('  printf %s'), first.stderr.indexOf('Press Ctrl-C'));
    expect(command).toMatch(
      /^ {2}printf %s phx_\w+ \|\n {4}npx hogctl profile add sandbox --base-url http:\/\/127\.0\.0\.1:\d+ \\\n {6}--project 1 --api-key-stdin\n/,
    );
    const shell = `npx() { shift; '${process.execPath}' '${BIN}' "$@"; }\n${command}`;
    const saved = spawnSync('bash', ['-c', shell], { env: cleanEnv({ HOGCTL_CONFIG_DIR: config }), encoding: 'utf8' });
    expect(saved.status, saved.stderr).toBe(0);
    await first.stop();

    const second = await startCli(['sandbox', '--persons', '20', '--seed', '7', '--port', String(port)]);
    const list = spawnSync(process.execPath, [BIN, 'persons', 'list', '--limit', '1', '-o', 'json'], {
      env: cleanEnv({ HOGCTL_CONFIG_DIR: config }),
      encoding: 'utf8',
    });
    await second.stop();
    expect(list.status, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toHaveLength(1);
  });
});

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** `hogctl sandbox ...` running until stop(), with its banner read off stderr (not a terminal). */
async function startCli(args: string[]): Promise<{ stderr: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  await expect.poll(() => stderr.includes('Press Ctrl-C to stop.'), { timeout: 20_000, interval: 50 }).toBe(true);
  return {
    stderr,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
