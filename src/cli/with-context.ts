// Glue between commander and the verbs: builds the Context from the root program's deps and the
// merged global flags, runs the verb, and always releases its connections.
import type { Command } from 'commander';
import { Context, type Deps, type GlobalOptions } from '../context.js';
import { invocationOf } from './rerun.js';

/** The root command carries the deps main() was given, so that no module keeps global state. */
export interface RootCommand extends Command {
  deps: Deps;
}

function root(command: Command): RootCommand {
  let c = command;
  while (c.parent) c = c.parent;
  return c as RootCommand;
}

/**
 * Wraps a verb's run function as a commander action. `run` receives the context, the verb's own
 * options, and the positional arguments in order.
 */
export function withContext<O>(run: (ctx: Context, options: O, ...args: any[]) => Promise<void>) {
  return async (...received: unknown[]): Promise<void> => {
    const command = received[received.length - 1] as Command;
    const options = received[received.length - 2] as O;
    const args = received.slice(0, -2);
    const ctx = new Context(root(command).deps, command.optsWithGlobals<GlobalOptions>(), invocationOf(command, args));
    try {
      await ctx.checkOutputFilter();
      await run(ctx, options, ...args);
      const unused = ctx.unusedOutputFilter();
      if (unused) ctx.warn(`--${unused.kind} was not used: \`hogctl ${ctx.invocation.path.join(' ')}\` prints no JSON data`);
    } finally {
      await ctx.close();
    }
  };
}
