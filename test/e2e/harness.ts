// Runs the built binary (bin/hogctl.cjs) as a child process against an in-process sandbox, with a
// private config dir, and captures what a user would see.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox, type Sandbox, type SandboxOptions } from '@hogctl/sandbox';

export const BIN = fileURLToPath(new URL('../../bin/hogctl.cjs', import.meta.url));

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  timeoutMs?: number;
  /** Another copy of the binary (default: this checkout's). */
  bin?: string;
}

/** Environment with nothing inherited that could change hogctl's behaviour. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8' };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

export function runCli(args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [options.bin ?? BIN, ...args], { env: cleanEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');
  });
}

/** Runs a command line hogctl printed (`hogctl ...`), through a shell, as a person would paste it. */
export function runPrinted(command: string, env: Record<string, string | undefined>): Promise<RunResult> {
  if (!command.startsWith('hogctl ')) throw new Error(`not a hogctl command line: ${command}`);
  const line = `'${process.execPath}' '${BIN}' ${command.slice('hogctl '.length)}`;
  return new Promise((resolvePromise, reject) => {
    const child = spawn('sh', ['-c', line], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolvePromise({ code, signal, stdout, stderr }));
  });
}

/** Spawns the CLI and hands back the child, for the tests that kill or interrupt it. */
export function spawnCli(args: string[], env: Record<string, string | undefined>) {
  const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  child.stdin.end();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, exited };
}

/** Polls every 10 ms until `check` gives a value other than false/undefined (a write the server
 * applies later, a line a child writes), and returns it; fails naming `what` after `timeoutMs`. */
export async function until<T>(check: () => T | false | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let value = check(); ; value = check()) {
    if (value !== false && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface World {
  sandbox: Sandbox;
  configDir: string;
  /** Env pointing the CLI at the sandbox with the default all-scopes key. */
  env: Record<string, string>;
  run(args: string[], options?: RunOptions): Promise<RunResult>;
  /** `run` while the sandbox injects these faults (faults.ts), cleared afterwards however it ends. */
  withFaults<T>(spec: string, run: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function startWorld(options: SandboxOptions = {}): Promise<World> {
  const sandbox = await startSandbox({ quiet: true, ...options });
  const configDir = mkdtempSync(join(tmpdir(), 'hogctl-e2e-'));
  const env = {
    HOGCTL_CONFIG_DIR: configDir,
    HOGCTL_BASE_URL: sandbox.url,
    HOGCTL_PROJECT_ID: String(sandbox.projectId),
    HOGCTL_API_KEY: sandbox.defaultKey,
  };
  return {
    sandbox,
    configDir,
    env,
    run: (args, runOptions = {}) => runCli(args, { ...runOptions, env: { ...env, ...runOptions.env } }),
    withFaults: async (spec, run) => {
      sandbox.setFaults(spec);
      try {
        return await run();
      } finally {
        sandbox.setFaults(undefined);
      }
    },
    close: async () => {
      await sandbox.close();
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}
