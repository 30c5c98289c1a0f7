// hogctl's verbs in this process: `main(argv, deps)` against a sandbox in this process, on the
// real clock, with the same world and results as the black-box harness (test/e2e/harness.ts), so
// that a test reads the same whichever runs it. No child process is started: a spawned hogctl
// costs about 0.2 s of CPU before it sends its first request, and the suite ran some 600 of them.
// What only the built binary can show (start-up, signals, kills, full disks, the package, help
// answered from files) stays in test/e2e/ and test/reliability/; test/e2e/smoke.test.ts runs each
// verb once as a child process. Scenarios that wait on rate windows and backoff run on the
// virtual clock instead (test/cli/virtual-harness.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Agent } from 'undici';
import { startSandbox, type SandboxOptions } from '@hogctl/sandbox';
import { main } from '../../src/main.js';
import { cleanEnv, type RunOptions, type RunResult, type World } from '../e2e/harness.js';
import { Screen } from './virtual-harness.js';

export type { RunOptions, RunResult, World } from '../e2e/harness.js';

/** `hogctl <args>` in this process, as `runCli` spawns it: the same clean environment, stdin
 * given and closed, stdout and stderr not terminals. `options.bin` is not for this harness. */
export async function runCli(args: string[], options: RunOptions = {}, dispatcher?: Agent): Promise<RunResult> {
  if (options.bin) throw new Error('runCli in this process runs this checkout; spawn test/e2e/harness.ts runCli for another binary');
  const stdout = new Screen();
  const stderr = new Screen();
  const stdin = Readable.from(options.stdin ? [options.stdin] : []) as unknown as NodeJS.ReadStream;
  const agent = dispatcher ?? new Agent({ keepAliveTimeout: 1_000 });
  try {
    const code = await withTimeout(
      main(args, { io: { stdout, stderr, stdin }, env: cleanEnv(options.env), dispatcher: agent }),
      options.timeoutMs ?? 60_000,
      args,
    );
    return { code, signal: null, stdout: stdout.text, stderr: stderr.text };
  } finally {
    if (!dispatcher) await agent.close();
  }
}

/** A run that does not end in time fails the test, naming the command, as a killed child would. */
async function withTimeout<T>(work: Promise<T>, ms: number, args: string[]): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hogctl ${args.join(' ')} did not end within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A sandbox in this process, a private config dir, and `run` calling `main()` here. */
export async function startWorld(options: SandboxOptions = {}): Promise<World> {
  const sandbox = await startSandbox({ quiet: true, ...options });
  const configDir = mkdtempSync(join(tmpdir(), 'hogctl-cli-'));
  // One pool for every run of the world, as a long-lived process would keep; closed with it.
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 16 });
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
    run: (args, runOptions = {}) => runCli(args, { ...runOptions, env: { ...env, ...runOptions.env } }, agent),
    withFaults: async (spec, run) => {
      sandbox.setFaults(spec);
      try {
        return await run();
      } finally {
        sandbox.setFaults(undefined);
      }
    },
    close: async () => {
      await agent.close();
      await sandbox.close();
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}
