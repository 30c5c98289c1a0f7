import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Command } from 'commander';
import { parseCount } from '../../cli/flags.js';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { globalsUsed } from '../../docs/help-layout.js';
import { startSandbox } from './shared/start-sandbox.js';
import { hogctlCommand } from './shared/hogctl-command.js';
import { fitToTerminal } from '../../io/columns.js';
import { formatNumber } from '../../io/counts.js';

export interface DemoOptions {
  persons?: string;
  keep?: boolean;
}

export function demoCommand(): Command {
  const command = new Command('demo')
    .summary('try hogctl offline against a throwaway local sandbox')
    .description(
      'Starts a local PostHog-compatible sandbox with seeded persons, creates a throwaway profile in a temporary directory, and runs a tour of hogctl commands against it. Nothing leaves this machine and nothing of your own configuration is touched.',
    )
    .option('--persons <n>', 'how many seeded persons the sandbox holds', '1000')
    .addHelpText('after', examples('hogctl demo', 'hogctl demo --persons 5000'))
    .action(withContext(demoRun));
  // The tour brings its own sandbox, profile and key; only colour is the user's to choose.
  return globalsUsed(command, ['--no-color']);
}

export async function demoRun(ctx: Context, options: DemoOptions): Promise<void> {
  // Lazy: main.js imports the command tree this verb is in (the one intended import cycle: the
  // tour runs hogctl commands in this process).
  const { main } = await import('../../main.js');
  const sandbox = await startSandbox({ persons: parseCount(options.persons ?? '1000', '--persons'), seed: 1, quiet: true });
  const configDir = mkdtempSync(join(tmpdir(), 'hogctl-demo-'));
  const { stdout, stderr } = ctx.io;
  const bold = (s: string) => (ctx.colorOn('stdout') ? `\u001b[1m${s}\u001b[22m` : s);
  // The tour's commands run in this process against the sandbox, with a private config dir, so
  // the user's own profiles are never read or written.
  const env = {
    ...ctx.env,
    HOGCTL_CONFIG_DIR: configDir,
    HOGCTL_PROFILE: '',
    HOGCTL_BASE_URL: '',
    HOGCTL_PROJECT_ID: '',
    HOGCTL_API_KEY: '',
  };
  const run = async (note: string, args: string[], stdinText = ''): Promise<void> => {
    stdout.write(`\n${bold(`# ${note}`)}\n${shellLines(['$', 'hogctl', ...args], stdout.isTTY ? stdout.columns : undefined)}\n`);
    const code = await main(args, { ...ctx.deps, env, io: { stdout, stderr, stdin: Readable.from([stdinText]) as never } });
    if (code !== 0) stdout.write(`(exit code ${code})\n`);
  };
  try {
    const banner = `hogctl demo: a local PostHog sandbox is running at ${sandbox.url} with ${formatNumber(sandbox.store.count())} persons.`;
    stdout.write(`${fitToTerminal(stdout, banner)}\n`);
    await run(
      'save a profile; the key is read from standard input, never from a flag',
      ['profile', 'add', 'demo', '--base-url', sandbox.url, '--project', String(sandbox.projectId), '--api-key-stdin'],
      sandbox.defaultKey,
    );
    await run('profiles, with the key masked', ['profile', 'list']);
    await run('the projects the key can see', ['projects', 'list']);
    await run('the five newest persons', ['persons', 'list', '--limit', '5']);
    await run('filter on a property and pick fields, as CSV', [
      'persons',
      'list',
      '--where',
      'plan=enterprise',
      '--limit',
      '3',
      '--fields',
      'uuid,properties.email,properties.plan',
      '-o',
      'csv',
    ]);
    await run('one person, by distinct id, as JSON', ['persons', 'get', '--distinct-id', 'user-1', '-o', 'json']);
    await run('a mistake gets a clear error and a documented exit code', ['persons', 'get', 'not-an-id']);
    stdout.write(
      `\n${bold('# try it yourself')} (the sandbox stops when this demo ends):\n  ${hogctlCommand(ctx.env)} sandbox --persons 10000    # then follow the lines it prints\n`,
    );
  } finally {
    await sandbox.close();
    rmSync(configDir, { recursive: true, force: true });
  }
}

/**
 * A command as the tour echoes it, within the terminal's width: cut between words with a
 * backslash, its continuations indented, so that it still pastes into a shell as one command.
 */
function shellLines(words: string[], columns: number | undefined): string {
  if (!columns) return words.join(' ');
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + 1 + word.length + 2 > columns) {
      lines.push(`${line} \\`);
      line = `    ${word}`;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join('\n');
}
