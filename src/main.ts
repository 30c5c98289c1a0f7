// main(argv, deps) -> exit code. The only place where errors become exit codes and reports.
import { setMaxListeners } from 'node:events';
import { CommanderError } from 'commander';
import { CancelledError, CliError, ExitCode, NotDoneYetError } from './errors.js';
import { colorEnabled, isBrokenPipe } from './io/streams.js';
import { fitToTerminal } from './io/columns.js';
import { buildProgram, commandWords, helpForBareGroup } from './program.js';
import { habitError } from './cli/suggest.js';
import type { Deps } from './context.js';

export async function main(argv: string[], given: Partial<Deps> = {}): Promise<number> {
  const deps: Deps = {
    // stdin on first use: node opens it as a stream then, which a command that reads nothing
    // (most of them) need not pay for.
    io: given.io ?? {
      stdout: process.stdout,
      stderr: process.stderr,
      get stdin() {
        return process.stdin;
      },
    },
    env: given.env ?? process.env,
    ...given,
  } as Deps;
  // Each request in flight (up to --concurrency, at most 64) and each wait listens on the Ctrl-C
  // signals for as long as it lasts: many listeners at once, not a leak, so node's warning past
  // ten would only alarm the person reading stderr.
  for (const signal of [deps.signal, deps.quit]) if (signal) setMaxListeners(256, signal);
  try {
    const habit = habitError(argv, commandWords(argv));
    if (habit) throw habit;
    const program = await buildProgram(deps, argv);
    await program.parseAsync(helpForBareGroup(program, argv), { from: 'user' });
    return ExitCode.ok;
  } catch (err) {
    return report(err, deps, argv);
  }
}

function report(err: unknown, deps: Deps, argv: string[]): number {
  const { stderr } = deps.io;
  const debug = argv.includes('--debug');
  if (isBrokenPipe(err)) return ExitCode.ok;
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return ExitCode.ok;
    // commander has already printed its message (and the help, for a group without a verb).
    return ExitCode.usage;
  }
  // The same rule as every other coloured word: --no-color, NO_COLOR, FORCE_COLOR, a terminal.
  const noColorFlag = argv.includes('--no-color') ? false : undefined;
  const red = (s: string) => (colorEnabled(stderr, deps.env, noColorFlag) ? `\u001b[31m${s}\u001b[39m` : s);
  const write = (text: string) => stderr.write(`${fitToTerminal(stderr, text)}\n`);
  if (err instanceof CancelledError || err instanceof NotDoneYetError) {
    // A declined confirmation is the person's choice, and a wait for PostHog's weekly job is
    // normal: neither is a failure, so no red `error:`.
    write(err.message);
    if (err.hint) write(`  ${err.hint}`);
    return err.exitCode;
  }
  if (err instanceof CliError) {
    write(`${red('error:')} ${err.message}`);
    if (err.hint) write(`  ${err.hint}`);
    // An expected error is not a bug: its stack says nothing to the person (--debug's request log
    // says what was sent); a stack is printed for bugs only, below.
    return err.exitCode;
  }
  if (deps.signal?.aborted) {
    stderr.write('cancelled\n');
    return ExitCode.cancelled;
  }
  // Anything else is a bug: a short report, the stack only on request.
  const message = err instanceof Error ? err.message : String(err);
  stderr.write(`${red('error:')} unexpected failure: ${message}\n`);
  stderr.write(
    debug && err instanceof Error && err.stack
      ? `${err.stack}\n`
      : '  this is a bug in hogctl; run again with --debug for details and report it with the command you ran\n',
  );
  return ExitCode.unexpected;
}
