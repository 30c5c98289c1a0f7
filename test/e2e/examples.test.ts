// Every example runs. The examples are discovered, not listed: the `$ ...` lines of every
// command's --help (walking the tree buildProgram() builds) and the shell blocks of README.md and
// of the pages under docs/ (the command reference and help topics moved there).
// Each one runs verbatim in bash, with `hogctl` on the PATH being this checkout's binary,
// against a FRESH sandbox (so destructive examples cannot spoil the others) and a fresh config
// directory holding the profiles the examples name (prod, the current one, staging, old) with a
// signed-in session, in a directory holding the files the examples name (copied from examples/).
// An example that exits non-zero fails. The few that cannot run here are matched by SKIPS,
// each with its reason, and listed in the test output.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/program.js';
import { examplesOf } from '../../src/docs/reference.js';
import { main } from '../../src/main.js';
import { ProfileStore } from '../../src/config/profiles.js';
import { startSandbox } from '@hogctl/sandbox';
import { BIN } from './harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Two at a time: the machine has two cores, and each example is a bash and a node process. */
const PARALLEL = 2;

/** Examples that cannot run against a local sandbox without a person at the keyboard. */
const SKIPS: [RegExp, string][] = [
  [
    /^hogctl profile add prod$|^hogctl auth login( --profile prod --email \S+)?$|^hogctl users 2fa (enable|disable)$/,
    'asks questions on a terminal (the prompt tests cover it)',
  ],
  [/\$POSTHOG_KEY|\$POSTHOG_PASSWORD|HOGCTL_API_KEY=\.\.\./, 'needs a real API key or password'],
  [/https:\/\/(us|eu)\.posthog\.com|<link from the e-mail>|<uuid>|pbpaste/, 'needs a real PostHog host or a link from a real e-mail'],
  [
    /^hogctl sandbox --persons 100000 --port 8010$|^hogctl sandbox --rate-limit|^hogctl sandbox --key|^hogctl sandbox --duplicates/,
    'starts a server that runs until Ctrl-C (sandbox-ready.test.ts covers it)',
  ],
  [/^npm |^npx hogctl demo|^npm ci/, 'installs or builds the package (package.test.ts covers it)'],
  [/--code 123456|users 2fa validate 123456/, 'needs a code from an authenticator app'],
  [/--email-code 123456/, 'needs the code PostHog e-mails after the password step (test/cli/auth/login.email-code.test.ts covers it)'],
  [/^hogctl users 2fa enable > /, 'asks for a code, so it needs a terminal'],
  [
    /^hogctl (persons (delete|delete-events|delete-recordings|split|bulk-delete)|profile remove|events delete)\b(?!.*(--yes|-y\b|--dry-run))/,
    'asks for confirmation on a terminal (the same command with --yes runs here)',
  ],
  [/^hogctl persons bulk-delete .*--resume/, 'continues an interrupted run (test/cli/persons/bulk-delete.test.ts covers --resume)'],
  [/^hogctl persons funnel-correlation/, 'the newest PostHog, like the sandbox, removed /persons/funnel/correlation/ (404)'],
  [/^hogctl users 2fa (backup-codes|disable)/, 'needs 2FA turned on first, with a code from an authenticator app'],
  [/^hogctl email cancel-change/, 'needs a pending e-mail change (email.test.ts covers it)'],
  [
    /^hogctl email verify( 123456 --uuid \S+)?$/,
    'needs the code PostHog e-mails for a pending change, typed at a prompt or given (email.test.ts covers both)',
  ],
  [
    /--plan plan\.json/,
    'applies the plan that the --plan-out example writes, for the same sandbox (test/cli/persons/bulk-delete.erasure-case.test.ts runs both)',
  ],
  [/erasure-status --receipt/, 'checks the receipt of an earlier erasure (test/cli/persons/bulk-delete.erasure-case.test.ts runs both)'],
  [/^hogctl persons receipt /, 'shows the receipt of an earlier run (test/cli/persons/receipt.view.test.ts runs both)'],
  [/^hogctl persons export --resume/, 'continues an export that stopped (persons-export.test.ts kills one and resumes it)'],
  [
    /^hogctl events deletion-requests \S+/,
    'names a request an earlier `events delete` made (test/cli/events/delete.flow.test.ts shows one)',
  ],
  [/^hogctl persons bulk-update .*--resume/, 'continues an interrupted run (bulk-update-capture.test.ts kills one and resumes it)'],
];

/** The example as SKIPS see it: without a trailing `# comment`. */
const bare = (example: string) => example.replace(/\s+#\s.*$/, '');

/** The `$ ...` lines of every command's help. */
async function helpExamples(): Promise<string[]> {
  const sink = new PassThrough();
  const program = await buildProgram({ io: { stdout: sink, stderr: sink, stdin: process.stdin }, env: {}, now: Date.now });
  const out: string[] = [];
  const walk = (command: Command) => {
    out.push(...examplesOf(command));
    command.commands.forEach(walk);
  };
  walk(program);
  return out;
}

/** README.md and every page under docs/ (the command reference, the help topics). */
function guidePages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md'));
  return ['README.md', ...docs.map((f) => join('docs', f))].map((f) => readFileSync(join(ROOT, f), 'utf8'));
}

/** The command lines of the ```sh blocks of README.md and docs/ (continuations joined, comments kept). */
function readmeExamples(): string[] {
  const out: string[] = [];
  for (const block of guidePages().flatMap((page) => [...page.matchAll(/```sh\n([\s\S]*?)```/g)])) {
    const lines = block[1]
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    // A block whose lines depend on each other (a variable, a background job) runs as one script.
    if (lines.some((l) => /^export |^until /.test(l))) out.push(lines.join('\n'));
    else out.push(...lines);
  }
  return out;
}

interface Outcome {
  code: number | null;
  output: string;
}

/** A fresh sandbox and config for one example; returns the env and a cleanup. */
async function freshWorld(): Promise<{ env: NodeJS.ProcessEnv; cwd: string; close: () => Promise<void> }> {
  // With the duplicates `hogctl sandbox --duplicates` seeds, which examples/groups.json names.
  const sandbox = await startSandbox({ quiet: true, applyDelayMs: 0, duplicates: 6 });
  // A project where PostHog turned self-service event deletion on, as `events delete` needs.
  await fetch(`${sandbox.url}/_sandbox/projects/1/self-service-data-deletion/on`, { method: 'POST' });
  const home = mkdtempSync(join(tmpdir(), 'hogctl-examples-'));
  const cwd = join(home, 'work');
  cpSync(join(ROOT, 'examples'), cwd, { recursive: true });
  const bin = join(home, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'hogctl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'hogctl'), 0o755);
  const configDir = join(home, 'config');
  const store = new ProfileStore(configDir);
  for (const [name, project] of [
    ['staging', '2'],
    ['old', '1'],
    ['prod', '1'],
  ])
    await store.save(name, { base_url: sandbox.url, project_id: project }, sandbox.defaultKey);
  await store.use('prod');
  const env: NodeJS.ProcessEnv = { PATH: `${bin}:${process.env.PATH}`, HOME: home, LANG: 'C.UTF-8', HOGCTL_CONFIG_DIR: configDir };
  // Signed in (in-process, to save a node start-up) for the verbs that refuse API keys.
  const sink = new PassThrough();
  sink.resume();
  const code = await main(['auth', 'login', '--email', sandbox.login.email, '--password-stdin'], {
    env,
    io: { stdout: sink as never, stderr: sink as never, stdin: Readable.from([sandbox.login.password]) as never },
  });
  if (code !== 0) throw new Error(`signing in to the sandbox failed with exit ${code}`);
  return {
    env,
    cwd,
    close: async () => {
      await sandbox.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

async function runExample(example: string): Promise<Outcome> {
  const world = await freshWorld();
  try {
    return await new Promise<Outcome>((resolve, reject) => {
      // In its own process group, so that a job the example leaves in the background goes too.
      const child = spawn('bash', ['-o', 'pipefail', '-c', example], {
        cwd: world.cwd,
        env: world.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (d) => (output += d));
      child.stderr.setEncoding('utf8').on('data', (d) => (output += d));
      const killGroup = () => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(killGroup, 30_000);
      child.on('error', reject);
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        killGroup();
        resolve({ code: signal ? null : code, output: signal ? `${output}\n(killed after 30 s)` : output });
      });
    });
  } finally {
    await world.close();
  }
}

const all = [...new Set([...(await helpExamples()), ...readmeExamples()])];
const skipped = all
  .map((example) => [example, SKIPS.find(([pattern]) => pattern.test(bare(example)))?.[1]] as const)
  .filter(([, reason]) => reason);
const runnable = all.filter((example) => !SKIPS.some(([pattern]) => pattern.test(bare(example))));
const outcomes = new Map<string, Outcome>();

beforeAll(async () => {
  const queue = [...runnable];
  const worker = async () => {
    for (let example = queue.shift(); example !== undefined; example = queue.shift()) {
      const outcome = await runExample(example);
      outcomes.set(example, outcome);
      if (process.env.HOGCTL_EXAMPLES_LOG)
        writeFileSync(
          process.env.HOGCTL_EXAMPLES_LOG,
          `${outcome.code} ${example}\n${outcome.code ? outcome.output.slice(0, 400) : ''}\n`,
          { flag: 'a' },
        );
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
}, 600_000);

afterAll(() => {
  process.stdout.write(
    `\nexamples not run here (${skipped.length}):\n${skipped.map(([example, reason]) => `  ${example}\n      -> ${reason}`).join('\n')}\n`,
  );
});

describe('every example in --help, README.md and docs/', () => {
  it('finds the examples', () => {
    expect(all.length).toBeGreaterThan(100);
    expect(runnable.length, 'most examples run here').toBeGreaterThan(skipped.length * 2);
  });

  it.each(runnable)('%s', (example) => {
    const outcome = outcomes.get(example)!;
    expect(outcome.code, outcome.output).toBe(0);
  });
});
