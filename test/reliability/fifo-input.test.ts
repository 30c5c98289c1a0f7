// Reliability: `--file` naming a FIFO. Before, a FIFO nobody wrote to hung the command for good:
// the open waited in a threadpool thread that node joins at exit, so SIGTERM and Ctrl-C (twice)
// were ignored and only SIGKILL ended it. Now the wait for a writer ends with the signal (exit
// 130, nothing sent), and a pipe with a writer, as `--file <(cmd)` gives, is read as before.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, spawnCli } from '../e2e/harness.js';

let dir: string;
let env: Record<string, string>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hogctl-fifo-'));
  // Nothing listens there: the command must stop before it would send anything.
  env = { HOGCTL_BASE_URL: 'http://127.0.0.1:9', HOGCTL_API_KEY: 'phx_fifotestkey000000000000000000000000000000', HOGCTL_PROJECT_ID: '1' };
  env.HOGCTL_CONFIG_DIR = join(dir, 'config');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether the process has `path` open (Linux's /proc). */
function hasOpen(pid: number, path: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

async function waitUntil(check: () => boolean, ms: number): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end && !check();) await new Promise((resolve) => setTimeout(resolve, 25));
}

/** The child's exit, or a SIGKILL after `ms` (which the test then fails on). */
async function exitWithin<T>(child: { kill(signal: NodeJS.Signals): boolean }, exited: Promise<T>, ms: number): Promise<T> {
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}

describe('--file naming a FIFO that nobody writes to', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} ends the wait: exit 130, nothing sent`, async () => {
      const fifo = join(dir, `ids-${signal}`);
      execFileSync('mkfifo', [fifo]);
      const { child, exited } = spawnCli(['persons', 'bulk-delete', '--file', fifo, '--yes'], env);
      // Waiting for the writer; the old code never got as far as an open file here.
      await waitUntil(() => hasOpen(child.pid!, fifo), 5000);
      child.kill(signal);
      const res = await exitWithin(child, exited, 4000);
      expect(res.signal).toBeNull();
      expect(res.code).toBe(130);
      expect(res.stderr).toMatch(/cancelled; nothing was sent/);
    });
  }
});

describe('--file <(cmd): a pipe with a writer', () => {
  it('is read: its values are checked like a file', async () => {
    const line = `'${process.execPath}' '${BIN}' persons bulk-delete --yes --file <(printf 'not-an-id\\n')`;
    const child = spawn('bash', ['-c', line], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const code = await exitWithin(child, new Promise<number | null>((resolve) => child.on('close', resolve)), 10_000);
    expect(code).toBe(2);
    expect(stderr).toMatch(/not-an-id/);
  });
});
